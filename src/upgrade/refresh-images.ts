/**
 * `capi-render upgrade --images`: re-resolve the pinned images of the chosen environments — the one
 * way a moved tag reaches the output — as a reviewed change: render again asking the registries,
 * compare with rendered/ on disk (object diff and safety findings), then write rendered/ and the lock
 * with the build's own write path. Digests are shared by every environment that runs the image, so
 * an image re-pinned for one environment moves in every environment that uses it.
 */
import path from 'node:path';
import { lockChanges } from '../lock/next-lock.js';
import type { LockFile } from '../lock/lock-types.js';
import { missingLockState, writtenLockState } from '../lock/lock-state.js';
import { unknownEnvironments } from '../overlay/discover-environments.js';
import { writeRenderRun, type WrittenRenderResult } from '../build/write-render-result.js';
import { render } from '../render/render.js';
import { startRender } from '../render/render-run.js';
import type { RenderOptions } from '../render/render-options.js';
import { lockKeyOf, type EnvironmentResult } from '../render/environment-result.js';
import { readTreeFromDisk } from './git-rendered.js';
import { compareRendered, type UpgradeReport } from './upgrade-report.js';
import type { Diagnostic } from '../errors.js';

/** An image whose tag moved: the digest locked before, the one pinned now, and the environments that run it. */
export interface MovedImage {
  image: string;
  before: string;
  after: string;
  environments: string[];
}

export interface ImageRefreshOutcome {
  /** Images whose digest changed, sorted by image. */
  moved: MovedImage[];
  report: UpgradeReport;
  written: WrittenRenderResult;
  changedPaths: string[];
  lockBefore: LockFile;
  lockAfter: LockFile;
  warnings: Diagnostic[];
}

export async function refreshPinnedImages(options: {
  render: RenderOptions;
  /** Environments whose images are re-resolved; empty: all. */
  environments: readonly string[];
  allowRemoval?: boolean;
}): Promise<ImageRefreshOutcome> {
  const renderOptions: RenderOptions = { ...options.render, environments: [], shard: undefined };
  const repoRoot = path.resolve(renderOptions.repoRoot);
  // capi-render.lock as read: what the write compares with.
  const previous = renderOptions.lock ?? missingLockState();
  const lockBefore = previous.lock;
  const known = [...new Set(lockBefore.environments.map((e) => e.name))];
  const selected = options.environments.length > 0 ? options.environments : known;
  const current = await render({ ...renderOptions, environments: [] });
  const unknown = options.environments.filter((e) => !current.allEnvironments.includes(e));
  if (unknown.length > 0) throw unknownEnvironments(unknown, current.allEnvironments);
  const chosen = new Set(
    current.environments
      .filter((e) => selected.includes(e.environment.name))
      .flatMap((e) => e.pinnedImages.map(([image]) => lockKeyOf(e, image))),
  );
  const run = await startRender({
    ...renderOptions,
    lock: writtenLockState(current.lock),
    refreshImages: (image) => chosen.has(image),
  });
  const outRel = path.relative(repoRoot, run.outputDir).split(path.sep).join('/') || '.';
  const onDisk = await readTreeFromDisk(run.outputDir);
  // The new output is compared as it streams into the write (the report is part of the outcome).
  let report: UpgradeReport = { changes: [], findings: [] };
  const environments: EnvironmentResult[] = [];
  const { written, lockState: after } = await writeRenderRun(run, {
    repoRoot,
    previousLock: previous,
    allowRemoval: options.allowRemoval ?? false,
    onEnvironment: (result) => environments.push(result),
    review: (collected) => {
      report = compareRendered(
        { files: onDisk, lock: lockBefore },
        { files: collected.files, lock: collected.lock },
        { where: outRel },
      );
    },
  });
  const users = (key: string) =>
    environments.filter((e) => e.pinnedImages.some(([i]) => lockKeyOf(e, i) === key)).map((e) => e.environment.name);
  const moved = lockChanges(lockBefore, after.lock)
    .flatMap((c) =>
      c.kind === 'image-digest'
        ? [{ image: c.image, before: c.before, after: c.after, environments: users(c.image) }]
        : [],
    )
    .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
  const gitopsRel = path.relative(repoRoot, written.gitops.root).split(path.sep).join('/') || '.';
  const changedPaths = [
    ...(written.lockWritten ? ['capi-render.lock'] : []),
    ...(written.written.length + written.removed.length > 0 ? [outRel] : []),
    ...(written.gitops.written.length + written.gitops.removed.length > 0 ? [gitopsRel] : []),
  ];
  return { moved, report, written, changedPaths, lockBefore, lockAfter: after.lock, warnings: current.warnings };
}
