/**
 * Several providers installed into one namespace (k0smotron's bootstrap, control-plane and
 * infrastructure providers all default to `k0smotron`). Each release carries the Namespace, and
 * clusterctl applies them one after the other into the same object; an output that declares it
 * once per component is one kustomize refuses to build ("may not add resource with an already
 * registered id") and one where each Flux Kustomization claims, and may prune, the others' namespace.
 *
 * The Namespace therefore stays in the first component (install order) that carries it, as
 * clusterctl creates it with that provider; later components keep only their namespaced objects.
 * Which component owns a namespace is read back by `namespaceOwners` (Flux orders on it).
 */
import { nameOf, namespaceOf } from '../manifest/object.js';
import type { RenderedComponent } from '../plan/output-plan.js';

/** The components with each Namespace kept only in the first component that declares it. */
export function shareNamespaces(components: readonly RenderedComponent[]): RenderedComponent[] {
  const owner = new Map<string, string>();
  return components.map((component) => {
    const objects = component.objects.filter((o) => {
      if (o.kind !== 'Namespace' || o.apiVersion !== 'v1') return true;
      const first = owner.get(nameOf(o));
      if (first === undefined) owner.set(nameOf(o), component.name);
      return first === undefined || first === component.name;
    });
    return objects.length === component.objects.length ? component : { name: component.name, objects };
  });
}

/**
 * For each component, the other components that create a namespace its namespaced objects live in,
 * in component order. A namespace no component creates (kube-system, one the user brings) is nobody's.
 */
export function namespaceOwners(components: readonly RenderedComponent[]): Map<string, string[]> {
  const creator = new Map<string, string>();
  for (const c of components) {
    for (const o of c.objects)
      if (o.kind === 'Namespace' && o.apiVersion === 'v1' && !creator.has(nameOf(o))) creator.set(nameOf(o), c.name);
  }
  const out = new Map<string, string[]>();
  for (const c of components) {
    const needs = new Set<string>();
    for (const o of c.objects) {
      const from = creator.get(namespaceOf(o));
      if (from !== undefined && from !== c.name) needs.add(from);
    }
    out.set(
      c.name,
      components.map((x) => x.name).filter((n) => needs.has(n)),
    );
  }
  return out;
}
