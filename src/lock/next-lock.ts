/**
 * Computes the lock a build leaves behind, and what changed against the previous one (for
 * `--frozen` and `check`). Environments that were not rendered this time keep their entries, and
 * the artifacts those entries use; environments that no longer exist are dropped.
 */
import type { LockFile, LockedArtifact, LockedEnvironment, LockedProvider } from './lock-types.js';
import { LOCK_API_VERSION } from './lock-types.js';
import { artifactKey, serializeLock } from './lock-file.js';

export interface RenderedLockEntries {
  environment: string;
  inputs?: string;
  providers: LockedProvider[];
  artifacts: LockedArtifact[];
}

export function nextLock(previous: LockFile, rendered: readonly RenderedLockEntries[], allEnvironments: readonly string[]): LockFile {
  // Nothing rendered and no environment gone: the lock stays as it is (the same object).
  if (rendered.length === 0 && previous.environments.every((e) => allEnvironments.includes(e.name))) return previous;
  const renderedNames = new Set(rendered.map((r) => r.environment));
  const kept = previous.environments.filter((e) => !renderedNames.has(e.name) && allEnvironments.includes(e.name));
  const environments: LockedEnvironment[] = [...kept, ...rendered.map((r) => ({ name: r.environment, ...(r.inputs ? { inputs: r.inputs } : {}), providers: r.providers }))];
  const used = new Set<string>();
  for (const e of kept) for (const p of e.providers) used.add(`${p.source}\u0000${p.version}`);
  const artifacts = new Map<string, LockedArtifact>();
  for (const a of previous.artifacts) if (used.has(`${a.source}\u0000${a.version}`)) artifacts.set(artifactKey(a.source, a.version, a.file), a);
  for (const r of rendered) for (const a of r.artifacts) artifacts.set(artifactKey(a.source, a.version, a.file), a);
  return { apiVersion: LOCK_API_VERSION, kind: 'Lock', environments, artifacts: [...artifacts.values()] };
}

/** Human-readable differences between two locks (empty when they serialise identically). */
export function describeLockChanges(before: LockFile, after: LockFile): string[] {
  if (before === after || serializeLock(before) === serializeLock(after)) return [];
  const out: string[] = [];
  const envs = new Set([...before.environments.map((e) => e.name), ...after.environments.map((e) => e.name)]);
  for (const env of [...envs].sort()) {
    const b = before.environments.find((e) => e.name === env);
    const a = after.environments.find((e) => e.name === env);
    if (!b) {
      out.push(`environment ${env} is new`);
      continue;
    }
    if (!a) {
      out.push(`environment ${env} is gone`);
      continue;
    }
    const names = new Set([...b.providers.map((p) => p.provider), ...a.providers.map((p) => p.provider)]);
    for (const name of [...names].sort()) {
      const pb = b.providers.find((p) => p.provider === name);
      const pa = a.providers.find((p) => p.provider === name);
      if (!pb) out.push(`${env}: ${name} added at ${pa!.version}`);
      else if (!pa) out.push(`${env}: ${name} removed (was ${pb.version})`);
      else if (pb.version !== pa.version) out.push(`${env}: ${name} ${pb.version} → ${pa.version}`);
      else if (JSON.stringify(pb) !== JSON.stringify(pa)) out.push(`${env}: ${name} entry changed (source, requested version, contract or variables)`);
    }
    if (b.inputs !== a.inputs) out.push(`${env}: inputs changed (its overlays, bases, capi-render.yaml, templates or the capi-render version)`);
  }
  const key = (x: LockedArtifact) => artifactKey(x.source, x.version, x.file);
  const beforeArtifacts = new Map(before.artifacts.map((x) => [key(x), x]));
  for (const x of after.artifacts) {
    const old = beforeArtifacts.get(key(x));
    if (old && old.sha256 !== x.sha256) out.push(`artifact ${x.file} of ${x.source} ${x.version}: sha256 ${old.sha256.slice(0, 12)}… → ${x.sha256.slice(0, 12)}…`);
  }
  if (out.length === 0) out.push('artifact list changed');
  return out;
}
