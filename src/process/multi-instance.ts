/**
 * Several instances of one provider in one management cluster (each in its own namespace, watching
 * only its own scope). CRDs, conversion and admission webhooks are cluster-wide, so:
 * - every instance must run the same version (the shared CRDs and webhooks belong to one release);
 * - no two instances may watch overlapping namespaces (each sets spec.manager.cacheNamespace, and
 *   they differ);
 * - the first instance (by namespace) renders everything; the others render only their namespaced
 *   objects, plus their own ClusterRoleBindings (renamed `<namespace>-<name>`, since the name is
 *   cluster-wide) to the shared ClusterRoles. Their components are named `<label>.<namespace>`.
 * The shared webhooks call the first instance's webhook service: defaulting and validation of
 * every instance's objects is done by that one Deployment (documented limit).
 */
import { SpecError, error, type Diagnostic } from '../errors.js';
import { isClusterScoped } from '../manifest/cluster-scoped.js';
import { nameOf, setIn, type KubeObject } from '../manifest/object.js';
import type { RenderedComponent } from '../plan/output-plan.js';
import { ref } from '../declarations/preflight.js';
import type { ProviderCR } from '../declarations/provider-spec.js';

export interface Instance {
  /** The instance's CR and the version it resolved to (render/environment-result.ts ResolvedProvider fits). */
  provider: { cr: ProviderCR; version: string };
  component: RenderedComponent;
}

/** Returns the components with secondary instances reduced and renamed; throws on version skew or overlap. */
export function reconcileInstances(instances: readonly Instance[]): RenderedComponent[] {
  const groups = new Map<string, Instance[]>();
  for (const i of instances) groups.set(i.component.name, [...(groups.get(i.component.name) ?? []), i]);
  const out: RenderedComponent[] = [];
  const problems: Diagnostic[] = [];
  for (const [label, group] of groups) {
    if (group.length === 1) {
      out.push(group[0]!.component);
      continue;
    }
    const sorted = [...group].sort((a, b) => (a.provider.cr.namespace < b.provider.cr.namespace ? -1 : 1));
    const first = sorted[0]!;
    for (const other of sorted.slice(1)) {
      if (other.provider.version !== first.provider.version) {
        problems.push(
          error(
            'multi-namespace',
            `${ref(first.provider.cr)} is ${first.provider.version} but ${ref(other.provider.cr)} is ${other.provider.version}: instances of one provider share cluster-wide CRDs and webhooks, so they must run the same version`,
            {
              file: other.provider.cr.file,
              line: other.provider.cr.line,
              field: 'spec.version',
              hint: `set the same spec.version on every ${first.provider.cr.kind} named ${first.provider.cr.name}`,
            },
          ),
        );
      }
    }
    const watched = new Map<string, Instance>();
    for (const i of sorted) {
      const scope = i.provider.cr.spec.manager?.cacheNamespace ?? '';
      const clash = watched.get(scope);
      if (clash) {
        problems.push(
          error(
            'multi-namespace',
            `${ref(clash.provider.cr)} and ${ref(i.provider.cr)} both watch namespace ${scope}: their controllers would reconcile the same objects`,
            {
              file: i.provider.cr.file,
              line: i.provider.cr.line,
              field: 'spec.manager.cacheNamespace',
              hint: 'give each instance its own spec.manager.cacheNamespace',
            },
          ),
        );
      }
      watched.set(scope, i);
    }
    out.push(first.component);
    for (const i of sorted.slice(1))
      out.push({ name: `${label}.${i.provider.cr.namespace}`, objects: secondaryObjects(i) });
  }
  if (problems.length > 0) throw new SpecError(problems);
  return out;
}

function secondaryObjects(i: Instance): KubeObject[] {
  const ns = i.provider.cr.namespace;
  return i.component.objects.flatMap((o): KubeObject[] => {
    if (o.kind === 'ClusterRoleBinding') return [setIn(o, ['metadata', 'name'], `${ns}-${nameOf(o)}`)];
    // The instance's own Namespace must be created; everything else cluster-wide is shared.
    if (o.kind === 'Namespace') return nameOf(o) === ns ? [o] : [];
    return isClusterScoped(o.kind) ? [] : [o];
  });
}
