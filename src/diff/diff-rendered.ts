/**
 * The object-level diff of two rendered trees, the part of an upgrade pull request a reviewer
 * reads instead of a text diff of the YAML files.
 */
import { crdSchemaOverride } from './diff-crd-schema.js';
import { containerArgsOverride } from './diff-container-args.js';
import { diffFields, type FieldDiffOverride } from './diff-fields.js';
import { rbacRulesOverride } from './diff-rbac-rules.js';
import { pairObjects } from './pair-objects.js';
import type { ObjectChange, RenderedSide } from './types.js';
import { isDeepEqual } from './util-compare.js';

/** Kinds whose fields are summarised rather than diffed value by value. */
const OVERRIDES = new Map<string, FieldDiffOverride>([
  ['CustomResourceDefinition', crdSchemaOverride],
  ['Role', rbacRulesOverride],
  ['ClusterRole', rbacRulesOverride],
]);

/**
 * Every object added, removed or changed from `before` to `after`, per environment and component.
 * Sorted by environment, component, then apply order (Namespaces and CRDs first, webhook
 * configurations last) and id; independent of the order of the input lists. Objects that are
 * equal (same reference, or same content in any key order) are skipped without a field diff.
 * CRD version schemas are summarised (see diff-crd-schema.ts); Role and ClusterRole rules are
 * compared per target (see diff-rbac-rules.ts); container `args` of every other kind flag by flag
 * (see diff-container-args.ts). Pure; never mutates its inputs.
 * Throws SpecError `diff-duplicate-object` when a component holds the same object twice.
 */
export function diffRendered(before: RenderedSide, after: RenderedSide): ObjectChange[] {
  const changes: ObjectChange[] = [];
  for (const pair of pairObjects(before, after)) {
    const where = { env: pair.env, component: pair.component, id: pair.id };
    if (pair.before === undefined) changes.push({ ...where, change: 'added' });
    else if (pair.after === undefined) changes.push({ ...where, change: 'removed' });
    else if (!isDeepEqual(pair.before, pair.after)) {
      const override = OVERRIDES.get(pair.after.kind) ?? containerArgsOverride;
      changes.push({ ...where, change: 'changed', fields: diffFields(pair.before, pair.after, '', override) });
    }
  }
  return changes;
}
