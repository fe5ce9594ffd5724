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
import type { Failpoint } from './apply-staged.js';
import { isOutsideRepository, outputLocationProblems, type LocationProblem } from './output-location.js';
import { removalProblems } from './removal-guard.js';
import { OWNERSHIP_FILE, parseOwnership } from './ownership.js';
import { promises as fs, readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { isJsonObject, type KubeObject } from '../manifest/object.js';
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

/** Writes the output trees and the lock in one transaction. */
export async function writeRenderResult(result: RenderResult, options: WriteRenderResultOptions): Promise<WrittenRenderResult> {
  const { repoRoot } = options;
  const outDir = options.outDir ?? result.outputDir;
  // With --out, the consumer folder moves along, beside the output folder.
  const gitopsDir = options.outDir ? path.join(path.dirname(outDir), path.basename(result.gitopsDir)) : result.gitopsDir;
  await assertSafeLocations(result, outDir, gitopsDir, options);

  const all = new Set(result.allEnvironments);
  const rendered = new Set(result.environments.map((e) => e.environment.name));
  const lockText = serializeLock(result.lock);
  const lockChanged = !(options.previousLockText !== undefined && (result.lock === options.previousLock || lockText === options.previousLockText));
  const locked = new Set(options.previousLock.environments.map((e) => e.name));
  const gone = options.partial ? [] : [...new Set([...locked, ...(await topFolders(outDir))])].filter((n) => !all.has(n));
  if (rendered.size === 0 && gone.length === 0 && !lockChanged) {
    // Nothing to write: say how much is in place, from the records (a no-op build reads nothing
    // else) — the files of the environments this build was about, not those --env left out.
    const skipped = new Set(result.skipped);
    const gitops: TreeSummary = { root: gitopsDir, written: [], unchanged: await ownedCount(gitopsDir, (f) => result.skipped.some((env) => isGitopsFileOf(f, env))), removed: [], foreign: [] };
    return { outDir, written: [], unchanged: await ownedCount(outDir, (f) => skipped.has(topFolder(f))), removed: [], foreign: [], gitops, lockWritten: false, retired: [] };
  }

  const scope = new Set([...rendered, ...gone]);
  const known = new Set([...all, ...locked]);
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
  );
  try {
    const [out] = txn.scans;
    const problems = [...(await scanProblems(txn.scans, repoRoot))];
    // An environment whose output folder the user deleted together with its overlay is retired on
    // purpose; one whose output is still there would be removed by this build.
    const ownedEnvs = new Set([...out!.entries.keys()].filter((f) => !out!.record || out!.record.files.has(f)).map(topFolder));
    const retired = gone.filter((env) => ownedEnvs.has(env));
    if (!options.allowRemoval) {
      problems.push(
        ...removalProblems({
          previous: options.previousLock,
          next: result.lock,
          rendered: [...rendered],
          retired,
          outputOf: (env) => displayPath(path.join(outDir, env), repoRoot),
          crdsOnDisk: (env) => crdsOnDisk([...out!.entries.keys()], env),
          previousCrd: (env, name) => readPreviousCrd(outDir, [...out!.entries.keys()], env, name),
        }),
      );
    }
    if (problems.length > 0) throw new SpecError(problems);
    await txn.stage(0, result.files);
    await txn.stage(1, result.gitopsFiles);
    const [tree, consumer] = await txn.commit(lockChanged ? lockText : undefined);
    // Files of skipped environments are in place too: count them from the records.
    const skippedFiles = [...(out!.record?.files ?? [])].filter((f) => result.skipped.includes(topFolder(f))).length;
    const skippedConsumer = [...(txn.scans[1]!.record?.files ?? [])].filter((f) => !consumer!.written.includes(f) && result.skipped.some((env) => isGitopsFileOf(f, env)) && ![...scope].some((env) => isGitopsFileOf(f, env))).length;
    return {
      ...tree!,
      unchanged: tree!.unchanged + skippedFiles,
      outDir,
      gitops: { ...consumer!, unchanged: consumer!.unchanged + skippedConsumer },
      lockWritten: lockChanged,
      retired: gone.filter((env) => ownedEnvs.has(env) || locked.has(env)),
    };
  } catch (e) {
    await txn.abort();
    throw e;
  }
}

/** Refuses output folders that a build would damage; a flag's mistake is a usage error, the config's a spec error. */
async function assertSafeLocations(result: RenderResult, outDir: string, gitopsDir: string, options: WriteRenderResultOptions): Promise<void> {
  const flag = options.outDirFlag;
  const folders = [
    { setting: flag ?? 'outputDir', folder: outDir },
    { setting: flag ? `the GitOps folder beside ${flag},` : 'gitopsDir', folder: gitopsDir },
  ];
  const problems = await outputLocationProblems(options.repoRoot, folders, inputLocations(options.repoRoot, result.config));
  if (problems.length === 0) return;
  if (flag) throw new UsageError(problems.map((p) => `${p.message}; ${p.hint}`).join('\n'));
  throw new SpecError(problems.map((p) => locationDiagnostic(p, options.repoRoot)));
}

function locationDiagnostic(p: LocationProblem, repoRoot: string): Diagnostic {
  return error('output-location', p.message, { ...locateConfigSetting(repoRoot, [p.setting]), field: p.setting, hint: p.hint });
}

async function ownedCount(dir: string, counted: (file: string) => boolean): Promise<number> {
  const text = await fs.readFile(path.join(dir, OWNERSHIP_FILE), 'utf8').catch(() => '');
  return [...parseOwnership(text).files].filter(counted).length;
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

/** The CRD file an environment's previous output holds for `name`, parsed; undefined when absent or unreadable. */
function readPreviousCrd(outDir: string, files: readonly string[], env: string, name: string): KubeObject | undefined {
  const file = files.find((f) => f.startsWith(`${env}/`) && f.endsWith(`/customresourcedefinition-${name}.yaml`));
  if (!file) return undefined;
  try {
    const object = jsYaml.load(readFileSync(path.join(outDir, file), 'utf8'), { schema: jsYaml.CORE_SCHEMA });
    return isJsonObject(object) && object.kind === 'CustomResourceDefinition' ? (object as KubeObject) : undefined;
  } catch {
    return undefined;
  }
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
