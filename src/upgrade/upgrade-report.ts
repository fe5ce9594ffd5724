/**
 * The object diff and safety findings between two rendered trees, with the contract changes the
 * objects cannot show taken from the two lock files. Used by `upgrade` (rendered/ before and after
 * the edit) and `diff` (a git revision against the working tree).
 */
import { diffRendered } from '../diff/diff-rendered.js';
import { safetyFindings } from '../diff/safety-findings.js';
import type { ContractChange, Finding, FindingCode, ObjectChange, VariableUseChange } from '../diff/types.js';
import type { VersionMove } from '../diff/summary-table.js';
import type { LockFile } from '../lock/lock-types.js';
import { isProviderKind, manifestLabel } from '../declarations/provider-kinds.js';
import type { FileTree } from './git-rendered.js';
import { renderedSide } from './rendered-side.js';

/** The object changes and safety findings of one comparison, both sorted as src/diff sorts them. */
export interface UpgradeReport {
  changes: ObjectChange[];
  findings: Finding[];
}

/**
 * Findings that mean objects may still be stored in a CRD version the new output drops or stops
 * serving: `upgrade` refuses them without `--confirm-storage-migration`.
 */
export const STORAGE_MIGRATION_CODES: readonly FindingCode[] = ['crd-version-removed', 'crd-version-unserved'];

/** The report for `before` → `after` (trees relative to the output folder; `where` names it in messages). */
export function compareRendered(
  before: { files: FileTree; lock: LockFile },
  after: { files: FileTree; lock: LockFile },
  options: { where: string; environments?: readonly string[] },
): UpgradeReport {
  const a = renderedSide(before.files, options.where, options.environments);
  const b = renderedSide(after.files, options.where, options.environments);
  const contracts = contractChanges(before.lock, after.lock, options.environments);
  const variables = variableUseChanges(before.lock, after.lock, options.environments);
  return { changes: diffRendered(a, b), findings: safetyFindings(a, b, { contracts, variables }) };
}

/** The findings that need a storage-migration decision. */
export function storageMigrationFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => STORAGE_MIGRATION_CODES.includes(f.code));
}

/**
 * Per environment and provider of the `after` lock: the contract and version before (absent for a
 * provider new in the environment) and after (component = manifest label), with the core's.
 */
export function contractChanges(before: LockFile, after: LockFile, environments?: readonly string[]): ContractChange[] {
  const out: ContractChange[] = [];
  for (const env of after.environments) {
    if (environments && environments.length > 0 && !environments.includes(env.name)) continue;
    const old = before.environments.find((e) => e.name === env.name);
    const core = env.providers.find((p) => p.provider.startsWith('CoreProvider/'));
    const coreWas = core && old?.providers.find((x) => x.provider === core.provider);
    for (const p of env.providers) {
      if (p.provider === 'cert-manager') continue;
      const was = old?.providers.find((x) => x.provider === p.provider);
      const change: ContractChange = {
        env: env.name,
        provider: labelOf(p.provider),
        ...(was?.contract ? { before: was.contract } : {}),
        ...(p.contract ? { after: p.contract } : {}),
        ...(was ? { from: was.version } : {}),
        to: p.version,
      };
      if (core && core !== p)
        change.core = {
          provider: labelOf(core.provider),
          ...(coreWas?.contract ? { before: coreWas.contract } : {}),
          ...(core.contract ? { after: core.contract } : {}),
        };
      out.push(change);
    }
  }
  return out.sort((x, y) =>
    x.env < y.env ? -1 : x.env > y.env ? 1 : x.provider < y.provider ? -1 : x.provider > y.provider ? 1 : 0,
  );
}

/**
 * Per environment and provider whose locked version differs between the locks: the variables it read
 * a value for on each side (the lock's names), when those differ.
 */
export function variableUseChanges(
  before: LockFile,
  after: LockFile,
  environments?: readonly string[],
): VariableUseChange[] {
  const out: VariableUseChange[] = [];
  for (const env of after.environments) {
    if (environments && environments.length > 0 && !environments.includes(env.name)) continue;
    const old = before.environments.find((e) => e.name === env.name);
    for (const p of env.providers) {
      const was = old?.providers.find((x) => x.provider === p.provider);
      if (!was || was.version === p.version) continue;
      const a = [...was.variables].sort();
      const b = [...p.variables].sort();
      if (a.join('\n') === b.join('\n')) continue;
      out.push({ env: env.name, provider: labelOf(p.provider), from: was.version, to: p.version, before: a, after: b });
    }
  }
  return out;
}

/** A provider (or cert-manager) whose locked version differs between two locks: the summary table's move. */
export type VersionChange = VersionMove;

/** Every locked version that differs from `before` to `after`, per environment (sorted by environment, then component). */
export function versionChanges(before: LockFile, after: LockFile, environments?: readonly string[]): VersionChange[] {
  return lockedVersions(before, after, environments).filter((v) => v.from !== v.to);
}

/**
 * Every provider (and cert-manager) either lock has, with its version on each side — the same ones
 * included (`from` equal to `to`) — per environment, sorted by environment, then component.
 */
export function lockedVersions(before: LockFile, after: LockFile, environments?: readonly string[]): VersionChange[] {
  const out: VersionChange[] = [];
  const names = new Set([...before.environments, ...after.environments].map((e) => e.name));
  for (const env of names) {
    if (environments && environments.length > 0 && !environments.includes(env)) continue;
    const old = before.environments.find((e) => e.name === env)?.providers ?? [];
    const now = after.environments.find((e) => e.name === env)?.providers ?? [];
    for (const provider of new Set([...old, ...now].map((p) => p.provider))) {
      const was = old.find((p) => p.provider === provider);
      const is = now.find((p) => p.provider === provider);
      out.push({
        env,
        component: labelOf(provider),
        ...(was ? { from: was.version, ...(was.contract ? { fromContract: was.contract } : {}) } : {}),
        ...(is ? { to: is.version, ...(is.contract ? { toContract: is.contract } : {}) } : {}),
      });
    }
  }
  return out.sort((x, y) =>
    x.env < y.env ? -1 : x.env > y.env ? 1 : x.component < y.component ? -1 : x.component > y.component ? 1 : 0,
  );
}

/** `CoreProvider/capi-system/cluster-api` → `cluster-api`, the component folder the finding belongs to. */
function labelOf(ref: string): string {
  const [kind, , name] = ref.split('/');
  return kind && name && isProviderKind(kind) ? manifestLabel(kind, name) : ref;
}
