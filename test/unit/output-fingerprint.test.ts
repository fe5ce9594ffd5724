/**
 * The output fingerprint in its compact record: what a build left in rendered/ and
 * gitops/ is recorded exactly, per environment; any hand edit, addition, deletion or planted
 * non-file makes the folder differ, git's racy rule holds, and a record that is not exactly one a
 * build wrote is no record (the next build renders everything, never a skip).
 */
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeFingerprint, encodeFingerprint } from '../../src/output/fingerprint-record.js';
import {
  environmentUnchanged,
  fingerprintDigest,
  outputUnchanged,
  readFingerprint,
  sha256Of,
  takeFingerprint,
  writeFingerprint,
  type OutputFingerprint,
} from '../../src/output/output-fingerprint.js';
import { OWNERSHIP_FILE } from '../../src/output/ownership.js';
import { tempDir } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'dev/core/deployment.yaml': 'kind: Deployment\nreplicas: 1\n',
  'dev/core/service.yaml': 'kind: Service\n',
  'dev/kustomization.yaml': 'resources: [core]\n',
  'prod/core/deployment.yaml': 'kind: Deployment\nreplicas: 2\n',
  'prod/core/service.yaml': 'kind: Service\n',
  'prod/kustomization.yaml': 'resources: [core]\n',
};

/** A rendered/ folder as a build leaves it (its ownership record listing every file), and its fingerprint taken well after the write. */
function built(): { out: string; gitops: string; fp: OutputFingerprint } {
  const root = tempDir();
  const out = path.join(root, 'rendered');
  const gitops = path.join(root, 'gitops');
  const produced = new Map<string, string>();
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(out, rel)), { recursive: true });
    // As a build writes them: files of identical content once, hard-linked.
    const same = Object.keys(FILES).find((other) => FILES[other] === text && produced.has(other));
    if (same) linkSync(path.join(out, same), path.join(out, rel));
    else writeFileSync(path.join(out, rel), text);
    produced.set(rel, sha256Of(text));
  }
  writeFileSync(path.join(out, OWNERSHIP_FILE), `${Object.keys(FILES).sort().join('\n')}\n`);
  const fp = takeFingerprint({
    previous: undefined,
    outDir: out,
    gitopsDir: gitops,
    produced: { out: produced, gitops: new Map() },
    rendered: { dev: 'h-dev', prod: 'h-prod' },
    confirmed: [],
    allEnvironments: ['dev', 'prod'],
  });
  // Out of the racy window: as a record taken seconds after the write.
  return { out, gitops, fp: { ...fp, takenAt: fp.takenAt + 10_000 } };
}

describe('the output fingerprint', () => {
  const changes: { name: string; change: (out: string) => void; unchanged: boolean; dev: boolean; prod: boolean }[] = [
    { name: 'nothing', change: () => {}, unchanged: true, dev: true, prod: true },
    {
      name: 'a same-size edit, times put back',
      change: (out) => sameSizeEdit(path.join(out, 'dev/core/deployment.yaml')),
      unchanged: false,
      dev: false,
      prod: true,
    },
    {
      name: 'a deleted file',
      change: (out) => rmSync(path.join(out, 'prod/core/service.yaml')),
      unchanged: false,
      dev: true,
      prod: false,
    },
    {
      name: 'an added file',
      change: (out) => writeFileSync(path.join(out, 'dev/core/extra.yaml'), 'x\n'),
      unchanged: false,
      dev: false,
      prod: true,
    },
    {
      name: 'a FIFO planted',
      change: (out) => execFileSync('mkfifo', [path.join(out, 'prod/fifo.yaml')]),
      unchanged: false,
      dev: true,
      prod: false,
    },
    {
      name: 'a symlink planted',
      change: (out) => symlinkSync('/etc/hostname', path.join(out, 'dev/link.yaml')),
      unchanged: false,
      dev: false,
      prod: true,
    },
    {
      name: 'a file replaced by a folder',
      change: (out) => {
        rmSync(path.join(out, 'prod/kustomization.yaml'));
        mkdirSync(path.join(out, 'prod/kustomization.yaml'));
      },
      unchanged: false,
      dev: true,
      prod: false,
    },
    {
      name: 'a file in a new folder',
      change: (out) => {
        mkdirSync(path.join(out, 'dev/core/more'));
        writeFileSync(path.join(out, 'dev/core/more/extra.yaml'), 'x\n');
      },
      unchanged: false,
      dev: false,
      prod: true,
    },
    {
      name: 'an empty folder added',
      change: (out) => mkdirSync(path.join(out, 'prod/core/empty')),
      unchanged: true,
      dev: true,
      prod: true,
    },
    {
      // service.yaml is one inode in both environments: an edit through one path changes both.
      name: 'a hard-linked file edited in place through one of its paths',
      change: (out) => {
        const file = path.join(out, 'dev/core/service.yaml');
        keepingTimes(file, () => writeFileSync(file, 'kind: Servic3\n'));
      },
      unchanged: false,
      dev: false,
      prod: false,
    },
    {
      name: 'one path of a hard-linked file replaced by a copy of the same bytes',
      change: (out) => {
        const file = path.join(out, 'prod/core/service.yaml');
        const text = readFileSync(file, 'utf8');
        rmSync(file);
        writeFileSync(file, text);
      },
      unchanged: true,
      dev: true,
      prod: true,
    },
    {
      name: 'one path of a hard-linked file removed, the folder keeping its times',
      change: (out) =>
        keepingTimes(path.join(out, 'prod/core'), () => rmSync(path.join(out, 'prod/core/service.yaml'))),
      unchanged: false,
      dev: true,
      prod: false,
    },
    {
      name: 'an edited ownership record',
      change: (out) => writeFileSync(path.join(out, OWNERSHIP_FILE), 'dev/kustomization.yaml\n'),
      unchanged: false,
      dev: false,
      prod: false,
    },
  ];
  for (const c of changes) {
    it(`after ${c.name}: the output is ${c.unchanged ? 'unchanged' : 'changed'}, dev ${c.dev ? 'skippable' : 'rendered'}, prod ${c.prod ? 'skippable' : 'rendered'}`, () => {
      const { out, fp } = built();
      c.change(out);
      // Checked by folder and inode where folder marks match, and (no marks) by listing every folder: the same answers.
      for (const record of [fp, { ...fp, dirs: { out: new Map(), gitops: new Map() } }]) {
        expect(outputUnchanged(record, ['dev', 'prod'])).toBe(c.unchanged);
        expect(environmentUnchanged(record, 'dev', 'h-dev')).toBe(c.dev);
        expect(environmentUnchanged(record, 'prod', 'h-prod')).toBe(c.prod);
      }
    });
  }

  it('lists a folder again whose mark is in the racy window, and trusts it outside', () => {
    const { out, fp } = built();
    // A file added to a folder within the same clock tick as the record: the folder's times would not show it.
    writeFileSync(path.join(out, 'dev/core/extra.yaml'), 'x\n');
    const stat = lstatSync(path.join(out, 'dev/core'));
    const dirs = new Map(fp.dirs.out);
    const old = dirs.get('dev/core')!;
    dirs.set('dev/core', [stat.mtimeMs, stat.ctimeMs, old[2], old[3]]);
    const coarse = { ...fp, dirs: { out: dirs, gitops: fp.dirs.gitops } };
    expect(environmentUnchanged({ ...coarse, takenAt: stat.mtimeMs + 5 }, 'dev', 'h-dev')).toBe(false);
    // Outside the window the folder is trusted as recorded: which is why the window exists.
    expect(environmentUnchanged({ ...coarse, takenAt: stat.mtimeMs + 60_000 }, 'dev', 'h-dev')).toBe(true);
  });

  it('takes a file whose times match as unchanged only outside the racy window', () => {
    const { out, fp } = built();
    const file = path.join(out, 'dev/core/deployment.yaml');
    writeFileSync(file, FILES['dev/core/deployment.yaml']!.replace('1', '7'));
    // As a coarse clock would have it: the edit kept the recorded times.
    const stat = lstatSync(file);
    const folder = fp.environments.get('dev')!.out.get('dev/core')!;
    folder.set('deployment.yaml', [stat.size, stat.mtimeMs, stat.ctimeMs, folder.get('deployment.yaml')![3], stat.ino]);
    expect(outputUnchanged({ ...fp, takenAt: stat.mtimeMs + 5 }, ['dev', 'prod'])).toBe(false);
    expect(outputUnchanged({ ...fp, takenAt: stat.mtimeMs + 60_000 }, ['dev', 'prod'])).toBe(true);
  });

  it('marks every folder whose entries it recorded exactly, and no folder holding anything else', () => {
    const exact = built();
    for (const dir of ['', 'dev', 'dev/core', 'prod', 'prod/core'])
      expect(exact.fp.dirs.out.get(dir)?.[0]).toBeGreaterThan(0);
    const root = tempDir();
    const out = path.join(root, 'rendered');
    mkdirSync(path.join(out, 'dev/core'), { recursive: true });
    writeFileSync(path.join(out, 'dev/kustomization.yaml'), FILES['dev/kustomization.yaml']!);
    writeFileSync(path.join(out, 'dev/core/service.yaml'), FILES['dev/core/service.yaml']!);
    symlinkSync('/etc/hostname', path.join(out, 'dev/core/link.yaml'));
    writeFileSync(path.join(out, OWNERSHIP_FILE), 'dev/core/service.yaml\ndev/kustomization.yaml\n');
    const fp = takeFingerprint({
      previous: undefined,
      outDir: out,
      gitopsDir: path.join(root, 'gitops'),
      produced: {
        out: new Map([
          ['dev/kustomization.yaml', sha256Of(FILES['dev/kustomization.yaml']!)],
          ['dev/core/service.yaml', sha256Of(FILES['dev/core/service.yaml']!)],
        ]),
        gitops: new Map(),
      },
      rendered: { dev: 'h-dev' },
      confirmed: [],
      allEnvironments: ['dev'],
    });
    expect(fp.dirs.out.get('dev')?.[0]).toBeGreaterThan(0);
    expect(fp.dirs.out.get('dev/core')?.[0]).toBe(-1);
    // The folder with the link is listed every time, so the link is seen every time.
    expect(outputUnchanged({ ...fp, takenAt: fp.takenAt + 10_000 }, ['dev'])).toBe(false);
  });

  it('keeps every mark and inputs hash exactly through its record, and shares names and marks', () => {
    const { fp } = built();
    const text = encodeFingerprint(fp);
    expect(decodeFingerprint(text)).toEqual(fp);
    const record = JSON.parse(text) as { names: string[]; marks: unknown[] };
    // service.yaml and kustomization.yaml are the same file (hard-linked) in both environments: one name, one mark each.
    expect(record.names.filter((n) => n === 'service.yaml')).toHaveLength(1);
    expect(record.marks).toHaveLength(Object.keys(FILES).length + 1 - 2);
  });
});

describe('a record that is not exactly one a build wrote is no record', () => {
  const edits: { name: string; edit: (text: string) => string }[] = [
    { name: 'truncated', edit: (t) => t.slice(0, Math.floor(t.length / 2)) },
    { name: 'empty', edit: () => '' },
    { name: 'not JSON', edit: (t) => t.replace('{', '[') },
    { name: 'of the earlier format', edit: (t) => t.replace('"version":4', '"version":3') },
    { name: 'with a mark of the earlier shape', edit: (t) => t.replace(/("marks":\[\[[^\]]*?),-?\d+\]/, '$1]') },
    { name: 'with a fractional inode', edit: (t) => t.replace(/("marks":\[\[[^\]]*?),(-?\d+)\]/, '$1,$2.5]') },
    { name: 'with a folder mark of the wrong shape', edit: (t) => t.replace(/("dirs":\{"out":\{"":\[)[^,]+,/, '$1') },
    {
      name: 'with a folder that climbs out',
      edit: (t) => t.replace('"dirs":{"out":{', '"dirs":{"out":{"../x":[1,2,3,4],'),
    },
    { name: 'without its folders', edit: (t) => json(t, (r) => delete (r as { dirs?: unknown }).dirs) },
    { name: 'with a file filed under another environment', edit: (t) => t.replace('"dev/core":', '"prod/extra":') },
    { name: 'with an environment twice', edit: (t) => json(t, (r) => r.environments.push(r.environments[0])) },
    { name: 'with a shared file of a recorded environment', edit: (t) => json(t, (r) => (r.shared.out.dev = [0, 0])) },
    { name: 'with an environment entry of the wrong shape', edit: (t) => t.replace('"h-dev",', '') },
    { name: 'with a name index out of range', edit: (t) => t.replace(/"dev\/core":\[\d+/, '"dev/core":[999') },
    { name: 'with a mark index out of range', edit: (t) => t.replace(/"dev\/core":\[(\d+),\d+/, '"dev/core":[$1,999') },
    { name: 'with a fractional index', edit: (t) => t.replace(/"dev\/core":\[(\d+)/, '"dev/core":[$1.5') },
    { name: 'with an odd pair list', edit: (t) => t.replace(/"dev\/core":\[(\d+),/, '"dev/core":[') },
    { name: 'with a damaged digest', edit: (t) => t.replace(/"([0-9a-f]{64})"/, '"$1x"') },
    { name: 'with a negative size', edit: (t) => t.replace(/"marks":\[\[\d+/, '"marks":[[-1') },
    { name: 'with a path for a name', edit: (t) => t.replace('"service.yaml"', '"../service.yaml"') },
    {
      name: 'with a name twice in one folder',
      edit: (t) => t.replace(/"dev\/core":\[(\d+),(\d+),\d+/, '"dev/core":[$1,$2,$1'),
    },
  ];
  for (const c of edits) {
    it(`${c.name}: read as none`, () => {
      const { fp } = built();
      const file = path.join(tempDir(), 'outputs', 'record.json');
      writeFingerprint(file, fp);
      expect(readFingerprint(file)).toEqual(fp);
      const edited = c.edit(readFileSync(file, 'utf8'));
      expect(edited).not.toBe(readFileSync(file, 'utf8'));
      writeFileSync(file, edited);
      expect(readFingerprint(file)).toBeUndefined();
    });
  }
});

describe("a build stamp's record (read with the stamp's digest)", () => {
  it('is read when its bytes are the record the digest names, and is none after any byte changes', () => {
    const { out, gitops, fp } = built();
    const file = path.join(tempDir(), 'outputs', 'record.json');
    writeFingerprint(file, fp);
    const folders = { outDir: fp.outDir, gitopsDir: fp.gitopsDir, digest: fingerprintDigest(fp) };
    expect(readFingerprint(file, folders)).toEqual(fp);
    expect(folders.outDir).toBe(out);
    expect(folders.gitopsDir).toBe(gitops);
    // The same record, re-spaced: it decodes to the same fingerprint, but is not the bytes the stamp names.
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, `${JSON.stringify(JSON.parse(text), null, 1)}\n`);
    expect(decodeFingerprint(readFileSync(file, 'utf8'))).toEqual(fp);
    expect(readFingerprint(file, folders)).toBeUndefined();
    writeFileSync(file, text);
    expect(readFingerprint(file, { ...folders, digest: sha256Of('another record') })).toBeUndefined();
  });
});

/** A record's text edited as JSON (the stored shape: environments are [name, key, out, gitops]). */
function json(
  text: string,
  edit: (record: { environments: unknown[]; shared: { out: Record<string, number[]> } }) => unknown,
): string {
  const record = JSON.parse(text) as Parameters<typeof edit>[0];
  edit(record);
  return `${JSON.stringify(record)}\n`;
}

/** Rewrites `file` with other bytes of the same size and puts its modification time back (its change time moves on). */
function sameSizeEdit(file: string): void {
  keepingTimes(file, () => writeFileSync(file, readFileSync(file, 'utf8').replace('1', '9')));
}

/** Runs `change`, then puts `target`'s access and modification times back as they were (its change time moves on). */
function keepingTimes(target: string, change: () => void): void {
  const { atime, mtime } = lstatSync(target);
  change();
  utimesSync(target, atime, mtime);
}
