/**
 * The version matrix of the report: one row per provider (cert-manager first, then clusterctl's
 * install order), one column per environment, environments grouped by GitOps flavour. Each cell is
 * the `plan` row of that provider in that environment: the locked version, its contract, and marks
 * for what `capi-render upgrade` could move it to. Pure.
 */
import semver from 'semver';
import { compareText } from '../diff/util-compare.js';
import { CERT_MANAGER_COMPONENT } from '../render/cert-manager.js';
import { kindInfo, isProviderKind } from '../declarations/provider-kinds.js';
import { parseVersion } from '../declarations/versions.js';
import type { CertManagerPlanRow } from '../upgrade/cert-manager-plan.js';
import type { EnvironmentUpgradePlan, ProviderPlanRow } from '../upgrade/plan.js';
import type { ListingProvenance } from '../upgrade/upgrade-info.js';
import type { MatrixCell, MatrixModel, MatrixRow } from './report-model.js';
import { FLAVOUR_ORDER, FLAVOUR_TITLES, environmentAnchor, type Flavour } from './util-report.js';

/** Builds the matrix from each environment's plan and GitOps flavour. */
export function buildVersionMatrix(
  plans: readonly EnvironmentUpgradePlan[],
  flavours: ReadonlyMap<string, Flavour>,
): MatrixModel {
  const flavourOf = (env: string): Flavour => flavours.get(env) ?? 'kustomize';
  const ordered = [...plans].sort(
    (a, b) =>
      FLAVOUR_ORDER.indexOf(flavourOf(a.environment)) - FLAVOUR_ORDER.indexOf(flavourOf(b.environment)) ||
      compareText(a.environment, b.environment),
  );
  const groups: MatrixModel['groups'] = [];
  for (const plan of ordered) {
    const flavour = flavourOf(plan.environment);
    const last = groups.at(-1);
    if (last?.flavour === flavour) last.span++;
    else groups.push({ flavour, title: FLAVOUR_TITLES[flavour], span: 1 });
  }
  const rows = new Map<string, { row: MatrixRow; order: number }>();
  const rowFor = (key: string, name: string, kind: string, order: number) => {
    let entry = rows.get(key);
    if (!entry) {
      entry = { row: { name, kind, cells: ordered.map((p) => absent(p.environment)) }, order };
      rows.set(key, entry);
    }
    return entry.row;
  };
  ordered.forEach((plan, column) => {
    if (plan.certManager)
      rowFor(CERT_MANAGER_COMPONENT, CERT_MANAGER_COMPONENT, 'installed before the providers', -1).cells[column] =
        certManagerCell(plan.environment, plan.certManager);
    for (const r of plan.providers) {
      const order = isProviderKind(r.kind) ? kindInfo(r.kind).order : 99;
      rowFor(`${r.label}\u0000${r.namespace}`, r.label, r.kind, order).cells[column] = providerCell(
        plan.environment,
        r,
      );
    }
  });
  // A provider in several namespaces gets one row per namespace, named so.
  const labels = new Map<string, number>();
  for (const key of rows.keys()) labels.set(key.split('\u0000')[0]!, (labels.get(key.split('\u0000')[0]!) ?? 0) + 1);
  const sorted = [...rows.entries()].sort(([ka, a], [kb, b]) => a.order - b.order || compareText(ka, kb));
  return {
    groups,
    columns: ordered.map((p) => ({
      environment: p.environment,
      flavour: flavourOf(p.environment),
      anchor: environmentAnchor(p.environment),
    })),
    rows: sorted.map(([key, { row }]) => {
      const [label, namespace] = key.split('\u0000');
      return (labels.get(label!) ?? 0) > 1 && namespace ? { ...row, name: `${label} (${namespace})` } : row;
    }),
  };
}

function absent(environment: string): MatrixCell {
  return { environment, present: false, version: '', contract: '', marks: [], details: [] };
}

function providerCell(environment: string, r: ProviderPlanRow): MatrixCell {
  const marks: MatrixCell['marks'] = [];
  if (r.latestPatch) marks.push({ code: 'patch', label: 'patch', title: `newer patch: ${r.latestPatch}` });
  if (r.sameContract && isNewerMinor(r.version, r.sameContract))
    marks.push({ code: 'minor', label: 'minor', title: `newer minor in contract ${r.contract}: ${r.sameContract}` });
  if (r.newest && r.newest.contract !== r.contract)
    marks.push({
      code: 'contract',
      label: 'contract',
      title: `next contract ${r.newest.contract}: ${r.newest.version}${r.newest.coreFirst ? ' (the core provider must move first)' : ''}`,
    });
  return {
    environment,
    present: true,
    version: r.version,
    contract: r.contract,
    marks,
    details: [
      { label: 'provider', value: r.provider },
      { label: 'latest patch', value: r.latestPatch ?? 'none newer' },
      { label: 'same contract', value: r.sameContract ?? 'none newer' },
      {
        label: 'newest',
        value: r.newest
          ? `${r.newest.version} (${r.newest.contract}${r.newest.coreFirst ? ', core must move first' : ''})`
          : 'none newer',
      },
      { label: 'versions', value: describeListing(r.versions) },
    ],
  };
}

function certManagerCell(environment: string, c: CertManagerPlanRow): MatrixCell {
  const marks: MatrixCell['marks'] = [];
  if (c.latestPatch) marks.push({ code: 'patch', label: 'patch', title: `newer patch: ${c.latestPatch}` });
  if (c.newest && isNewerMinor(c.version, c.newest))
    marks.push({ code: 'minor', label: 'minor', title: `newer release: ${c.newest}` });
  return {
    environment,
    present: true,
    version: c.version,
    contract: 'no contract',
    marks,
    details: [
      { label: 'pinned by', value: c.requested === '' ? "clusterctl's default" : `certManager.version ${c.requested}` },
      { label: "clusterctl's default", value: c.clusterctlDefault },
      { label: 'latest patch', value: c.latestPatch ?? 'none newer' },
      { label: 'newest', value: c.newest ?? 'none newer' },
      { label: 'versions', value: describeListing(c.versions) },
    ],
  };
}

/** Whether `next` has a higher major.minor than `current`. */
function isNewerMinor(current: string, next: string): boolean {
  const a = parseVersion(current);
  const b = parseVersion(next);
  return a !== null && b !== null && semver.compare(`${b.major}.${b.minor}.0`, `${a.major}.${a.minor}.0`) > 0;
}

function describeListing(v: ListingProvenance): string {
  if (v.source === 'cached') return `the list saved by the last online run (${v.fetchedAt ?? 'time unknown'})`;
  if (v.source === 'unlisted') return v.note ?? 'the source cannot list its releases';
  return 'listed from the source';
}
