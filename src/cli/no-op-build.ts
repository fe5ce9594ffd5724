/**
 * The no-op rebuild: `capi-render build` when a build stamp (build/build-stamp.ts) says nothing
 * changed. It is its own small bundle (dist/bin/no-op-build.js) that the launcher tries before loading the
 * CLI: on Node 20 (no compile cache) compiling the whole CLI takes longer than checking the stamp.
 * Anything it is not sure about — another command or flag, an interrupted write, no stamp or one that
 * does not match — it leaves to the full CLI, which runs the same check (build.ts) and then builds.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCacheUse, type CacheUse } from '../cache/cache-use.js';
import { LOCK_FILE } from '../lock/lock-types.js';
import { readRecordFile } from '../repository-files.js';
import { WORK_DIR } from '../output/scan-output-folder.js';
import { confirmedSummary } from '../output/unchanged-summary.js';
import { matchingStamp } from '../build/build-stamp.js';
import { cacheSettings } from './cache-settings.js';
import { splitCommandLine } from './global-options.js';
import { useColor, type CliIo } from './io.js';
import { reportWrite, summarizeNames } from './report-write.js';

/** Where a stamped no-op looks. */
export interface NoopContext {
  io: CliIo;
  repoRoot: string;
  cacheDir: string;
  lockText: string | undefined;
  use?: CacheUse;
  color: boolean;
}

/** Reports a stamped no-op and returns true, or returns false (nothing printed) when the build must run. */
export async function reportStampedNoop(ctx: NoopContext): Promise<boolean> {
  const stamp = await matchingStamp(ctx.cacheDir, ctx.repoRoot, ctx.lockText, ctx.use);
  if (!stamp) return false;
  ctx.io.stderr.write(
    `unchanged since the last build (inputs hash in capi-render.lock): ${summarizeNames(stamp.environments)}\n`,
  );
  reportWrite(ctx, await confirmedSummary(stamp.outDir, stamp.gitopsDir, stamp.records ?? [], stamp.confirmedRecords));
  return true;
}

/** Flags a no-op build may carry; anything else (an export with --out, --force) goes to the full CLI. */
const OPTIONS = {
  repo: { type: 'string' },
  'cache-dir': { type: 'string' },
  offline: { type: 'boolean' },
  frozen: { type: 'boolean' },
  'allow-removal': { type: 'boolean' },
  'allow-downgrade': { type: 'boolean' },
} as const;

/** The launcher's try: an exit code when `argv` is a stamped no-op build, else undefined. */
export async function tryNoopBuild(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  // `capi-render --repo DIR build` is the same build as `capi-render build --repo DIR`.
  const { name, rest } = splitCommandLine(argv);
  if (name !== 'build') return undefined;
  try {
    const { values, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
    if (positionals.length > 0) return undefined;
    const repoRoot = path.resolve(io.cwd, values.repo ?? '.');
    if (!statSync(repoRoot, { throwIfNoEntry: false })?.isDirectory() || existsSync(path.join(repoRoot, WORK_DIR)))
      return undefined;
    // The lock is a record: read as `check` reads it (a link, a FIFO, a device or an oversized file is
    // refused before a byte is read); a refusal goes to the full CLI below, which reports it.
    const lockText = (await readRecordFile(repoRoot, path.join(repoRoot, LOCK_FILE), 'lock'))?.toString('utf8');
    if (lockText === undefined) return undefined;
    const { dir } = cacheSettings({ io, values });
    return (await reportStampedNoop({
      io,
      repoRoot,
      cacheDir: dir,
      lockText,
      use: createCacheUse(),
      color: useColor(io),
    }))
      ? 0
      : undefined;
  } catch {
    // Whatever went wrong, the full CLI says it properly.
    return undefined;
  }
}
