/**
 * Safety findings for RoleBindings and ClusterRoleBindings: who is granted which role.
 *
 * Design notes: docs/internals.md "diff/findings/rbac-binding-findings.ts".
 */
import { isJsonObject, labelsOf, nameOf, namespaceOf, type KubeObject } from '../../manifest/object.js';
import { matchesLabelSelector } from '../../source/label-selector.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding, FindingSeverity } from '../types.js';
import { compareText } from '../util-compare.js';
import { makeFinding } from './make-finding.js';
import { selectorsOf } from './rbac-findings.js';
import { expandRules, summarizePermissions, type Permission } from './rbac-permissions.js';

/** The Roles and ClusterRoles one environment renders after the change, across all components. */
export interface BoundRoles {
  clusterRoles: readonly KubeObject[];
  roles: readonly KubeObject[];
}

const KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

/** The built-in ClusterRole that allows everything. */
const CLUSTER_ADMIN = 'cluster-admin';

/** User or Group names that stand for every (authenticated or anonymous) requester. */
const EVERYONE: Readonly<Record<string, string>> = {
  'system:authenticated': 'every authenticated user and service account',
  'system:unauthenticated': 'every unauthenticated (anonymous) request',
  'system:anonymous': 'every anonymous request',
};

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface RoleRef {
  kind: string;
  name: string;
}

/** The binding findings of one object pair; none for kinds other than RoleBinding and ClusterRoleBinding. */
export function findRbacBindingFindings(pair: ObjectPair, roles: BoundRoles): Finding[] {
  const binding = pair.after;
  if (binding === undefined || !KINDS.has(binding.kind)) return [];
  const label = `${binding.kind} ${nameOf(binding)}`;
  const scope = binding.kind === 'ClusterRoleBinding' ? 'cluster-wide' : `in namespace ${namespaceOf(binding)}`;
  const now = subjectsOf(binding);
  const ref = roleRefOf(binding);
  const role = describeRole(ref, binding, roles, scope);
  const roleLabel = formatRoleRef(ref);
  if (pair.before === undefined) {
    const dangerous = [...now.flatMap(subjectDanger), ...role.dangers];
    const message = `${label} grants ${roleLabel} ${scope} to ${listSubjects(now)}`;
    return [
      finding(
        dangerous.length > 0 ? 'danger' : now.length > 0 ? 'warning' : 'info',
        'rbac-binding-added',
        pair,
        message,
        dangerous,
        role.notes,
        now,
      ),
    ];
  }
  const out: Finding[] = [];
  const oldRef = roleRefOf(pair.before);
  if (formatRoleRef(oldRef) !== roleLabel) {
    const message = `${label}: roleRef ${formatRoleRef(oldRef)} → ${roleLabel}, granted ${scope} to ${listSubjects(now)}`;
    const notes = [
      ...role.notes,
      'roleRef cannot be changed in place: the API server refuses the update, so the binding must be deleted and created again',
    ];
    out.push(
      finding(
        role.dangers.length > 0 ? 'danger' : 'warning',
        'rbac-binding-role-changed',
        pair,
        message,
        role.dangers,
        notes,
        now,
        { before: formatRoleRef(oldRef), after: roleLabel },
      ),
    );
  }
  const old = new Set(subjectsOf(pair.before).map(formatSubject));
  const added = now.filter((s) => !old.has(formatSubject(s)));
  if (added.length > 0) {
    const dangerous = [...added.flatMap(subjectDanger), ...role.dangers];
    const message = `${label} also grants ${roleLabel} ${scope} to ${listSubjects(added)}`;
    out.push(
      finding(
        dangerous.length > 0 ? 'danger' : 'warning',
        'rbac-binding-subjects-added',
        pair,
        message,
        dangerous,
        role.notes,
        added,
      ),
    );
  }
  return out;
}

function finding(
  severity: FindingSeverity,
  code: 'rbac-binding-added' | 'rbac-binding-subjects-added' | 'rbac-binding-role-changed',
  pair: ObjectPair,
  message: string,
  dangers: readonly string[],
  notes: readonly string[],
  subjects: readonly Subject[],
  values: { before?: string; after?: string } = {},
): Finding {
  const details = [...dangers.map((line) => `dangerous: ${line}`), ...notes];
  return makeFinding(severity, code, pair, message, {
    details,
    subjects: subjects.map(formatSubject).sort(compareText),
    ...values,
  });
}

/** Why granting `ref` is dangerous (lines), and what else a reviewer should know of it. */
function describeRole(
  ref: RoleRef | undefined,
  binding: KubeObject,
  roles: BoundRoles,
  scope: string,
): { dangers: string[]; notes: string[] } {
  if (ref === undefined) return { dangers: [], notes: ['the binding has no roleRef'] };
  if (ref.kind === 'ClusterRole' && ref.name === CLUSTER_ADMIN)
    return { dangers: [`${CLUSTER_ADMIN} allows every verb on every resource ${scope}`], notes: [] };
  const role =
    ref.kind === 'ClusterRole'
      ? roles.clusterRoles.find((r) => nameOf(r) === ref.name)
      : ref.kind === 'Role'
        ? roles.roles.find((r) => nameOf(r) === ref.name && namespaceOf(r) === namespaceOf(binding))
        : undefined;
  if (role === undefined)
    return {
      dangers: [],
      notes: [`${formatRoleRef(ref)} is not rendered in this environment: what it allows is not checked here`],
    };
  const selectors = selectorsOf(role);
  const sources =
    selectors === undefined
      ? [role]
      : roles.clusterRoles.filter(
          (r) => selectorsOf(r) === undefined && selectors.some((s) => matchesLabelSelector(s, labelsOf(r))),
        );
  const wildcards = sources.flatMap((r) => expandRules(r.rules)).filter(isWildcard);
  if (wildcards.length === 0) return { dangers: [], notes: [] };
  const from = sources.filter((r) => expandRules(r.rules).some(isWildcard)).map((r) => `ClusterRole ${nameOf(r)}`);
  const notes = selectors === undefined ? [] : [`${formatRoleRef(ref)} aggregates these from ${from.join(', ')}`];
  return { dangers: summarizePermissions(wildcards).map((line) => `${formatRoleRef(ref)} allows ${line}`), notes };
}

/** A `*` verb or a `*` resource (every resource of its API groups). */
function isWildcard(p: Permission): boolean {
  return p.verb === '*' || p.resource === '*';
}

/** Why a subject is dangerous to grant anything to: none for a single user or service account. */
function subjectDanger(s: Subject): string[] {
  if ((s.kind === 'User' || s.kind === 'Group') && Object.hasOwn(EVERYONE, s.name))
    return [`${formatSubject(s)} is ${EVERYONE[s.name]}`];
  if (s.kind === 'Group' && s.name === 'system:serviceaccounts')
    return [`${formatSubject(s)} is every service account of every namespace`];
  if (s.kind === 'Group' && s.name.startsWith('system:serviceaccounts:'))
    return [
      `${formatSubject(s)} is every service account of namespace ${s.name.slice('system:serviceaccounts:'.length)}`,
    ];
  return [];
}

function subjectsOf(binding: KubeObject): Subject[] {
  const list = Array.isArray(binding.subjects) ? binding.subjects.filter(isJsonObject) : [];
  return list.map((s) => ({
    kind: typeof s.kind === 'string' ? s.kind : '',
    name: typeof s.name === 'string' ? s.name : '',
    ...(typeof s.namespace === 'string' && s.namespace !== '' ? { namespace: s.namespace } : {}),
  }));
}

function roleRefOf(binding: KubeObject): RoleRef | undefined {
  const ref = binding.roleRef;
  if (!isJsonObject(ref)) return undefined;
  return { kind: typeof ref.kind === 'string' ? ref.kind : '', name: typeof ref.name === 'string' ? ref.name : '' };
}

/** `ServiceAccount capi-system/capi-manager`, `Group system:authenticated`, `User alice`. */
function formatSubject(s: Subject): string {
  return `${s.kind} ${s.namespace === undefined ? '' : `${s.namespace}/`}${s.name}`;
}

function formatRoleRef(ref: RoleRef | undefined): string {
  return ref === undefined ? '(no role)' : `${ref.kind} ${ref.name}`;
}

/** The subjects for a message: up to three by name, then how many more. */
function listSubjects(list: readonly Subject[]): string {
  if (list.length === 0) return 'no subject';
  const names = list.map(formatSubject).sort(compareText);
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}
