/**
 * Durable replacement of single files (src/durable-replace.ts): the calls, recorded by the
 * disk model of test/helpers/power-loss-fs.ts, come in the protocol's order, and a power cut after
 * any one of them leaves every file exactly as it was or exactly as written — as a kill (every
 * completed call on disk) and as power losses: only what was fsynced survives; names survive without
 * their bytes; a seeded coin per change. A naive write-and-rename fails the same check (the model
 * can tell).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceFileDurably, replaceFilesDurably, type DurableFs } from '../../src/durable-replace.js';
import { powerLossFs, survivals, type FsCall } from '../helpers/power-loss-fs.js';
import { tempDir, tempTree } from '../helpers/tmp.js';

type Files = Record<string, string>;

/** Every file under `dir` but hidden leftovers (`.name.capi-render-…tmp`), path → bytes. */
function visible(dir: string): Files {
  const out: Files = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else if (!/^\..*\.capi-render-\d+-[0-9a-f]{8}\.tmp$/.test(name))
        out[child] = readFileSync(path.join(dir, child), 'utf8');
    }
  };
  walk('');
  return out;
}

/** Each path is as before (absent if it was) or as after, byte for byte; nothing else appeared. */
function expectOldOrNew(found: Files, before: Files, after: Files, label: string): void {
  for (const p of new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(found)])) {
    expect([before[p], after[p]], `${label}: ${p} = ${JSON.stringify(found[p])}`).toContain(found[p]);
  }
}

/** The old repository: a file to replace and a neighbour left alone. */
const OLD: Files = { 'providers/core.yaml': 'spec:\n  version: v1.11.0\n', 'providers/other.yaml': 'other\n' };
/** A replaced file, a new file in an existing folder, a new file two new folders deep. */
const WRITES: Files = {
  'providers/core.yaml': 'spec:\n  version: v1.12.0\n',
  'providers/new.yaml': 'new\n',
  'overlays/prod/overlay.yaml': 'prod\n',
};
const NEW: Files = { ...OLD, ...WRITES };

const absolute = (root: string, files: Files) =>
  new Map(Object.entries(files).map(([rel, text]) => [path.join(root, rel), text]));

/** The calls of one recorded write, with paths relative to `root` and temporary names shown as `<tmp of …>`. */
function shown(calls: readonly FsCall[], root: string): string[] {
  const rel = (p: string) => {
    const r = path.relative(root, p) || '.';
    const m = /^(.*?)\.([^/]+)\.capi-render-\d+-[0-9a-f]{8}\.tmp$/.exec(r);
    return m ? `<tmp of ${m[1]}${m[2]}>` : r;
  };
  return calls.map((c) => `${c.op} ${rel(c.path)}${c.to ? ` -> ${rel(c.to)}` : ''}`);
}

/** A write-and-rename with no fsync: what capi-render did before. */
async function naiveReplace(files: ReadonlyMap<string, string>, dfs: DurableFs): Promise<void> {
  for (const [file, text] of files) {
    await dfs.mkdir(path.dirname(file), { recursive: true });
    await dfs.writeFile(`${file}.tmp`, text);
    await dfs.rename(`${file}.tmp`, file);
  }
}

describe('durable replace: the order of the calls', () => {
  it('one existing file: write a hidden sibling, fsync it, rename it over, fsync the folder', async () => {
    const root = tempTree(OLD);
    const rec = powerLossFs(root);
    await replaceFileDurably(path.join(root, 'providers/core.yaml'), WRITES['providers/core.yaml']!, { dfs: rec.tfs });
    expect(shown(rec.calls, root)).toEqual([
      'writeFile <tmp of providers/core.yaml>',
      'syncFile <tmp of providers/core.yaml>',
      'rename <tmp of providers/core.yaml> -> providers/core.yaml',
      'syncFolder providers',
    ]);
    expect(visible(root)).toEqual({ ...OLD, 'providers/core.yaml': WRITES['providers/core.yaml'] });
  });

  it('several files: new folders made and their parents fsynced, every file fsynced before the first rename, every folder after the last', async () => {
    const root = tempTree(OLD);
    const rec = powerLossFs(root);
    await replaceFilesDurably(absolute(root, WRITES), { dfs: rec.tfs });
    const calls = shown(rec.calls, root);
    const firstRename = calls.findIndex((c) => c.startsWith('rename'));
    const lastRename = calls.findLastIndex((c) => c.startsWith('rename'));
    expect(calls.slice(0, 2)).toEqual(['mkdir overlays', 'mkdir overlays/prod']);
    expect(calls.slice(2, 4).sort()).toEqual(['syncFolder .', 'syncFolder overlays']);
    expect(
      calls
        .slice(4, firstRename)
        .filter((c) => c.startsWith('syncFile'))
        .sort(),
    ).toEqual(
      Object.keys(WRITES)
        .map((f) => `syncFile <tmp of ${f}>`)
        .sort(),
    );
    expect(calls.slice(lastRename + 1).sort()).toEqual(['syncFolder overlays/prod', 'syncFolder providers']);
    expect(visible(root)).toEqual(NEW);
  });

  it('createFolders: false: a missing folder is ENOENT, as a plain write, and nothing is created', async () => {
    const root = tempTree(OLD);
    const rec = powerLossFs(root);
    const failed = await replaceFileDurably(path.join(root, 'missing/report.html'), 'x', {
      dfs: rec.tfs,
      createFolders: false,
    }).catch((e: NodeJS.ErrnoException) => e.code);
    expect(failed).toBe('ENOENT');
    expect(visible(root)).toEqual(OLD);
    expect(rec.calls).toEqual([]);
  });
});

describe('durable replace: a power cut after any call leaves each file old or new', () => {
  const cases: [string, (files: ReadonlyMap<string, string>, dfs: DurableFs) => Promise<void>][] = [
    ['replaceFilesDurably', (files, dfs) => replaceFilesDurably(files, { dfs })],
    [
      'replaceFileDurably, one call per file',
      async (files, dfs) => {
        for (const [file, text] of files) await replaceFileDurably(file, text, { dfs });
      },
    ],
  ];
  it.each(cases)(
    '%s: killed or power lost after each call; once every call ran, the new files under every disk model',
    async (_name, replace) => {
      const reference = tempTree(OLD);
      const full = powerLossFs(reference, { modelOnly: true });
      await replace(absolute(reference, WRITES), full.tfs);
      const total = full.calls.length;
      let checked = 0;
      for (let cut = 0; cut <= total; cut++) {
        const root = tempTree(OLD);
        const rec = powerLossFs(root, { cutAfter: cut, modelOnly: true });
        const outcome = await replace(absolute(root, WRITES), rec.tfs).then(
          () => 'done',
          (e: Error) => e.message,
        );
        // Calls in flight together (the fsyncs, 32 at a time) may all start before the cut.
        expect(outcome, `cut after ${cut}`).toBe(rec.calls.length < total ? 'power cut' : 'done');
        expectOldOrNew(visible(root), OLD, NEW, `killed after call ${cut}`);
        for (const [survival, model] of [...Object.entries(survivals(cut)), ...Object.entries(survivals(cut + 1000))]) {
          const after = tempDir();
          rec.materializePowerLoss(after, model);
          const found = visible(after);
          expectOldOrNew(found, OLD, NEW, `power lost after call ${cut} (${survival})`);
          if (cut === total) expect(found, `every call ran (${survival})`).toEqual(NEW);
          checked++;
        }
      }
      expect(checked).toBe((total + 1) * 6);
    },
  );

  it('the check can fail: a write-and-rename without fsync leaves an empty file when names survive without their bytes', async () => {
    const root = tempTree(OLD);
    const rec = powerLossFs(root, { modelOnly: true });
    await naiveReplace(absolute(root, WRITES), rec.tfs);
    const after = tempDir();
    rec.materializePowerLoss(after, survivals(1)['names without their bytes']!);
    expect(visible(after)['providers/core.yaml']).toBe('');
  });
});
