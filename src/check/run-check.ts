/**
 * The non-live check, `capi-render check`'s CI gate: re-renders every environment in memory from the
 * committed inputs and lock, and compares with the committed output, GitOps files, ownership records
 * and capi-render.lock. Writes nothing; returns what differs, and the CLI decides the exit code.
 */
import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { isGitopsFileOf } from '../gitops/layout.js';
import { describeLockDifferences } from '../lock/next-lock.js';
import { missingLockState } from '../lock/lock-state.js';
import { regularOutputFolder, type RegularOutputFolder } from '../output/regular-files.js';
import type { OutputFiles } from '../plan/output-plan.js';
import type { RenderOptions } from '../render/render-options.js';
import { startRender } from '../render/render-run.js';
import { compareTrees, type FileDrift } from './compare-output.js';
import { groupByTopFolder, readFiles, readOutputFolder } from './committed-folder.js';
import { driftReport } from './drift-report.js';
import { recordDrift, scopedRecordDrift } from './record-drift.js';

/** What a check is asked: the render to compare with what is committed. */
export interface CheckRunOptions {
  /**
   * The render (repoRoot, environments, shard, the committed lock and its text, cache, network). A
   * lock entry the inputs contradict is refused here, never quietly re-resolved, and SOPS records are
   * verified: the check sets `lockContradictions` and `verifySopsRecords` itself.
   */
  render: RenderOptions;
  /** Output folders already listed (regular files only, e.g. by the CLI's gate); any other is listed here. Default: none. */
  listed?: readonly RegularOutputFolder[];
}

/** What a check found; `upToDate` when nothing differs. */
export interface CheckResult {
  upToDate: boolean;
  /** The environments rendered and compared (all, those asked for, or one shard's). */
  environments: string[];
  /** How many files the inputs render into the output and GitOps folders of those environments. */
  files: number;
  /** Files that differ, are missing or are stale (ownership records included), sorted by path from the repository root. */
  drift: FileDrift[];
  /** How capi-render.lock differs from the lock the inputs give, one change each; empty when it is current. */
  lockChanges: string[];
  /** The first line of capi-render.lock that differs, when it changed and a lock file exists. */
  lockLine?: number;
  /** Files in the output folders capi-render did not write (ignored by the check), from the repository root. */
  foreign: string[];
  /** The render's warnings. */
  warnings: Diagnostic[];
  /** The drift as errors (drift-report.ts); empty when up to date. */
  report: Diagnostic[];
}

export async function runCheck(options: CheckRunOptions): Promise<CheckResult> {
  const repoRoot = path.resolve(options.render.repoRoot);
  const listed = async (dir: string) =>
    options.listed?.find((f) => f.root === dir) ?? (await regularOutputFolder(repoRoot, dir));
  // A lock entry the inputs contradict is an error here, never quietly re-resolved (lock/lock-evidence.ts).
  const run = await startRender({ ...options.render, lockContradictions: 'refuse', verifySopsRecords: true });
  const names = run.rendering;
  const partial = names.length !== run.allEnvironments.length;
  // What belongs to no environment is checked by a full check, and by shard 1 of a sharded one.
  const unowned =
    !partial || ((options.render.shard ?? '').startsWith('1/') && (options.render.environments ?? []).length === 0);
  const isEnvironment = (top: string) => run.allEnvironments.includes(top);
  const rel = (p: string) => path.relative(repoRoot, p).split(path.sep).join('/');
  const outRel = rel(run.outputDir);
  // The committed output is read environment by environment as each is rendered, and compared
  // then, so neither side of a large fleet is held in memory at once.
  const rendered = await readOutputFolder(await listed(run.outputDir), repoRoot, { contents: false });
  const byEnvironment = groupByTopFolder(rendered.list);
  const planned = new Set<string>();
  const gitopsPlanned: OutputFiles = new Map();
  const drift: FileDrift[] = [];
  const { lock, warnings, fleetGitopsFiles } = await run.renderEach(async ({ result, files, gitopsFiles }) => {
    const env = result.environment.name;
    const committed = await readFiles(run.outputDir, byEnvironment.get(env) ?? [], repoRoot);
    drift.push(...compareTrees(files, committed, outRel, rendered.owned));
    for (const p of files.keys()) planned.add(p);
    for (const [p, text] of gitopsFiles) gitopsPlanned.set(p, text);
  });
  for (const [p, text] of fleetGitopsFiles) gitopsPlanned.set(p, text);
  if (unowned) {
    // Files of environments that no longer exist are stale too.
    const others = [...byEnvironment].filter(([env]) => !isEnvironment(env)).flatMap(([, list]) => list);
    drift.push(...compareTrees(new Map(), new Map(others.map((f) => [f, ''])), outRel, rendered.owned));
  }
  const gitops = await readOutputFolder(await listed(run.gitopsDir), repoRoot, { contents: true });
  const gitopsInScope = (p: string) =>
    gitops.owned(p) &&
    (names.some((n) => isGitopsFileOf(p, n)) || (unowned && !run.allEnvironments.some((n) => isGitopsFileOf(p, n))));
  drift.push(
    ...compareTrees(gitopsPlanned, gitops.files, rel(run.gitopsDir), gitopsInScope),
    ...(partial
      ? [
          ...scopedRecordDrift(
            planned,
            rendered,
            outRel,
            (f) => names.includes(f.split('/')[0]!) || (unowned && !isEnvironment(f.split('/')[0]!)),
          ),
          ...scopedRecordDrift(new Set(gitopsPlanned.keys()), gitops, rel(run.gitopsDir), gitopsInScope),
        ]
      : [
          ...recordDrift(planned, rendered, outRel),
          ...recordDrift(new Set(gitopsPlanned.keys()), gitops, rel(run.gitopsDir)),
        ]),
  );
  drift.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const foreign = [
    ...rendered.foreign.map((f) => `${outRel}/${f}`),
    ...gitops.foreign.map((f) => `${rel(run.gitopsDir)}/${f}`),
  ];
  const { changes: lockChanges, line: lockLine } = describeLockDifferences(
    options.render.lock ?? missingLockState(),
    lock,
  );
  return {
    upToDate: drift.length === 0 && lockChanges.length === 0,
    environments: [...names],
    files: planned.size + gitopsPlanned.size,
    drift,
    lockChanges,
    ...(lockLine !== undefined ? { lockLine } : {}),
    foreign,
    warnings,
    report: driftReport(drift, lockChanges, lockLine),
  };
}
