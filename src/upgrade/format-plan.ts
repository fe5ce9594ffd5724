/**
 * The two forms of `capi-render plan`: a terminal report (one table of providers per environment,
 * then each candidate contract's plan with what blocks it and the command that applies it) and a
 * JSON document with a fixed, versioned shape for tools (see {@link PLAN_JSON_SCHEMA_HELP}).
 */
import { DEFAULT_ENVIRONMENT } from '../overlay/discover-environments.js';
import { CERT_MANAGER_COMPONENT } from '../render/cert-manager.js';
import type { CertManagerPlanRow } from './cert-manager-plan.js';
import type { ContractPlan, EnvironmentUpgradePlan } from './plan.js';

/** `capi-render plan --json` output. Keys never disappear; absent values are null. */
export interface PlanDocument {
  apiVersion: 'capi-render/v1alpha1';
  kind: 'UpgradePlan';
  environments: (Omit<EnvironmentUpgradePlan, 'contracts'> & {
    contracts: (ContractPlan & { command: string | null })[];
  })[];
}

/** The schema of {@link PlanDocument}, as printed by `capi-render plan --help`. */
export const PLAN_JSON_SCHEMA_HELP = [
  '--json prints {apiVersion: capi-render/v1alpha1, kind: UpgradePlan, environments: [...]}; each environment:',
  '  environment, core {provider, version, contract},',
  '  providers [{provider (Kind/namespace/name), kind, name, namespace, label, version, contract,',
  '             latestPatch, sameContract, newest {version, contract, coreFirst},',
  '             versions {source (live|cached|unlisted), fetchedAt (cached: when the list was read online), note} }]  (versions: tag or null),',
  '  certManager {version, requested (certManager.version, "" = clusterctl default), clusterctlDefault, latestPatch, newest, versions} or null,',
  '  images [{image, locked (digest in capi-render.lock), current (what the tag points to now, or null), moved, error?}]  ([] without imagePolicy.pinDigests),',
  '  contracts [{contract, current, status (up-to-date|available|blocked),',
  '              steps [{provider, label, namespace, from, to, contract}],',
  '              blockers [{code (no-version|skip-limit|unsupported-contract), provider?, message, via?}],',
  '              command (the upgrade command that applies it, or null)}]',
];

/** The JSON document for a list of environment plans. */
export function planDocument(plans: readonly EnvironmentUpgradePlan[]): PlanDocument {
  return {
    apiVersion: 'capi-render/v1alpha1',
    kind: 'UpgradePlan',
    environments: plans.map((p) => ({
      ...p,
      contracts: p.contracts.map((c) => ({
        ...c,
        command: c.status === 'available' ? applyCommand(p.environment, c.contract) : null,
      })),
    })),
  };
}

/**
 * The plan as terminal text, ending in a newline. `now` only dates a version list saved by an earlier
 * online run (`--offline`). Default: the system clock.
 */
export function formatPlanText(plans: readonly EnvironmentUpgradePlan[], now: Date = new Date()): string {
  const out: string[] = [];
  for (const plan of plans) {
    if (out.length > 0) out.push('');
    out.push(
      `Environment ${plan.environment}: core provider ${plan.core.provider} ${plan.core.version} implements ${plan.core.contract}`,
      '',
    );
    out.push(
      ...table([
        ['NAME', 'NAMESPACE', 'VERSION', 'CONTRACT', 'LATEST PATCH', 'SAME CONTRACT', 'NEWEST'],
        ...(plan.certManager ? [certManagerCells(plan.certManager)] : []),
        ...plan.providers.map((r) => [
          r.label,
          r.namespace,
          r.version,
          r.contract,
          r.latestPatch ?? '-',
          r.sameContract ?? '-',
          r.newest
            ? `${r.newest.version} (${r.newest.contract}${r.newest.coreFirst ? ', core must move first' : ''})`
            : '-',
        ]),
      ]),
    );
    out.push(...imageLines(plan));
    const notes = [...versionNotes(plan, now), ...certManagerNote(plan.certManager)];
    if (notes.length > 0) out.push('', ...notes.map((n) => `note: ${n}`));
    for (const c of plan.contracts) {
      out.push(
        '',
        `Contract ${c.contract}${c.current ? ' (current)' : ''}: ${c.status === 'up-to-date' ? 'up to date' : c.status}`,
      );
      if (c.status === 'up-to-date') continue;
      out.push(
        ...table([
          ['NAME', 'NAMESPACE', 'CURRENT', 'NEXT'],
          ...c.steps.map((s) => [s.label, s.namespace, s.from, s.to ?? '-']),
        ]).map((l) => `  ${l}`),
      );
      for (const b of c.blockers) out.push(`  blocked: ${b.message}`);
      if (c.status === 'available') out.push(`  apply with: ${applyCommand(plan.environment, c.contract)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** Where the versions in the table came from, when not from the sources just now: saved lists (oldest first), then unlisted sources. */
function versionNotes(plan: EnvironmentUpgradePlan, now: Date): string[] {
  const byTime = new Map<string, string[]>();
  const unlisted: string[] = [];
  const rows = [
    ...(plan.certManager ? [{ label: CERT_MANAGER_COMPONENT, versions: plan.certManager.versions }] : []),
    ...plan.providers,
  ];
  for (const r of rows) {
    if (r.versions.source === 'cached' && r.versions.fetchedAt)
      byTime.set(r.versions.fetchedAt, [...(byTime.get(r.versions.fetchedAt) ?? []), r.label]);
    if (r.versions.source === 'unlisted')
      unlisted.push(`${r.label}: ${r.versions.note}; newer releases are unknown here, set spec.version yourself`);
  }
  const cached = [...byTime]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(
      ([fetchedAt, labels]) =>
        `${labels.join(', ')}: versions as of ${fetchedAt} (${describeAge(now.getTime() - Date.parse(fetchedAt))} old), the list saved by the last online run (--offline)`,
    );
  return [...cached, ...unlisted];
}

/** The pinned images: how many, and every tag that moved (both digests) or could not be asked. */
function imageLines(plan: EnvironmentUpgradePlan): string[] {
  if (plan.images.length === 0) return [];
  const moved = plan.images.filter((i) => i.moved);
  const unknown = plan.images.filter((i) => i.current === null);
  const out = [
    '',
    `Images: ${plan.images.length} pinned by digest, ${moved.length} tag${moved.length === 1 ? '' : 's'} moved since locked${unknown.length > 0 ? `, ${unknown.length} not checked` : ''}`,
  ];
  if (moved.length > 0) {
    out.push(
      ...table([['IMAGE', 'LOCKED', 'TAG NOW'], ...moved.map((i) => [i.image, i.locked, i.current!])]).map(
        (l) => `  ${l}`,
      ),
    );
    out.push(
      `  re-pin with: capi-render upgrade --images${plan.environment === DEFAULT_ENVIRONMENT ? '' : ` --env ${plan.environment}`} (a reviewed change: the diff shows every object that moves)`,
    );
  }
  for (const i of unknown) out.push(`  not checked: ${i.image}: ${i.error}`);
  return out;
}

/** cert-manager's table row: no contract, so nothing in the same-contract column. */
function certManagerCells(c: CertManagerPlanRow): string[] {
  return [CERT_MANAGER_COMPONENT, CERT_MANAGER_COMPONENT, c.version, '-', c.latestPatch ?? '-', '-', c.newest ?? '-'];
}

/**
 * How cert-manager moves, when its source has something newer: it has no contract, and `upgrade`
 * does not edit it (its version is a setting, not a provider CR).
 */
function certManagerNote(c: CertManagerPlanRow | null): string[] {
  if (!c || c.newest === null) return [];
  const pinned = c.requested === '' ? "clusterctl's default when it was locked" : `certManager.version ${c.requested}`;
  return [
    `cert-manager ${c.version} (${pinned}; clusterctl's default is ${c.clusterctlDefault}) has no contract: move it by setting certManager.version in capi-render.yaml or an overlay, then capi-render build`,
  ];
}

/** A coarse age: minutes, hours or days. */
function describeAge(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const days = Math.floor(hours / 24);
  return `${days} days`;
}

function applyCommand(environment: string, contract: string): string {
  return `capi-render upgrade${environment === DEFAULT_ENVIRONMENT ? '' : ` --env ${environment}`} --contract ${contract}`;
}

/** Left-aligned columns separated by two spaces; no trailing spaces. */
function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
