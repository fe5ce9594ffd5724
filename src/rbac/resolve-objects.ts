/**
 * Maps every rendered object to the REST resource and scope RBAC speaks in. Custom kinds are looked
 * up in the CRDs of the render itself (spec.group, spec.names.kind/plural, spec.scope), built-in
 * kinds in {@link lookupBuiltinKind}. An object neither knows cannot be given a permission, so it is
 * an error; all such problems are collected and thrown together.
 */
import { error, throwIfErrors, type Diagnostic } from '../errors.js';
import { apiGroup, describeObject, getIn, nameOf, namespaceOf, type KubeObject } from '../manifest/object.js';
import { kindKey, lookupBuiltinKind, type KindResource } from './builtin-kinds.js';
import type { RbacComponent } from './rbac-types.js';

/** A rendered object with its RBAC coordinates. `namespace` is '' for cluster-scoped objects. */
export interface ResolvedObject {
  component: string;
  object: KubeObject;
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * Resolves the objects of `components`. CRDs are collected from `components` and from
 * `alsoDefining` (the other render, when pruning objects of a previous one), so an object's kind may
 * be defined by a CRD in any component. Throws one SpecError (code `rbac`) listing every problem.
 */
export function resolveObjects(
  components: readonly RbacComponent[],
  alsoDefining: readonly RbacComponent[] = [],
): ResolvedObject[] {
  const problems: Diagnostic[] = [];
  const crdKinds = collectCrdKinds([...components, ...alsoDefining], problems);
  const resolved: ResolvedObject[] = [];
  for (const component of components) {
    for (const object of component.objects) {
      const found = resolveOne(object, crdKinds, problems);
      if (found !== undefined) resolved.push({ component: component.name, object, ...found });
    }
  }
  throwIfErrors(problems);
  return resolved;
}

function resolveOne(
  object: KubeObject,
  crdKinds: ReadonlyMap<string, KindResource>,
  problems: Diagnostic[],
): Omit<ResolvedObject, 'component' | 'object'> | undefined {
  const where = describeObject(object);
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || object.kind === '') {
    problems.push(error('rbac', `${where} has no apiVersion or kind`, { object: where, field: 'kind' }));
    return undefined;
  }
  const group = apiGroup(object.apiVersion);
  const kind = crdKinds.get(kindKey(group, object.kind)) ?? lookupBuiltinKind(group, object.kind);
  if (kind === undefined) {
    problems.push(
      error(
        'rbac',
        `${where} (${object.apiVersion}) is of a kind the render defines no CustomResourceDefinition for and capi-render does not know`,
        {
          object: where,
          field: 'kind',
          hint: 'render the CRD that defines the kind (e.g. add its manifest as additionalManifests), or drop the object',
        },
      ),
    );
    return undefined;
  }
  const name = nameOf(object);
  if (name === '') {
    // generateName objects get a new name on every apply; no GitOps applier can track them.
    problems.push(
      error('rbac', `${where} has no metadata.name`, {
        object: where,
        field: 'metadata.name',
        hint: 'give the object a fixed name',
      }),
    );
    return undefined;
  }
  // A namespace on a cluster-scoped object is ignored by the API server, so it is ignored here.
  const namespace = kind.namespaced ? namespaceOf(object) : '';
  if (kind.namespaced && namespace === '') {
    problems.push(
      error('rbac', `${where} is namespaced but has no metadata.namespace`, {
        object: where,
        field: 'metadata.namespace',
        hint: 'the applier would put it in a namespace of its own choosing; render it with an explicit namespace',
      }),
    );
    return undefined;
  }
  return { group: kind.group, resource: kind.resource, namespace, name };
}

/** The kinds defined by the apiextensions.k8s.io CRDs among `components`. */
function collectCrdKinds(components: readonly RbacComponent[], problems: Diagnostic[]): Map<string, KindResource> {
  const kinds = new Map<string, KindResource>();
  for (const component of components) {
    for (const object of component.objects) {
      if (object.kind !== 'CustomResourceDefinition' || apiGroup(object.apiVersion ?? '') !== 'apiextensions.k8s.io')
        continue;
      const group = getIn(object, ['spec', 'group']);
      const kind = getIn(object, ['spec', 'names', 'kind']);
      const plural = getIn(object, ['spec', 'names', 'plural']);
      const scope = getIn(object, ['spec', 'scope']);
      if (
        typeof group !== 'string' ||
        typeof kind !== 'string' ||
        typeof plural !== 'string' ||
        (scope !== 'Namespaced' && scope !== 'Cluster')
      ) {
        const where = describeObject(object);
        problems.push(
          error(
            'rbac',
            `${where} lacks spec.group, spec.names.kind, spec.names.plural or a spec.scope of Namespaced/Cluster`,
            {
              object: where,
              field: 'spec',
            },
          ),
        );
        continue;
      }
      kinds.set(kindKey(group, kind), { group, resource: plural, namespaced: scope === 'Namespaced' });
    }
  }
  return kinds;
}
