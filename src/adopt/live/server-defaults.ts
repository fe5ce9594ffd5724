/**
 * The API server's defaults for fields inside atomic lists. An
 * atomic list is replaced whole by an apply and then defaulted, so comparing it with the live list
 * needs the rendered list defaulted the same way. Defaults outside atomic lists are never applied
 * here: a field the rendered object leaves out is not compared at all.
 */
import { isJsonObject, type JsonValue } from '../../manifest/object.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** `list` (the value at field path `names` of a `group`/`kind` object) with its elements' server defaults. */
export function withAtomicDefaults(
  group: string,
  kind: string,
  names: readonly string[],
  list: readonly JsonValue[],
): JsonValue[] {
  const path = names.join('.');
  // pkg/apis/rbac/v1/defaults.go: subjects' apiGroup ("" for ServiceAccount, RBAC for User and Group).
  if (group === RBAC_GROUP && (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') && path === 'subjects') {
    return list.map((s) =>
      isJsonObject(s) && s.apiGroup === undefined && (s.kind === 'User' || s.kind === 'Group')
        ? { ...s, apiGroup: RBAC_GROUP }
        : s,
    );
  }
  // pkg/apis/admissionregistration/v1/defaults.go SetDefaults_Rule: scope "*".
  if (group === 'admissionregistration.k8s.io' && path === 'webhooks.rules') {
    return list.map((r) => (isJsonObject(r) && r.scope === undefined ? { ...r, scope: '*' } : r));
  }
  return [...list];
}
