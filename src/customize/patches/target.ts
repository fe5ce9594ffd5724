/**
 * `spec.patches[].target`: which objects a patch applies to, matched as the operator's
 * `matchSelector` does. Every field that is set (non-empty) must equal the object's; an absent
 * or empty target matches every object.
 */
import { apiGroup, apiVersionOnly, labelsOf, nameOf, namespaceOf, type KubeObject } from '../../manifest/object.js';
import type { PatchTarget } from '../../declarations/provider-spec.js';
import { parseLabelSelector } from './label-selector.js';
import type { PatchSite } from './patch-text.js';

/** Whether a patch applies to an object. */
export type ObjectPredicate = (object: KubeObject) => boolean;

/**
 * Builds the predicate of a target. The label selector is parsed once here; a bad one throws
 * SpecError code `patch` pointing at `<site.field>.target.labelSelector`.
 */
export function compileTarget(target: PatchTarget | undefined, site: PatchSite): ObjectPredicate {
  if (!target) return () => true;
  const { group, version, kind, name, namespace, labelSelector } = target;
  const selector = labelSelector
    ? parseLabelSelector(labelSelector, { object: site.providerRef, field: `${site.field}.target.labelSelector` })
    : undefined;
  return (object) =>
    (!group || apiGroup(object.apiVersion) === group) &&
    (!version || apiVersionOnly(object.apiVersion) === version) &&
    (!kind || object.kind === kind) &&
    (!name || nameOf(object) === name) &&
    (!namespace || namespaceOf(object) === namespace) &&
    (!selector || selector.matches(stringLabels(object)));
}

/** The target as a short text for messages, e.g. `{kind: Deployment, name: capi-controller-manager}`. */
export function describeTarget(target: PatchTarget | undefined): string {
  const fields = (['group', 'version', 'kind', 'name', 'namespace', 'labelSelector'] as const)
    .filter((field) => target?.[field])
    .map((field) => `${field}: ${target?.[field]}`);
  return fields.length > 0 ? `{${fields.join(', ')}}` : 'no target (every object)';
}

function stringLabels(object: KubeObject): Record<string, string> {
  // Label values are strings in any valid object; anything else cannot match a selector value.
  return Object.fromEntries(Object.entries(labelsOf(object)).filter(([, value]) => typeof value === 'string'));
}
