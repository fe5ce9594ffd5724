/**
 * Writes what a build produced — rendered/, the GitOps consumer folder, their ownership records and
 * capi-render.lock — as one transaction (transaction.ts): afterwards they are all old or all new.
 * Shared by `build` and `upgrade`, so both leave the repository in exactly the same state for the
 * same inputs. Before anything is written:
 *   - the output folders must be safe places (output-location.ts);
 *   - only files capi-render wrote are replaced or removed (ownership.ts);
 *   - a build that would remove providers, CRDs or environments needs the user's say-so
 *     (removal-guard.ts).
 * Environments the build skipped as unchanged, or was not asked to render, keep their files.
 */
import path from 'node:path';
import { SpecError, UsageError, error, type Diagnostic } from '../errors.js';
import { serializeLock } from '../lock/lock-file.js';
import { LOCK_FILE, type LockFile } from '../lock/lock-types.js';
import { isGitopsFileOf } from '../render/gitops-stage.js';
import type { RenderResult } from '../render/render.js';
import type { RenderRun } from '../render/render-run.js';
import type { EnvironmentResult } from '../render/render-environment.js';
import type { RenderConfig } from '../config/config-types.js';
import type { OutputFiles } from './plan.js';
import type { Failpoint } from './apply-staged.js';
import { isOutsideRepository, outputLocationProblems, type LocationProblem } from './output-location.js';
import { removalProblems } from './removal-guard.js';
import { promises as fs } from 'node:fs';
import { unchangedSummary } from './unchanged-summary.js';
import { inputLocations } from './output-location.js';
import { locateConfigSetting } from '../config/load-config.js';
import { beginTransaction, type TreeSummary } from './transaction.js';
import { displayPath } from './write-errors.js';

/** Where and how {@link writeRenderResult} writes. */
export interface WriteRenderResultOptions {
  /** The repository root (the lock is written there). */
  repoRoot: string;
  /** Output folder (`--out`). Default: the configured output folder (`rendered/`). */
  outDir?: string;
  /** How the user chose `outDir`, for messages (e.g. `--out`); a bad location is then a usage error. */
  outDirFlag?: string;
  /** Only some environments were asked for (--env, --shard): the others are kept. Default false. */
  partial?: boolean;
  /** The lock file's text before the build (undefined when there was none): an unchanged lock is not rewritten. */
  previousLockText: string | undefined;
  /** The lock the build started from (the removal guard compares with it). */
  previousLock: LockFile;
  /** Accept removals the guard would refuse (providers, CRDs, environments). Default false. */
  allowRemoval?: boolean;
  /** Test hook: called before each step of the write. */
  failpoint?: Failpoint;
}

/** What was written. `written`/`unchanged`/`removed` are about the output folder. */
export interface WrittenRenderResult extends Omit<TreeSummary, 'root'> {
  /** Absolute output folder written. */
  outDir: string;
  /** The GitOps consumer folder's part of the write. */
  gitops: TreeSummary;
  /** Whether capi-render.lock was (re)written. */
  lockWritten: boolean;
  /** Environments whose output was removed. */
  retired: string[];
}

/** Writes a collected render result: the output trees and the lock in one transaction. */
export async function writeRenderResult(result: RenderResult, options: WriteRenderResultOptions): Promise<WrittenRenderResult> {
  const replay: OutputSource = {
    config: result.config,
    outputDir: result.outputDir,
    gitopsDir: result.gitopsDir,
    allEnvironments: result.allEnvironments,
    rendering: result.environments.map((e) => e.environment.name),
    skipped: result.skipped,
    async run(onEnvironment) {
      if (result.files.size > 0 || result.gitopsFiles.size > 0) await onEnvironment(result.files, result.gitopsFiles);
      return { lock: result.lock };
    },
  };
  return (await writeOutput(replay, options)).written;
}

/** What {@link writeRenderRun} leaves: the write, and the lock and warnings of the build. */
export interface WrittenRenderRun {
  written: WrittenRenderResult;
  lock: LockFile;
  warnings: Diagnostic[];
}

/**
 * Renders and writes environment by environment (see render/render-run.ts): each environment's
 * files are staged as soon as it is rendered and then let go, so memory does not grow with the fleet;
 * the lock, the ownership records and every staged file are installed by one commit at the end, as
 * {@link writeRenderResult} does. `onEnvironment` sees each rendered environment (for progress
 * lines); `beforeCommit` may still refuse the lock (`--frozen`): then nothing is changed.
 */
export async function writeRenderRun(
  run: RenderRun,
  options: WriteRenderResultOptions & { onEnvironment?: (result: EnvironmentResult) => void; beforeCommit?: (lock: LockFile) => void },
): Promise<WrittenRenderRun> {
  let warnings: Diagnostic[] = [];
  const source: OutputSource = {
    ...run,
    run: async (stage) => {
      const done = await run.run(async (output) => {
        options.onEnvironment?.(output.result);
        await stage(output.files, output.gitopsFiles);
      });
      warnings = done.warnings;
      return done;
    },
  };
  const { written, lock } = await writeOutput(source, options);
  return { written, lock, warnings };
}

/** A build as the writer sees it: what it will touch, then its files environment by environment. */
interface OutputSource {
  config: RenderConfig;
  outputDir: string;
  gitopsDir: string;
  allEnvironments: readonly string[];
  /** Environments whose files `run` hands over. */
  rendering: readonly string[];
  skipped: readonly string[];
  run(onEnvironment: (files: OutputFiles, gitopsFiles: OutputFiles) => Promise<void>): Promise<{ lock: LockFile }>;
}

async function writeOutput(
  source: OutputSource,
  options: WriteRenderResultOptions & { beforeCommit?: (lock: LockFile) => void },
): Promise<{ written: WrittenRenderResult; lock: LockFile }> {
  const outDir = options.outDir ?? source.outputDir;
  // With --out, the consumer folder moves along, beside the output folder.
  const gitopsDir = options.outDir ? path.join(path.dirname(outDir), path.basename(source.gitopsDir)) : source.gitopsDir;
  await assertSafeLocations(source.config, outDir, gitopsDir, options);

  const all = new Set(source.allEnvironments);
  const rendered = new Set(source.rendering);
  const locked = new Set(options.previousLock.environments.map((e) => e.name));
  const gone = options.partial ? [] : [...new Set([...locked, ...(await topFolders(outDir))])].filter((n) => !all.has(n));
  const lockChangedTo = (lock: LockFile) => {
    const text = serializeLock(lock);
    return options.previousLockText !== undefined && (lock === options.previousLock || text === options.previousLockText) ? undefined : text;
  };
  if (rendered.size === 0 && gone.length === 0) {
    const { lock } = await source.run(async () => undefined);
    if (lockChangedTo(lock) === undefined) {
      options.beforeCommit?.(lock);
      return { written: await unchangedSummary(outDir, gitopsDir), lock };
    }
    return writeTransaction(source, { ...options, run: async () => ({ lock }) }, { outDir, gitopsDir, rendered, gone, locked, lockChangedTo });
  }
  return writeTransaction(source, { ...options, run: (stage) => source.run(stage) }, { outDir, gitopsDir, rendered, gone, locked, lockChangedTo });
}

async function writeTransaction(
  source: OutputSource,
  options: WriteRenderResultOptions & { beforeCommit?: (lock: LockFile) => void; run: OutputSource['run'] },
  plan: { outDir: string; gitopsDir: string; rendered: Set<string>; gone: string[]; locked: Set<string>; lockChangedTo: (lock: LockFile) => string | undefined },
): Promise<{ written: WrittenRenderResult; lock: LockFile }> {
  const { repoRoot } = options;
  const { outDir, gitopsDir, rendered, gone, locked } = plan;
  const scope = new Set([...rendered, ...gone]);
  const known = new Set([...source.allEnvironments, ...locked]);
  // Problems of the inputs come before problems of the output folders (as when the whole result was
  // rendered before writing): when a folder cannot be written, the inputs are rendered to see.
  const inputsFirst = async (e: unknown): Promise<never> => {
    if (e instanceof SpecError && !e.diagnostics.some((d) => d.code === 'busy')) await options.run(async () => undefined);
    throw e;
  };
  const txn = await beginTransaction(
    [
      {
        root: outDir,
        descend: (folder) => scope.has(folder),
        inScope: (rel) => scope.has(topFolder(rel)),
        adoptable: (rel) => known.has(topFolder(rel)) && /^[^/]+\/(?:kustomization\.yaml|[^/]+\/[^/]+\.yaml)$/.test(rel),
      },
      {
        root: gitopsDir,
        inScope: (rel) => [...scope].some((env) => isGitopsFileOf(rel, env)),
        adoptable: (rel) => [...known].some((env) => isGitopsFileOf(rel, env)),
      },
    ],
    { repoRoot, lockFile: path.join(repoRoot, LOCK_FILE), ...(options.failpoint ? { failpoint: options.failpoint } : {}) },
  ).catch(inputsFirst);
  try {
    const [out] = txn.scans;
    const scanned = await scanProblems(txn.scans, repoRoot);
    if (scanned.length > 0) await inputsFirst(new SpecError(scanned));
    // Consumer files are few and may be shared by environments (one ApplicationSet): the last one wins, as in a collected result.
    const gitopsFiles: OutputFiles = new Map();
    const { lock } = await options.run(async (files, consumer) => {
      await txn.stage(0, files);
      for (const [p, text] of consumer) gitopsFiles.set(p, text);
    });
    await txn.stage(1, gitopsFiles);
    // An environment whose output folder the user deleted together with its overlay is retired on
    // purpose; one whose output is still there would be removed by this build.
    const ownedEnvs = new Set([...out!.entries.keys()].filter((f) => !out!.record || out!.record.files.has(f)).map(topFolder));
    const retired = gone.filter((env) => ownedEnvs.has(env));
    if (!options.allowRemoval) {
      const problems = removalProblems({
        previous: options.previousLock,
        next: lock,
        rendered: [...rendered],
        retired,
        outputOf: (env) => displayPath(path.join(outDir, env), repoRoot),
        crdsOnDisk: (env) => crdsOnDisk([...out!.entries.keys()], env),
      });
      if (problems.length > 0) throw new SpecError(problems);
    }
    options.beforeCommit?.(lock);
    const lockText = plan.lockChangedTo(lock);
    const [tree, consumer] = await txn.commit(lockText);
    // Files of skipped environments are in place too: count them from the records.
    const skippedFiles = [...(out!.record?.files ?? [])].filter((f) => source.skipped.includes(topFolder(f))).length;
    const skippedConsumer = [...(txn.scans[1]!.record?.files ?? [])].filter((f) => !consumer!.written.includes(f) && source.skipped.some((env) => isGitopsFileOf(f, env)) && ![...scope].some((env) => isGitopsFileOf(f, env))).length;
    return {
      written: {
        ...tree!,
        unchanged: tree!.unchanged + skippedFiles,
        outDir,
        gitops: { ...consumer!, unchanged: consumer!.unchanged + skippedConsumer },
        lockWritten: lockText !== undefined,
        retired: gone.filter((env) => ownedEnvs.has(env) || locked.has(env)),
      },
      lock,
    };
  } catch (e) {
    await txn.abort();
    throw e;
  }
}

/** Refuses output folders that a build would damage; a flag's mistake is a usage error, the config's a spec error. */
async function assertSafeLocations(config: RenderConfig, outDir: string, gitopsDir: string, options: WriteRenderResultOptions): Promise<void> {
  const flag = options.outDirFlag;
  const folders = [
    { setting: flag ?? 'outputDir', folder: outDir },
    { setting: flag ? `the GitOps folder beside ${flag},` : 'gitopsDir', folder: gitopsDir },
  ];
  const problems = await outputLocationProblems(options.repoRoot, folders, inputLocations(options.repoRoot, config));
  if (problems.length === 0) return;
  if (flag) throw new UsageError(problems.map((p) => `${p.message}; ${p.hint}`).join('\n'));
  throw new SpecError(problems.map((p) => locationDiagnostic(p, options.repoRoot)));
}

function locationDiagnostic(p: LocationProblem, repoRoot: string): Diagnostic {
  return error('output-location', p.message, { ...locateConfigSetting(repoRoot, [p.setting]), field: p.setting, hint: p.hint });
}

/** The folders at the top of `dir` (environments, in rendered/). */
async function topFolders(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
}

/** What only a look inside the folders can tell: a `.git` inside, or a foreign folder outside the repository. */
async function scanProblems(scans: readonly { root: string; exists: boolean; entries: Map<string, unknown>; git: string[]; record?: unknown }[], repoRoot: string): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const scan of scans) {
    const shown = displayPath(scan.root, repoRoot);
    if (scan.git.length > 0) {
      out.push(error('output-location', `${shown} holds a git repository (${scan.git[0]}): capi-render does not write into folders that contain .git`, { file: shown, hint: 'choose an output folder of its own' }));
    } else if (scan.exists && scan.entries.size > 0 && !scan.record && (await isOutsideRepository(repoRoot, scan.root))) {
      out.push(
        error('output-location', `${shown} is outside the repository and holds files capi-render did not write`, {
          file: shown,
          hint: 'outside the repository capi-render writes only into an empty folder or one it wrote before (with its .capi-render-owned record)',
        }),
      );
    }
  }
  return out;
}

/** CRD names an environment's output holds on disk, from the file names capi-render gives CRDs. */
function crdsOnDisk(files: readonly string[], env: string): string[] | undefined {
  const names = files.flatMap((f) => {
    const m = /^([^/]+)\/[^/]+\/customresourcedefinition-(.+)\.yaml$/.exec(f);
    return m && m[1] === env ? [m[2]!] : [];
  });
  return names.length > 0 ? names : undefined;
}

function topFolder(rel: string): string {
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash);
}
