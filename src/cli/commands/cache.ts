/**
 * `capi-render cache info` and `capi-render cache prune [--max-size S]`: what the cache folder
 * holds, and trimming it to a size (least recently used entries first). Only capi-render's own
 * entries are counted or removed (cache/cache-entries.ts), links are never followed, and a folder
 * that is the file system root, the home folder, the repository or a git working tree is refused.
 */
import { UsageError, type WriteError } from '../../errors.js';
import { listCacheEntries, type CacheEntry, type CacheEntryKind } from '../../cache/cache-entries.js';
import { formatSize, parseSize } from '../../cache/cache-size.js';
import { cacheLocationProblem, pruneCache } from '../../cache/prune-cache.js';
import { writeError } from '../../output/write-errors.js';
import { CACHE_MAX_SIZE_VARIABLE, cacheSettings, type CacheSettings } from '../cache-settings.js';
import { defineCommand, type CommandContext } from '../command.js';
import { defineOptions, isOneOf, type OptionValues } from '../options.js';
import { formatDiagnostics } from '../format.js';
import { didYouMean } from '../../declarations/schema/suggest-field.js';

const ACTIONS = ['info', 'prune'] as const;

const CACHE_OPTIONS = defineOptions({
  'max-size': { type: 'string', value: 'S', help: 'the size to prune to: 512M, 2G, 0 (everything), or bytes' },
  'cache-dir': {
    type: 'string',
    value: 'DIR',
    help: 'the cache folder (default $CAPI_RENDER_CACHE_DIR, $XDG_CACHE_HOME/capi-render or ~/.cache/capi-render)',
  },
  json: { type: 'boolean', help: 'print the result as JSON' },
});

type CacheContext = CommandContext<OptionValues<typeof CACHE_OPTIONS>>;

export const cacheCommand = defineCommand({
  name: 'cache',
  summary: 'show what the cache folder holds (info), or trim it to a size, least recently used first (prune)',
  synopsis: '(info | prune [--max-size S]) [--cache-dir DIR] [--json]',
  arguments: {
    fixed: true,
    help: {
      info: 'size, entries by kind, oldest and newest use, and the limit',
      prune: `remove least recently used entries until the folder is within --max-size (default $${CACHE_MAX_SIZE_VARIABLE}, else 512M)`,
    } satisfies Record<(typeof ACTIONS)[number], string>,
  },
  options: CACHE_OPTIONS,
  async run(ctx) {
    const [action, ...extra] = ctx.positionals;
    if (action === undefined || !isOneOf(ACTIONS, action) || extra.length > 0) {
      throw new UsageError(
        `say what to do: capi-render cache info, or capi-render cache prune [--max-size S]${action && !isOneOf(ACTIONS, action) ? ` (not "${action}"${didYouMean(action, ACTIONS)})` : ''}`,
      );
    }
    if (action === 'info' && ctx.values['max-size'] !== undefined)
      throw new UsageError('--max-size is for cache prune');
    const settings = cacheSettings(ctx);
    const problem = await cacheLocationProblem(settings.dir, { repoRoot: ctx.repoRoot, home: ctx.io.env.HOME });
    if (problem) {
      throw new UsageError(
        `the cache folder ${settings.dir} (${settings.chosenBy}) ${problem}; capi-render keeps its cache in a folder of its own: choose one with --cache-dir or $CAPI_RENDER_CACHE_DIR`,
      );
    }
    return action === 'info' ? info(ctx, settings) : prune(ctx, settings);
  },
});

async function info(ctx: CacheContext, settings: CacheSettings): Promise<number> {
  const entries = await listCacheEntries(settings.dir);
  const summary = summarize(entries);
  if (ctx.values.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ folder: settings.dir, maxBytes: settings.maxBytes, ...summary }, null, 2)}\n`,
    );
    return 0;
  }
  const lines = [
    `cache folder ${settings.dir} (${settings.chosenBy})`,
    `  size     ${formatSize(summary.bytes)} of ${formatSize(settings.maxBytes)} (${CACHE_MAX_SIZE_VARIABLE})`,
  ];
  lines.push(`  entries  ${summary.entries}${summary.entries > 0 ? `: ${describeKinds(summary.kinds)}` : ''}`);
  if (summary.oldest && summary.newest)
    lines.push(`  used     least recently ${summary.oldest}, most recently ${summary.newest}`);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

async function prune(ctx: CacheContext, settings: CacheSettings): Promise<number> {
  const text = ctx.values['max-size'];
  const maxBytes = text === undefined ? settings.maxBytes : parseSize(text);
  if (maxBytes === undefined)
    throw new UsageError(`--max-size ${text} is not a size; write it like 512M, 2G, 0 or 1048576 (bytes)`);
  const result = await pruneCache(settings.dir, { maxBytes });
  const removed = summarize(result.removed);
  const left = summarize(result.entries);
  if (ctx.values.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ folder: settings.dir, maxBytes, removed: { entries: removed.entries, bytes: removed.bytes }, left, failed: result.failed.map((f) => ({ file: f.entry.file, code: f.error.code })) }, null, 2)}\n`,
    );
  } else {
    ctx.io.stdout.write(
      `removed ${removed.entries} entr${removed.entries === 1 ? 'y' : 'ies'} (${formatSize(removed.bytes)}); ${left.entries} left (${formatSize(left.bytes)}, limit ${formatSize(maxBytes)})\n`,
    );
  }
  if (result.failed.length === 0) return 0;
  const errors = result.failed.map(
    (f) => (writeError(f.error, 'remove', f.entry.file, ctx.repoRoot) as WriteError).diagnostics[0]!,
  );
  ctx.io.stderr.write(formatDiagnostics(errors, { color: ctx.color }));
  return 1;
}

interface Summary {
  entries: number;
  bytes: number;
  /** ISO-8601 UTC times of the least and most recent use. */
  oldest?: string;
  newest?: string;
  kinds: Partial<Record<CacheEntryKind, { entries: number; bytes: number }>>;
}

function summarize(entries: readonly CacheEntry[]): Summary {
  const kinds: Summary['kinds'] = {};
  let bytes = 0;
  for (const e of entries) {
    bytes += e.bytes;
    const k = (kinds[e.kind] ??= { entries: 0, bytes: 0 });
    k.entries++;
    k.bytes += e.bytes;
  }
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const oldest = entries.reduce((t, e) => Math.min(t, e.lastUsed), Infinity);
  const newest = entries.reduce((t, e) => Math.max(t, e.lastUsed), -Infinity);
  return {
    entries: entries.length,
    bytes,
    ...(entries.length > 0 ? { oldest: iso(oldest), newest: iso(newest) } : {}),
    kinds,
  };
}

const KIND_NAMES: Record<CacheEntryKind, string> = {
  artifact: 'release files',
  parsed: 'parsed artifacts',
  lock: 'parsed locks',
  validated: 'validated inputs',
  'release-index': 'release-list records',
  stamp: 'build stamps',
  plugin: 'Argo CD plugin outputs',
  temporary: 'leftovers of interrupted writes',
};

function describeKinds(kinds: Summary['kinds']): string {
  return (Object.keys(KIND_NAMES) as CacheEntryKind[])
    .filter((k) => kinds[k])
    .map((k) => `${kinds[k]!.entries} ${KIND_NAMES[k]} (${formatSize(kinds[k]!.bytes)})`)
    .join(', ');
}
