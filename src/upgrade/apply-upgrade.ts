/**
 * `capi-render upgrade` as a library call, in this order:
 * 1. render the current inputs and plan every environment (versions and newest metadata);
 * 2. choose each provider's target version and check clusterctl's upgrade rules;
 * 3. find the file and bytes that set each target's spec.version and group them (a shared site is
 *    edited only when everything it feeds moves the same way);
 * 4. write the edited input files, render again, and compare the new output with rendered/ on disk
 *    (object diff + safety findings, contract changes from the two locks);
 * 5. refuse — putting the input files back — when a CRD version that may still be stored is
 *    removed or unserved and the caller did not confirm the storage migration;
 * 6. otherwise write rendered/ and capi-render.lock with the build's own write path.
 * Steps 4–6 are one streamed run: the comparison sees the new output once it is all staged, and a
 * refusal leaves rendered/ and the lock as they were.
 * A failure after step 4 started restores the input files as they were.
 */
import path from 'node:path';
import { replaceFileDurably } from '../durable-replace.js';
import { readInputFile } from '../repository-files.js';
import { SpecError, error, peerWording, throwIfErrors, type Diagnostic } from '../errors.js';
import { unknownEnvironments } from '../overlay/discover-environments.js';
import type { Finding } from '../diff/types.js';
import type { LockFile } from '../lock/lock-types.js';
import { missingLockState, writtenLockState } from '../lock/lock-state.js';
import { writeRenderRun, type WrittenRenderResult } from '../build/write-render-result.js';
import { startRender } from '../render/render-run.js';
import type { RenderOptions } from '../render/render-options.js';
import { applyVersionEdits } from './edit-version.js';
import { readTreeFromDisk } from './git-rendered.js';
import { groupEdits } from './group-edits.js';
import { locateVersionSites } from './locate-version.js';
import { planRepository, SUPPORTED_CONTRACTS } from './plan-repository.js';
import { matchesProvider, selectTargets, type TargetSelection, type UpgradeTarget } from './select-targets.js';
import { compareRendered, storageMigrationFindings, type UpgradeReport } from './upgrade-report.js';

/** Inputs of {@link applyUpgrade}. */
export interface ApplyUpgradeOptions {
  /** How to render (repository, lock, cache, offline, token); `environments` is ignored: every environment is rendered. */
  render: RenderOptions;
  /** Environments whose providers move; empty: all. */
  environments: readonly string[];
  selection: TargetSelection;
  /** Proceed although a CRD version that may still be stored is removed or unserved. Default: false. */
  confirmStorageMigration?: boolean;
  /** Accept removed providers, CRDs or environments (the build's --allow-removal). Default: false. */
  allowRemoval?: boolean;
}

/** One edited input file. */
export interface EditedFile {
  file: string;
  /** One entry per changed scalar (or inserted line): what it was, what it is, what it moves. */
  edits: { line: number; what: string; from: string; to: string; targets: UpgradeTarget[] }[];
}

/** What an upgrade did (or would have done, when refused). */
export interface UpgradeOutcome {
  targets: UpgradeTarget[];
  skipped: { environment: string; provider: string; reason: string }[];
  edited: EditedFile[];
  report: UpgradeReport;
  /** Set when the upgrade was refused for a storage migration (nothing was written). */
  refused?: Finding[];
  /** Set when files were written. */
  written?: WrittenRenderResult;
  /** Repository-relative paths the upgrade changed: edited inputs, the lock, the output folder. */
  changedPaths: string[];
  /** The lock before and after (after = before when nothing was written). */
  lockBefore: LockFile;
  lockAfter: LockFile;
  /** Warnings of the render of the current inputs. */
  warnings: Diagnostic[];
}

/**
 * Runs the steps in the module comment. Throws SpecError `upgrade` (every rule violation and every
 * uneditable or shared site at once) before touching a file; returns `refused` instead of writing
 * when a storage migration needs confirming. Without targets nothing is read beyond the plan.
 */
export async function applyUpgrade(options: ApplyUpgradeOptions): Promise<UpgradeOutcome> {
  const renderOptions: RenderOptions = { ...options.render, environments: [], shard: undefined };
  const repoRoot = path.resolve(renderOptions.repoRoot);
  const planned = await planRepository(renderOptions);
  const { current } = planned;
  const lockBefore = current.lock;
  const unknown = options.environments.filter((e) => !current.allEnvironments.includes(e));
  if (unknown.length > 0) throw unknownEnvironments(unknown, current.allEnvironments);
  const selected = options.environments.length > 0 ? options.environments : current.allEnvironments;
  const considered = planned.providers.filter((e) => selected.includes(e.environment)).flatMap((e) => e.providers);
  const unmatched = options.selection.providers.filter((m) => !considered.some((p) => matchesProvider(p, m)));
  if (unmatched.length > 0) {
    const known = [...new Set(considered.map((p) => `${p.label} (${p.kind}/${p.name})`))].join(', ');
    // clusterctl's upgrader.go words it for one provider (its grammar kept: users search for it).
    const phrase = `unable to perform upgrade: the provider ${unmatched[0]} in not part of the management cluster`;
    throw new SpecError(
      error(
        'upgrade',
        peerWording(
          'clusterctl',
          phrase,
          `--provider ${unmatched.join(', ')} matches no provider of ${selected.join(', ')}`,
        ),
        { hint: `providers: ${known}` },
      ),
    );
  }

  const problems: Diagnostic[] = [];
  const targets: UpgradeTarget[] = [];
  const skipped: UpgradeOutcome['skipped'] = [];
  for (const env of planned.providers.filter((e) => selected.includes(e.environment))) {
    const plan = planned.plans.find((p) => p.environment === env.environment)!;
    const chosen = selectTargets(env, plan, options.selection, SUPPORTED_CONTRACTS);
    problems.push(...chosen.problems);
    targets.push(...chosen.targets);
    skipped.push(...chosen.skipped.map((s) => ({ environment: env.environment, ...s })));
  }
  throwIfErrors(problems);
  const nothing: UpgradeOutcome = {
    targets,
    skipped,
    edited: [],
    report: { changes: [], findings: [] },
    changedPaths: [],
    lockBefore,
    lockAfter: lockBefore,
    warnings: current.warnings,
  };
  if (targets.length === 0) return nothing;

  const sites = await locateVersionSites(repoRoot, current.allEnvironments);
  const versions = new Map(
    current.environments.map((e) => [
      e.environment.name,
      new Map(e.providers.map((p) => [`${p.cr.kind}/${p.cr.namespace}/${p.cr.name}`, p.version])),
    ]),
  );
  const grouped = groupEdits(targets, sites, versions);
  throwIfErrors(grouped.problems);

  // Real path → original text: an input reached through a link inside the repository is edited
  // where it really is, so the link stays a link.
  const originals = new Map<string, string>();
  const edited: EditedFile[] = [];
  const linkTargets: string[] = [];
  const restore = async () => {
    for (const [real, text] of originals) await replaceFileDurably(path.join(repoRoot, real), text);
  };
  try {
    for (const [file, edits] of grouped.files) {
      const read = await readInputFile(repoRoot, file);
      if (!read) throw new SpecError(error('upgrade', `${file} was removed while the upgrade ran`, { file }));
      const text = read.bytes.toString('utf8');
      originals.set(read.real, text);
      if (read.real !== file) linkTargets.push(read.real);
      await replaceFileDurably(path.join(repoRoot, read.real), applyVersionEdits(text, edits));
      edited.push({
        file,
        edits: edits.map((e) => ({
          line: e.site.line,
          what: e.site.what,
          from: e.edit.type === 'replace' ? e.edit.current : '',
          to: e.version,
          targets: e.targets,
        })),
      });
    }
    const run = await startRender({ ...renderOptions, lock: writtenLockState(lockBefore) });
    const outRel = path.relative(repoRoot, run.outputDir).split(path.sep).join('/') || '.';
    const onDisk = await readTreeFromDisk(run.outputDir);
    // The new output is compared while it streams into the write, before anything is committed.
    const reviewed: { report: UpgradeReport; lock: LockFile } = { report: nothing.report, lock: lockBefore };
    let written: WrittenRenderResult;
    try {
      ({ written } = await writeRenderRun(run, {
        repoRoot,
        // capi-render.lock as read, as for a build: the write compares with the file, not with the render above.
        previousLock: options.render.lock ?? missingLockState(),
        allowRemoval: options.allowRemoval ?? false,
        review: (next) => {
          reviewed.report = compareRendered(
            { files: onDisk, lock: lockBefore },
            { files: next.files, lock: next.lock },
            { where: outRel },
          );
          reviewed.lock = next.lock;
          const dangerous = storageMigrationFindings(reviewed.report.findings);
          if (dangerous.length > 0 && !options.confirmStorageMigration) throw new StorageMigrationRefused(dangerous);
        },
      }));
    } catch (e) {
      if (!(e instanceof StorageMigrationRefused)) throw e;
      await restore();
      return { ...nothing, edited, report: reviewed.report, refused: e.findings };
    }
    const { report } = reviewed;
    const gitopsRel = path.relative(repoRoot, written.gitops.root).split(path.sep).join('/') || '.';
    const changedPaths = [
      ...edited.map((e) => e.file),
      // A file edited through a link changed where the link points: that is what git commits.
      ...linkTargets,
      ...(written.lockWritten ? ['capi-render.lock'] : []),
      ...(written.written.length + written.removed.length > 0 ? [outRel] : []),
      ...(written.gitops.written.length + written.gitops.removed.length > 0 ? [gitopsRel] : []),
    ];
    return {
      targets,
      skipped,
      edited,
      report,
      written,
      changedPaths,
      lockBefore,
      lockAfter: reviewed.lock,
      warnings: current.warnings,
    };
  } catch (e) {
    await restore();
    throw e;
  }
}

/** The review's refusal: thrown inside the write so that nothing is committed, caught by applyUpgrade. */
class StorageMigrationRefused extends Error {
  constructor(readonly findings: Finding[]) {
    super('a storage migration needs confirming');
  }
}
