/**
 * Durable writes: the output transaction's file-system calls, recorded through its
 * TransactionFs, come in the order that survives a power loss, and a power cut after any one of
 * them leaves — once the next command has recovered — exactly the old or exactly the new tree. Each
 * cut is checked as a kill (every completed call is on disk) and as power losses under the disk
 * model of test/helpers/power-loss-fs.ts: only what was fsynced survives; names survive without
 * their bytes; and a seeded coin per change that was not fsynced (three seeds).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WriteError } from '../../src/errors.js';
import type { TransactionFs } from '../../src/output/durable-fs.js';
import { beginTransaction, finishInterruptedWrite, type TreeTarget } from '../../src/output/transaction.js';
import { cleanLegacyStaging } from '../../src/output/legacy-staging.js';
import { PowerCut, powerLossFs, survivals, type FsCall } from '../helpers/power-loss-fs.js';
import { tempDir } from '../helpers/tmp.js';

type Files = Record<string, string>;

/** The old output: two environments, a folder that the new write empties, a lock. */
const OLD = {
  rendered: { 'dev/a.yaml': 'a1\n', 'dev/b.yaml': 'b\n', 'dev/gone/c.yaml': 'c\n', 'prod/a.yaml': 'a1\n' },
  gitops: { 'dev.yaml': 'g1\n' },
  lock: 'lock 1\n',
};
/**
 * The new output: replaced files (two of one content: a hard link), an unchanged one, a file in a
 * folder new inside an existing environment, a new environment (moved in whole), a removal that
 * empties a folder, new ownership records and a new lock.
 */
const NEW = {
  rendered: {
    'dev/a.yaml': 'a2\n',
    'dev/b.yaml': 'b\n',
    'dev/sub/d.yaml': 'd\n',
    'prod/a.yaml': 'a2\n',
    'qa/a.yaml': 'a2\n',
    'qa/x/y.yaml': 'y\n',
  },
  gitops: { 'dev.yaml': 'g2\n' },
  lock: 'lock 2\n',
};

async function write(
  repo: string,
  out: { rendered: Files; gitops: Files; lock: string | undefined },
  tfs?: TransactionFs,
): Promise<void> {
  const targets: TreeTarget[] = ['rendered', 'gitops'].map((name) => ({
    root: path.join(repo, name),
    inScope: () => true,
    adoptable: () => false,
  }));
  const txn = await beginTransaction(targets, {
    repoRoot: repo,
    lockFile: path.join(repo, 'capi-render.lock'),
    ...(tfs ? { fs: tfs } : {}),
  });
  try {
    await txn.stage(0, new Map(Object.entries(out.rendered)));
    await txn.stage(1, new Map(Object.entries(out.gitops)));
    await txn.commit(out.lock);
  } catch (e) {
    await txn.abort();
    throw e;
  }
}

/** Every file of the repository (the work folder included, so leftovers show), path → bytes. */
function state(repo: string): Files {
  const out: Files = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(repo, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(repo, child)).isDirectory()) walk(child);
      else out[child] = readFileSync(path.join(repo, child), 'utf8');
    }
  };
  walk('');
  return out;
}

/** A repository holding the old output, written by the transaction itself (records included). */
async function oldRepo(): Promise<string> {
  const repo = tempDir();
  await write(repo, OLD);
  return repo;
}

/** The calls of one write, named by the step of the protocol they belong to. */
function steps(calls: readonly FsCall[], repo: string): string[] {
  const work = path.join(repo, '.capi-render-write');
  const marker = path.join(work, 'commit.json');
  const markerWritten = calls.findIndex((c) => c.op === 'writeFile' && c.path === `${marker}.tmp`);
  const tidyStart = calls.findIndex((c) => c.op === 'rename' && c.to?.endsWith('.done'));
  const names = calls.map((c, i) => {
    if (i < markerWritten)
      return c.op === 'syncFile' ? 'fsync staged files' : c.op === 'syncFolder' ? 'fsync staged folders' : 'stage';
    if (c.path === `${marker}.tmp`)
      return { writeFile: 'write marker', syncFile: 'fsync marker', rename: 'rename marker' }[c.op as string] ?? c.op;
    if (c.op === 'rm' && c.path === marker) return 'remove marker';
    if (c.op === 'syncFolder' && c.path === work) return 'fsync marker folder';
    if (i < tidyStart) return c.op === 'syncFolder' ? 'fsync installed folders' : 'install';
    return 'tidy';
  });
  return names.filter((n, i) => n !== names[i - 1]);
}

const PROTOCOL = [
  'stage',
  'fsync staged files',
  'fsync staged folders',
  'write marker',
  'fsync marker',
  'rename marker',
  'fsync marker folder',
  'install',
  'fsync installed folders',
  'tidy',
  'remove marker',
  'fsync marker folder',
  'tidy',
];

/** Renames from a stage into rendered/dev fail with EXDEV (the environment folder is another file system). */
const devOnAnotherDisk = (repo: string) => (from: string, to: string) =>
  from.includes('/stage-0/new/') && path.dirname(to) === path.join(repo, 'rendered/dev');

describe('durable writes: the order of the calls', () => {
  it('stage, fsync staged files, fsync their folders, marker (fsynced, renamed, folder fsynced), install, fsync installed folders, tidy, marker removed durably', async () => {
    const repo = await oldRepo();
    const rec = powerLossFs(repo);
    await write(repo, NEW, rec.tfs);
    expect(steps(rec.calls, repo)).toEqual(PROTOCOL);
    const marker = path.join(repo, '.capi-render-write/commit.json');
    const at = (pred: (c: FsCall) => boolean) => rec.calls.findIndex(pred);
    const markerWritten = at((c) => c.op === 'writeFile' && c.path === `${marker}.tmp`);
    const markerDurable = at((c) => c.op === 'syncFolder' && c.path === path.dirname(marker));
    const markerRemoved = at((c) => c.op === 'rm' && c.path === marker);
    const synced = (op: 'syncFile' | 'syncFolder', p: string, after: number, before: number) =>
      rec.calls.slice(after + 1, before).some((c) => c.op === op && c.path === p);
    const before = rec.calls.slice(0, markerWritten);
    // Every staged inode is fsynced before the marker (a link shares the inode it links to).
    for (const [i, c] of before.entries()) {
      if (c.op === 'writeFile') expect(synced('syncFile', c.path, i, markerWritten), c.path).toBe(true);
      if (c.op === 'link') expect(synced('syncFile', c.path, -1, markerWritten), c.path).toBe(true);
    }
    // Every folder that got a name before the marker is fsynced after it did, before the marker.
    for (const [i, c] of before.entries()) {
      if (c.op === 'syncFile' || c.op === 'syncFolder') continue;
      const dir = path.dirname(c.to ?? c.path);
      expect(synced('syncFolder', dir, i, markerWritten), `${c.op} ${c.to ?? c.path}`).toBe(true);
    }
    // The marker's folder is fsynced before the first install, and each installed rename's output folder before the marker goes.
    const installs = rec.calls
      .map((c, i) => ({ c, i }))
      .filter(({ c, i }) => i > markerDurable && i < markerRemoved && c.op === 'rename' && !c.to!.endsWith('.done'));
    expect(installs.length).toBeGreaterThan(5);
    for (const { c, i } of installs) {
      const outputSide = c.to!.includes('.capi-render-write') ? c.path : c.to!;
      expect(synced('syncFolder', path.dirname(outputSide), i, markerRemoved), `rename ${c.path} -> ${c.to}`).toBe(
        true,
      );
    }
    expect(state(repo)).toEqual(await expectedState(NEW));
  });

  it('a write with nothing to change fsyncs nothing (a no-op build)', async () => {
    const repo = await oldRepo();
    const rec = powerLossFs(repo);
    // The lock is left alone when its text did not change (write-output.ts passes undefined).
    await write(repo, { ...OLD, lock: undefined }, rec.tfs);
    expect(rec.calls.filter((c) => c.op === 'syncFile' || c.op === 'syncFolder')).toEqual([]);
  });

  it('across file systems (EXDEV): the copy is fsynced, renamed over the target, its folder fsynced, and only then the staged file removed', async () => {
    const repo = await oldRepo();
    const rec = powerLossFs(repo, { exdev: devOnAnotherDisk(repo) });
    await write(repo, NEW, rec.tfs);
    const target = path.join(repo, 'rendered/dev/a.yaml');
    const tmp = path.join(repo, 'rendered/dev/.a.yaml.capi-render-tmp');
    const copy = rec.calls.findIndex((c) => c.op === 'copyFile' && c.to === tmp);
    const staged = rec.calls[copy]!.path;
    expect(rec.calls.slice(copy, copy + 5)).toEqual([
      { op: 'copyFile', path: staged, to: tmp },
      { op: 'syncFile', path: tmp },
      { op: 'rename', path: tmp, to: target },
      { op: 'syncFolder', path: path.dirname(target) },
      { op: 'rm', path: staged },
    ]);
    expect(state(repo)).toEqual(await expectedState(NEW));
  });

  it("the old writer's lost output folder is put back durably before its leftovers go", async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, '.rendered.capi-render-old/a'), { recursive: true });
    writeFileSync(path.join(repo, '.rendered.capi-render-old/a/x.yaml'), 'x\n');
    mkdirSync(path.join(repo, '.rendered.capi-render-new'));
    const rec = powerLossFs(repo);
    await cleanLegacyStaging(path.join(repo, 'rendered'), rec.tfs);
    expect(rec.calls).toEqual([
      { op: 'rename', path: path.join(repo, '.rendered.capi-render-old'), to: path.join(repo, 'rendered') },
      { op: 'syncFolder', path: repo },
      { op: 'rm', path: path.join(repo, '.rendered.capi-render-new') },
    ]);
  });
});

/** What the repository holds after a complete write of `out` (from a write into a fresh one). */
async function expectedState(out: { rendered: Files; gitops: Files; lock: string }): Promise<Files> {
  const repo = tempDir();
  await write(repo, out);
  return state(repo);
}

/**
 * Cuts the power after call k, for every k: the repository as the kill left it, and as the disk
 * model says a power loss would (each way it may treat what was not fsynced; the coin seeded by k);
 * the next command recovers; the result must be the old or the new tree. Returns how often each
 * outcome was seen, and a line per cut that ended elsewhere (a mixed tree, or a recovery that failed).
 */
async function cutEverywhere(options: {
  exdev?: boolean;
  withoutSync?: boolean;
}): Promise<{ outcomes: Record<string, number>; mixed: string[] }> {
  const template = await oldRepo();
  const [oldState, newState] = [state(template), await expectedState(NEW)];
  const probe = tempDir();
  cpSync(template, probe, { recursive: true });
  const full = powerLossFs(probe, { modelOnly: true, ...(options.exdev ? { exdev: devOnAnotherDisk(probe) } : {}) });
  await write(probe, NEW, full.tfs);
  const total = full.calls.length;
  const outcomes: Record<string, number> = {};
  const mixed: string[] = [];
  for (let k = 0; k <= total; k++) {
    const repo = tempDir();
    cpSync(template, repo, { recursive: true });
    const cut = powerLossFs(repo, {
      cutAfter: k,
      modelOnly: true,
      ...(options.exdev ? { exdev: devOnAnotherDisk(repo) } : {}),
    });
    const tfs = options.withoutSync
      ? { ...cut.tfs, syncFile: async () => undefined, syncFolder: async () => undefined }
      : cut.tfs;
    // k = total calls finish the write; fewer fail it with the cut (EIO), bare or as a write error.
    await write(repo, NEW, tfs).catch((e: unknown) => {
      const cut =
        e instanceof PowerCut || (e instanceof WriteError && e.message.includes(': input/output error (EIO)'));
      if (k === total || !cut) throw e;
    });
    const killed = tempDir();
    cpSync(repo, killed, { recursive: true });
    const models: [string, () => void][] = [['kill', () => cpSync(killed, repo, { recursive: true })]];
    for (const [name, survival] of Object.entries(survivals(k)))
      models.push([`power loss, ${name}`, () => cut.materializePowerLoss(repo, survival)]);
    for (const [model, prepare] of models) {
      rmSync(repo, { recursive: true, force: true });
      mkdirSync(repo);
      prepare();
      // The next command sees the same file systems (an EXDEV rename fails again).
      const recovered = await finishInterruptedWrite(
        repo,
        powerLossFs(repo, { modelOnly: true, ...(options.exdev ? { exdev: devOnAnotherDisk(repo) } : {}) }).tfs,
      ).then(
        () => true,
        () => false,
      );
      const now = state(repo);
      const outcome = !recovered
        ? 'RECOVERY FAILED'
        : JSON.stringify(now) === JSON.stringify(oldState)
          ? 'old'
          : JSON.stringify(now) === JSON.stringify(newState)
            ? 'new'
            : 'MIXED';
      const key = `${model.replace(/^power loss, /, '')}/${outcome}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      const last = cut.calls[k - 1];
      if (outcome !== 'old' && outcome !== 'new')
        mixed.push(
          `${model} after call ${k} of ${total} (${last?.op} ${last?.path} ${last?.to ?? ''}): ${JSON.stringify(now)}`,
        );
      if (outcome === 'old' || outcome === 'new')
        expect(existsSync(path.join(repo, '.capi-render-write')), `${model} after call ${k}`).toBe(false);
    }
  }
  return { outcomes, mixed };
}

describe('durable writes: a power cut after every call', () => {
  it.each([
    { name: 'one file system', exdev: false },
    { name: 'an environment folder on another file system (EXDEV copies)', exdev: true },
  ])(
    '$name: old or new tree, byte for byte, after a kill and after a power loss at each step',
    async ({ exdev }) => {
      const { outcomes, mixed } = await cutEverywhere({ exdev });
      expect(mixed).toEqual([]);
      // Both ends were reached under every model: cuts before the marker and after it.
      for (const model of ['kill', 'only what was fsynced', 'names without their bytes', 'a coin per change']) {
        for (const end of ['old', 'new'])
          expect(outcomes[`${model}/${end}`], JSON.stringify(outcomes)).toBeGreaterThan(0);
      }
      console.info(`power cuts (${exdev ? 'EXDEV' : 'one file system'}): ${JSON.stringify(outcomes)}`);
    },
    120_000,
  );

  it('the model has teeth: the same write without its fsyncs leaves a mixed tree after some power losses', async () => {
    const { outcomes, mixed } = await cutEverywhere({ withoutSync: true });
    const broken = (model: string) => (outcomes[`${model}/MIXED`] ?? 0) + (outcomes[`${model}/RECOVERY FAILED`] ?? 0);
    // A kill cannot tell (every completed call is on disk); a power loss can: an empty marker, empty installed files.
    expect(broken('kill'), mixed.join('\n')).toBe(0);
    expect(broken('names without their bytes'), JSON.stringify(outcomes)).toBeGreaterThan(0);
    expect(broken('a coin per change'), JSON.stringify(outcomes)).toBeGreaterThan(0);
    console.info(`power cuts without fsync: ${JSON.stringify(outcomes)}`);
  }, 120_000);
});
