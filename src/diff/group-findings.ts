/**
 * Findings grouped by cause, so a report says a thing once with the objects it applies to instead of
 * repeating the same block per CRD. Pure; the findings' own texts are printed as they are, only
 * arranged. Which findings need no action is decided here from their code, never from their text.
 */
import type { Finding, FindingCode, FindingSeverity } from './types.js';
import { SEVERITIES } from './util-format.js';

/**
 * Info findings that record something new and change nothing that exists, so a reviewer has nothing
 * to do about them: a CRD or CRD version added (served or kept unserved for objects stored long ago),
 * as finding-why.ts explains for each. Other info findings (images, flags, removals, RBAC) may need a
 * check and stay listed.
 */
export const NO_ACTION_CODES: readonly FindingCode[] = ['crd-added', 'crd-version-added'];

/** True for a finding a reviewer must read: every danger and warning, and info outside {@link NO_ACTION_CODES}. */
export function needsAction(finding: Finding): boolean {
  return finding.severity !== 'info' || !NO_ACTION_CODES.includes(finding.code);
}

/** One object a group applies to. */
export interface GroupMember {
  env: string;
  component: string;
  object?: string;
  /** The finding's own message; printed per member when the group has no shared one. */
  message: string;
}

/** Findings with the same severity, code and explanation (details). */
export interface FindingGroup {
  severity: FindingSeverity;
  code: FindingCode;
  /**
   * The message every member says once its own object's name is left off the front (for a CRD:
   * `versions added: v1alpha4 (not served, deprecated)`); undefined when the members say different
   * things (each image that changes), and then each member's message is printed with it.
   */
  message?: string;
  /** The shared explanation or steps, printed once. */
  details: readonly string[];
  /** In input order (the findings' sorted order: environment, component, object). */
  members: GroupMember[];
  needsAction: boolean;
}

/**
 * Groups `findings` by severity, code and details (the cause: the same explanation or procedure),
 * in severity order and then the order each cause first occurs. A finding that shares its cause with
 * no other is a group of one.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, { findings: Finding[] }>();
  for (const severity of SEVERITIES) {
    for (const f of findings) {
      if (f.severity !== severity) continue;
      const key = JSON.stringify([f.severity, f.code, genericDetails(f)]);
      const entry = groups.get(key) ?? { findings: [] };
      groups.set(key, entry);
      entry.findings.push(f);
    }
  }
  return [...groups.values()].map(({ findings: list }) => {
    const first = list[0]!;
    const shared = sharedMessage(list);
    const generic = genericDetails(first);
    const named = list.length > 1 && generic.some((d, i) => d !== first.details![i]);
    return {
      severity: first.severity,
      code: first.code,
      ...(shared !== undefined ? { message: shared } : {}),
      details: named ? [`${CRD_PLACEHOLDER} stands for each CRD listed below`, ...generic] : (first.details ?? []),
      members: list.map((f) => ({
        env: f.env,
        component: f.component,
        ...(f.object !== undefined ? { object: f.object } : {}),
        message: list.length > 1 ? withoutOwnName(f) : f.message,
      })),
      needsAction: needsAction(first),
    };
  });
}

/** What a grouped CRD finding's steps write where each finding named its own CRD. */
export const CRD_PLACEHOLDER = '<crd>';

/**
 * A finding's details with its own CRD's name (which its commands spell, e.g. `kubectl get crd
 * <name>`) as {@link CRD_PLACEHOLDER}, so the same procedure for several CRDs is one cause and is
 * printed once; other findings' details as they are.
 */
function genericDetails(f: Finding): readonly string[] {
  const details = f.details ?? [];
  if (f.object === undefined || !f.object.startsWith('CustomResourceDefinition.')) return details;
  const name = f.object.split('/').at(-1);
  return name ? details.map((d) => d.split(name).join(CRD_PLACEHOLDER)) : details;
}

/**
 * What every finding of `list` says apart from its object: the message with `<object name>: ` (or,
 * without an object, `<component>: `) left off its front when it starts so (CRD findings name their
 * CRD first, contract findings their provider), else the message itself; undefined when they differ.
 * A group of one keeps its whole message.
 */
function sharedMessage(list: readonly Finding[]): string | undefined {
  if (list.length === 1) return list[0]!.message;
  const rests = list.map(withoutOwnName);
  return rests.every((r) => r === rests[0]) ? rests[0] : undefined;
}

/** A finding's message without the `<object name>: ` (about no object: `<component>: `) it may open with; a member line names the object already. */
function withoutOwnName(f: Finding): string {
  // A finding about no object (a contract change) names its component first.
  const name = f.object === undefined ? f.component : f.object.split('/').at(-1);
  return name !== undefined && f.message.startsWith(`${name}: `) ? f.message.slice(name.length + 2) : f.message;
}

/** `11 objects`, or `2 components` when some member is about no object (a contract change). */
export function countMembers(group: FindingGroup): string {
  const n = group.members.length;
  return group.members.every((m) => m.object !== undefined)
    ? `${n} ${n === 1 ? 'object' : 'objects'}`
    : `${n} ${n === 1 ? 'component' : 'components'}`;
}

/** How many findings need no action, per code (sorted by code): the tally a compact report prints instead of them. */
export function noActionTally(findings: readonly Finding[]): {
  total: number;
  codes: { code: FindingCode; count: number }[];
} {
  const counts = new Map<FindingCode, number>();
  for (const f of findings) if (!needsAction(f)) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  const codes = [...counts]
    .map(([code, count]) => ({ code, count }))
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  return { total: codes.reduce((n, c) => n + c.count, 0), codes };
}
