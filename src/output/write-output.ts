/**
 * Writes what a build produced — rendered/, the GitOps consumer folder, their ownership records and
 * capi-render.lock — as one transaction (transaction.ts): afterwards they are all old or all new.
 * Shared by `build`, `upgrade` and `merge`, so they leave the repository in exactly the same state
 * for the same output. Before anything is written:
 *   - the output folders must be safe places (config/output-location.ts);
 *   - only files capi-render wrote are replaced or removed (ownership.ts);
 *   - a build that would remove providers, CRDs or environments needs the user's say-so
 *     (removal-guard.ts).
 * Environments the build skipped as unchanged, or was not asked to render, keep their files.
 */
import path from 'node:path';
import { SpecError, UsageError } from '../errors.js';
import { writtenLockState, type LockState } from '../lock/lock-state.js';
import { LOCK_FILE, type LockFile } from '../lock/lock-types.js';
import { isGitopsFileOf } from '../gitops/layout.js';
import type { InputFolders } from '../config/output-location.js';
import type { OutputFiles } from '../plan/output-plan.js';
import type { Failpoint } from './apply-staged.js';
import { removalProblems } from './removal-guard.js';
import { unchangedSummary } from './unchanged-summary.js';
import { beginTransaction } from './transaction.js';
import type { WrittenRenderResult } from './write-summary.js';
import { displayPath } from './write-errors.js';
import { assertSafeLocations, readPreviousCrd, scanProblems, topFolder, topFolders } from './write-checks.js';
import { committedEnvironment } from '../plan/committed-output.js';
import { readRecordFileSync } from '../repository-files.js';

/** Where and how the output is written. */
export interface WriteRenderResultOptions {
  /** The repository root (the lock is written there). */
  repoRoot: string;
  /** Output folder (`--out`). Default: the configured output folder (`rendered/`). */
  outDir?: string;
  /** How the user chose `outDir`, for messages (e.g. `--out`); a bad location is then a usage error. */
  outDirFlag?: string;
  /** Only some environments were asked for (--env, --shard): the others are kept. Default false. */
  partial?: boolean;
  /** capi-render.lock as the build found it: an unchanged lock is not rewritten. */
  previousLock: LockState;
  /**
   * An export (`build --out`): `outDir` and the GitOps folder beside it get the output, and
   * capi-render.lock stays as it is; refused where either folder is the repository's own output.
   * Default false.
   */
  exporting?: boolean;
  /** Accept removals the guard would refuse (providers, CRDs, environments). Default false. */
  allowRemoval?: boolean;
  /** Test hook: called before each step of the write. */
  failpoint?: Failpoint;
}

/** A build as the writer sees it: what it will touch, then its files environment by environment. */
export interface OutputSource {
  /** Where the inputs are (no output folder may overlap them). */
  config: InputFolders;
  outputDir: string;
  gitopsDir: string;
  allEnvironments: readonly string[];
  /** Environments whose files `run` hands over. */
  rendering: readonly string[];
  skipped: readonly string[];
  /** Hands over each environment's files; then the lock and the consumer files that span environments. */
  run(
    onEnvironment: (files: OutputFiles, gitopsFiles: OutputFiles) => Promise<void>,
  ): Promise<{ lock: LockFile; fleetGitopsFiles?: OutputFiles }>;
}

/** What a write leaves: its summary, and capi-render.lock as it is now (as it was, when unchanged or exported). */
export interface WrittenOutput {
  written: WrittenRenderResult;
  lockState: LockState;
}

/** Writes `source` (see the module comment); `beforeCommit` may still refuse the lock. */
export async function writeOutput(
  source: OutputSource,
  options: WriteRenderResultOptions & { beforeCommit?: (lock: LockFile) => void },
): Promise<WrittenOutput> {
  const outDir = options.outDir ?? source.outputDir;
  // With --out, the consumer folder moves along, beside the output folder.
  const gitopsDir = options.outDir
    ? path.join(path.dirname(outDir), path.basename(source.gitopsDir))
    : source.gitopsDir;
  await assertSafeLocations(source.config, outDir, gitopsDir, options);
  if (options.exporting) refuseExportOverRepository(source, outDir, gitopsDir, options);

  const all = new Set(source.allEnvironments);
  const rendered = new Set(source.rendering);
  const previous = options.previousLock;
  const locked = new Set(previous.lock.environments.map((e) => e.name));
  const gone = options.partial
    ? []
    : [...new Set([...locked, ...(await topFolders(outDir))])].filter((n) => !all.has(n));
  // The state to write, or undefined when the lock file stays as it is: serialised once, both to
  // compare and to write (the no-render path below asks first, then the transaction asks again).
  let asked: { lock: LockFile; next: LockState | undefined } | undefined;
  const lockChangedTo = (lock: LockFile): LockState | undefined => {
    if (options.exporting) return undefined;
    if (previous.text !== undefined && lock === previous.lock) return undefined;
    if (asked?.lock !== lock) {
      const next = writtenLockState(lock);
      asked = { lock, next: previous.text !== undefined && next.text === previous.text ? undefined : next };
    }
    return asked.next;
  };
  if (rendered.size === 0 && gone.length === 0) {
    const { lock } = await source.run(async () => undefined);
    if (lockChangedTo(lock) === undefined) {
      options.beforeCommit?.(lock);
      // Only the files of the environments this build was about, not those --env left out.
      const about = new Set(source.skipped);
      const counted = {
        out: (f: string) => about.has(topFolder(f)),
        gitops: (f: string) => source.skipped.some((env) => isGitopsFileOf(f, env)),
      };
      return {
        written: await unchangedSummary(outDir, gitopsDir, [], options.partial ? counted : undefined),
        lockState: previous,
      };
    }
    return writeTransaction(
      source,
      { ...options, run: async () => ({ lock }) },
      { outDir, gitopsDir, rendered, gone, locked, lockChangedTo },
    );
  }
  return writeTransaction(
    source,
    { ...options, run: (stage) => source.run(stage) },
    { outDir, gitopsDir, rendered, gone, locked, lockChangedTo },
  );
}

/** An export may not land on the repository's own output: it would change what is committed. */
function refuseExportOverRepository(
  source: OutputSource,
  outDir: string,
  gitopsDir: string,
  options: { repoRoot: string; outDirFlag?: string },
): void {
  const flag = options.outDirFlag ?? '--out';
  for (const [folder, what] of [
    [outDir, flag],
    [gitopsDir, `the GitOps folder beside ${flag}`],
  ] as const) {
    const own = folder === source.gitopsDir ? 'gitopsDir' : folder === source.outputDir ? 'outputDir' : undefined;
    if (own) {
      throw new UsageError(
        `${what} would be ${displayPath(folder, options.repoRoot)}, the repository's own ${own}: an export never changes rendered/, gitops/ or capi-render.lock; choose a folder elsewhere (or build without ${flag})`,
      );
    }
  }
}

async function writeTransaction(
  source: OutputSource,
  options: WriteRenderResultOptions & { beforeCommit?: (lock: LockFile) => void; run: OutputSource['run'] },
  plan: {
    outDir: string;
    gitopsDir: string;
    rendered: Set<string>;
    gone: string[];
    locked: Set<string>;
    lockChangedTo: (lock: LockFile) => LockState | undefined;
  },
): Promise<WrittenOutput> {
  const { repoRoot } = options;
  const { outDir, gitopsDir, rendered, gone, locked } = plan;
  const scope = new Set([...rendered, ...gone]);
  const known = new Set([...source.allEnvironments, ...locked]);
  // Problems of the inputs come before problems of the output folders (as when the whole result was
  // rendered before writing): when a folder cannot be written, the inputs are rendered to see.
  const inputsFirst = async (e: unknown): Promise<never> => {
    if (e instanceof SpecError && !e.diagnostics.some((d) => d.code === 'busy'))
      await options.run(async () => undefined);
    throw e;
  };
  const txn = await beginTransaction(
    [
      {
        root: outDir,
        descend: (folder) => scope.has(folder),
        inScope: (rel) => scope.has(topFolder(rel)),
        adoptable: (rel) =>
          known.has(topFolder(rel)) && /^[^/]+\/(?:kustomization\.yaml|[^/]+\/[^/]+\.yaml)$/.test(rel),
      },
      {
        root: gitopsDir,
        inScope: (rel) => [...scope].some((env) => isGitopsFileOf(rel, env)),
        adoptable: (rel) => [...known].some((env) => isGitopsFileOf(rel, env)),
      },
    ],
    {
      repoRoot,
      lockFile: path.join(repoRoot, LOCK_FILE),
      ...(options.failpoint ? { failpoint: options.failpoint } : {}),
    },
  ).catch(inputsFirst);
  try {
    const [out] = txn.scans;
    const scanned = await scanProblems(txn.scans, repoRoot);
    if (scanned.length > 0) await inputsFirst(new SpecError(scanned));
    // Consumer files are few and may be shared by environments (one ApplicationSet): the last one wins, as in a collected result.
    const gitopsFiles: OutputFiles = new Map();
    const { lock, fleetGitopsFiles } = await options.run(async (files, consumer) => {
      await txn.stage(0, files);
      for (const [p, text] of consumer) gitopsFiles.set(p, text);
    });
    for (const [p, text] of fleetGitopsFiles ?? []) gitopsFiles.set(p, text);
    await txn.stage(1, gitopsFiles);
    // An environment whose output folder the user deleted together with its overlay is retired on
    // purpose; one whose output is still there would be removed by this build.
    const ownedEnvs = new Set(
      [...out!.entries.keys()].filter((f) => !out!.record || out!.record.files.has(f)).map(topFolder),
    );
    const retired = gone.filter((env) => ownedEnvs.has(env));
    if (!options.allowRemoval) {
      // What the rendered environments have committed: the files the record lists (all of them
      // without a record, as written before records existed) that are on disk.
      const committedFiles = [...out!.entries]
        .filter(([rel, type]) => type === 'file' && (!out!.record || out!.record.files.has(rel)))
        .map(([rel]) => rel);
      const read = (rel: string) =>
        readRecordFileSync(repoRoot, path.join(outDir, ...rel.split('/')), 'output', { listed: true })?.toString(
          'utf8',
        );
      const problems = removalProblems({
        committed: (env) => committedEnvironment(env, committedFiles, read),
        next: lock,
        rendered: [...rendered],
        retired,
        outputOf: (env) => displayPath(path.join(outDir, env), repoRoot),
        previousCrd: (env, name) => readPreviousCrd(committedFiles, env, name, read),
      });
      if (problems.length > 0) throw new SpecError(problems);
    }
    options.beforeCommit?.(lock);
    const nextLock = plan.lockChangedTo(lock);
    const [tree, consumer] = await txn.commit(nextLock?.text);
    // Files of skipped environments are in place too: count them from the records.
    const skippedFiles = [...(out!.record?.files ?? [])].filter((f) => source.skipped.includes(topFolder(f))).length;
    const skippedConsumer = [...(txn.scans[1]!.record?.files ?? [])].filter(
      (f) =>
        !consumer!.written.includes(f) &&
        source.skipped.some((env) => isGitopsFileOf(f, env)) &&
        ![...scope].some((env) => isGitopsFileOf(f, env)),
    ).length;
    return {
      lockState: nextLock ?? options.previousLock,
      written: {
        ...tree!,
        unchanged: tree!.unchanged + skippedFiles,
        outDir,
        gitops: { ...consumer!, unchanged: consumer!.unchanged + skippedConsumer },
        lockWritten: nextLock !== undefined,
        retired: gone.filter((env) => ownedEnvs.has(env) || locked.has(env)),
      },
    };
  } catch (e) {
    await txn.abort();
    throw e;
  }
}
