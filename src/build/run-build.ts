/**
 * A build run, composed from its two halves: start the render run (render/render-run.ts), stream
 * each environment's files into the write transaction (write-render-result.ts → output/), then
 * record what the next build needs to skip work — the output fingerprint (which environments'
 * files are still exactly what this build wrote) and, after a full build, the build stamp (the
 * no-op fast path, build-stamp.ts). The CLI's `build` turns flags into these options and the result
 * into messages; it decides nothing here.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { LockState } from '../lock/lock-state.js';
import type { LockFile, LockedEnvironment } from '../lock/lock-types.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import type { Failpoint } from '../output/apply-staged.js';
import {
  environmentUnchanged,
  fingerprintDigest,
  fingerprintFile,
  readFingerprint,
  takeFingerprint,
  writeFingerprint,
} from '../output/output-fingerprint.js';
import { countRecord } from '../output/unchanged-summary.js';
import type { WrittenRenderResult } from '../output/write-summary.js';
import { isGitopsFileOf } from '../gitops/layout.js';
import { packageVersion } from '../package-files.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import type { RenderOptions } from '../render/render-options.js';
import { startRender, type RenderRun } from '../render/render-run.js';
import { lockDigest, stampFile, writeStamp } from './build-stamp.js';
import { localArtifactStats, localArtifactsIntact } from './local-artifacts.js';
import { loadConfig } from '../config/load-config.js';
import { writeRenderRun, type WrittenRenderRun } from './write-render-result.js';

/** What a build run is asked: what to render, where the output goes, and what the write may do. */
export interface BuildRunOptions {
  /** The render (repoRoot, environments, lock, cache, network); `skipUnchanged` is set here. */
  render: RenderOptions;
  /** The cache folder: the output fingerprint and the build stamp live there. */
  cacheDir: string;
  /** `build --out`: write the complete output there instead; no fingerprint, no stamp. Default: the configured folders. */
  exportDir?: string;
  /** Only some environments were asked for (--env, --shard): the others are kept, and no stamp is written. */
  partial: boolean;
  /** Render every environment, even those the fingerprint confirms unchanged. Default false. */
  force?: boolean;
  /** capi-render.lock as the build starts from it. */
  previousLock: LockState;
  /** Accept removals the guard would refuse. Default false (an export always accepts: it changes no lock). */
  allowRemoval?: boolean;
  /** Test hook: called before each step of the write. */
  failpoint?: Failpoint;
  /** Sees each rendered environment (progress lines). */
  onEnvironment?: (result: EnvironmentResult) => void;
  /** May still refuse the next lock (`--frozen`); then nothing is changed. */
  beforeCommit?: (lock: LockFile) => void;
}

/** What a build run did: the render run (what it rendered and skipped) and the write. */
export interface BuildRun {
  run: RenderRun;
  written: WrittenRenderRun;
}

/**
 * Renders and writes as one build. Environments are skipped only where the output is confirmed to
 * be what the last build wrote (output-fingerprint.ts): anything edited, deleted or added by hand is
 * rendered and repaired.
 */
export async function runBuild(options: BuildRunOptions): Promise<BuildRun> {
  const repoRoot = path.resolve(options.render.repoRoot);
  const use = options.render.cache?.use;
  const fingerprintAt = fingerprintFile(options.cacheDir, repoRoot);
  // A lock whose text is not what capi-render writes (edited by hand: reformatted, a field added, an
  // entry duplicated) is rewritten by a full render; skipping would keep it, so the output would
  // depend on what the cache remembers.
  const before = options.previousLock;
  const canonicalLock = before.text === undefined || before.canonical;
  const previous =
    options.exportDir || options.force || !canonicalLock ? undefined : readFingerprint(fingerprintAt, undefined, use);
  // An environment is skipped only while its lock entry is also what the last build wrote: an entry
  // edited by hand (its CRDs, say, which the inputs hash does not cover) is rendered and repaired.
  // And only while the local release files it pins are the ones pinned (local-artifacts.ts).
  const lockedNow = new Map(before.lock.environments.map((e) => [e.name, e]));
  // Where capi-render.yaml says the local repositories are (the render reports a config that cannot be read).
  const repositories = await loadConfig(repoRoot).then(
    (c) => c.repositories,
    () => [],
  );
  const intact = localArtifactsIntact(repoRoot, before.lock, repositories);
  const run = await startRender({
    ...options.render,
    ...(previous
      ? {
          skipUnchanged: (env: string, hash: string) =>
            environmentUnchanged(previous, env, skipKey(hash, lockedNow.get(env), before.lock)) && intact(env),
        }
      : {}),
  });
  const out = options.exportDir && options.exportDir !== run.outputDir ? options.exportDir : undefined;
  const written = await writeRenderRun(run, {
    repoRoot,
    ...(out ? { outDir: out, outDirFlag: '--out', exporting: true } : {}),
    partial: options.partial,
    previousLock: before,
    // An export changes nothing the lock describes: there is nothing to guard.
    allowRemoval: Boolean(options.allowRemoval) || out !== undefined,
    ...(options.failpoint ? { failpoint: options.failpoint } : {}),
    ...(options.onEnvironment ? { onEnvironment: options.onEnvironment } : {}),
    ...(options.beforeCommit ? { beforeCommit: options.beforeCommit } : {}),
  });
  if (!out) {
    const rendered = new Set(run.rendering);
    // As the next build will read it (a written state's lock is what parsing its text gives).
    const nextLock = written.lockState.lock;
    const keys = Object.fromEntries(
      nextLock.environments
        .filter((e) => rendered.has(e.name) && e.inputs)
        .map((e) => [e.name, skipKey(e.inputs!, e, nextLock)]),
    );
    const { outDir, gitops } = written.written;
    // Only what this build checked is recorded: the environments it rendered and those the record
    // confirmed unchanged. Those a partial build left alone lose their entry (output-fingerprint.ts).
    const fingerprint = takeFingerprint({
      previous,
      outDir,
      gitopsDir: gitops.root,
      produced: written.produced,
      rendered: keys,
      confirmed: run.skipped,
      allEnvironments: run.allEnvironments,
    });
    writeFingerprint(fingerprintAt, fingerprint, use);
    const writtenText = written.lockState.text;
    if (!options.partial && run.stamp && writtenText !== undefined) {
      const records = [await countRecord(outDir), await countRecord(gitops.root)];
      const localFiles = localArtifactStats(repoRoot, nextLock, run.config.repositories);
      const stamp = {
        version: packageVersion(),
        outDir,
        gitopsDir: gitops.root,
        lock: lockDigest(writtenText),
        fingerprint: fingerprintDigest(fingerprint),
        ...run.stamp,
        records,
        localFiles,
      };
      await writeStamp(stampFile(options.cacheDir, repoRoot), stamp, use);
    }
  }
  return { run, written };
}

/**
 * What the fingerprint records per environment: its inputs hash and a digest of its whole lock
 * entry and of the artifact entries its providers use (a url or a duplicate edited in by hand is
 * not in the inputs hash either).
 */
function skipKey(inputsHash: string, entry: LockedEnvironment | undefined, lock: LockFile): string {
  const used = new Set((entry?.providers ?? []).map((p) => `${p.source}\u0000${p.version}`));
  const artifacts = lock.artifacts.filter((a) => used.has(`${a.source}\u0000${a.version}`));
  return `${inputsHash} ${createHash('sha256')
    .update(canonicalJson({ entry: entry ?? null, artifacts }))
    .digest('hex')}`;
}

/**
 * Files a build changed in environments whose inputs hash equals the lock's: the inputs did not
 * change, so whatever was written or removed there had been edited, deleted or added by hand.
 * Repository-relative, sorted.
 */
export function repairedFiles(
  run: Pick<RenderRun, 'unchangedInputs'>,
  written: WrittenRenderResult,
  repoRoot: string,
): string[] {
  const same = new Set(run.unchangedInputs);
  const shown = (root: string, rel: string) => path.relative(repoRoot, path.join(root, rel)).split(path.sep).join('/');
  const out = [...written.written, ...written.removed]
    .filter((rel) => same.has(rel.split('/')[0]!))
    .map((rel) => shown(written.outDir, rel));
  const gitops = [...written.gitops.written, ...written.gitops.removed].filter(
    (rel) => run.unchangedInputs.some((env) => isGitopsFileOf(rel, env)) && rel !== 'argocd/applicationset.yaml',
  );
  return [...out, ...gitops.map((rel) => shown(written.gitops.root, rel))].sort();
}
