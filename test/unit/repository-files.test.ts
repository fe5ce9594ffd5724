/**
 * The repository reader (src/repository-files.ts over src/bounded-read.ts): every file type in place
 * of a file, the size limits (checked before a byte is read, and while reading when the size lied),
 * files swapped between the check and the open, and the two link rules — inputs follow links inside
 * the repository and refuse the rest, records never go through a link.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readBounded, readBoundedSync, type BoundedRead } from '../../src/bounded-read.js';
import { SpecError } from '../../src/errors.js';
import {
  MAX_INPUT_FILE_BYTES,
  MAX_LOCK_FILE_BYTES,
  inputPathsOf,
  listInputFiles,
  readInputFile,
  readInputFileSync,
  readListedInput,
  readListedInputSync,
  readRecordFile,
  readRecordFileSync,
  refuseIrregularRecordPath,
  resolveInput,
} from '../../src/repository-files.js';
import { tempDir } from '../helpers/tmp.js';

const YAML = /\.ya?ml$/;

/** A repository with a few inputs, and a folder beside it (outside). */
function repository(): { repo: string; outside: string } {
  const root = tempDir();
  const repo = path.join(root, 'repo');
  const outside = path.join(root, 'outside');
  for (const [rel, text] of Object.entries({
    'providers/core.yaml': 'kind: CoreProvider\n',
    'shared/base.yaml': 'kind: Base\n',
    'shared/sub/deep.yaml': 'kind: Deep\n',
    'capi-render.lock': 'kind: Lock\n',
  })) {
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    writeFileSync(path.join(repo, rel), text);
  }
  mkdirSync(path.join(outside, 'dir'), { recursive: true });
  writeFileSync(path.join(outside, 'secret.yaml'), 'kind: Secret\n');
  return { repo, outside };
}

/** A listening UNIX socket at `file`, closed when the test ends. */
async function socketAt(file: string): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** The first diagnostic of what `run` throws, as `code: message`. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof SpecError) return `${e.diagnostics[0]!.code}: ${e.diagnostics[0]!.message}`;
    throw e;
  }
  throw new Error('nothing was refused');
}

async function refusalOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (e) {
    if (e instanceof SpecError) return `${e.diagnostics[0]!.code}: ${e.diagnostics[0]!.message}`;
    throw e;
  }
  throw new Error('nothing was refused');
}

describe('bounded reads: every file type, the limit', () => {
  // Each row: what is at the path, and what a bounded read (not following a final link) says.
  const rows: {
    name: string;
    make: (at: string) => Promise<void> | void;
    follow?: boolean;
    expected: BoundedRead['outcome'] | string;
  }[] = [
    { name: 'a regular file', make: (at) => writeFileSync(at, 'x: 1\n'), expected: 'read' },
    { name: 'nothing', make: () => {}, expected: 'missing' },
    {
      name: 'a FIFO (opens at once, never waits for a writer)',
      make: (at) => void execFileSync('mkfifo', [at]),
      expected: 'irregular fifo',
    },
    { name: 'a folder', make: (at) => mkdirSync(at), expected: 'irregular folder' },
    { name: 'a socket', make: (at) => socketAt(at), expected: 'irregular socket' },
    { name: 'a link (not followed)', make: (at) => symlinkSync('/dev/zero', at), expected: 'irregular link' },
    {
      name: 'a link to /dev/zero, followed: a device, never read',
      make: (at) => symlinkSync('/dev/zero', at),
      follow: true,
      expected: 'irregular device',
    },
    {
      name: 'a link to /dev/null, followed',
      make: (at) => symlinkSync('/dev/null', at),
      follow: true,
      expected: 'irregular device',
    },
  ];
  it.each(rows)('$name → $expected (async and sync alike)', async ({ make, follow, expected }) => {
    const at = path.join(tempDir(), 'file.yaml');
    await make(at);
    const show = (r: BoundedRead) => (r.outcome === 'irregular' ? `irregular ${r.kind}` : r.outcome);
    expect(show(await readBounded(at, { limit: 100, follow: follow ?? false }))).toBe(expected);
    expect(show(readBoundedSync(at, { limit: 100, follow: follow ?? false }))).toBe(expected);
  });

  it('reads exactly `limit` bytes, refuses limit + 1 from fstat before reading', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'at'), 'a'.repeat(100));
    writeFileSync(path.join(dir, 'over'), 'a'.repeat(101));
    for (const read of [readBoundedSync, readBounded]) {
      const at = await read(path.join(dir, 'at'), { limit: 100 });
      expect(at.outcome === 'read' && at.bytes.length).toBe(100);
      expect(await read(path.join(dir, 'over'), { limit: 100 })).toEqual({ outcome: 'too-large', size: 101 });
    }
  });

  it('stops at limit + 1 bytes when the size fstat gave was wrong (a file that grows while read)', async () => {
    // /proc files are regular files of size 0 that read as text: the size lies as a growing file's does.
    const file = '/proc/self/status';
    if (!existsSync(file)) return expect.fail('this test needs /proc (Linux)');
    for (const read of [readBoundedSync, readBounded]) {
      expect(await read(file, { limit: 64, follow: true })).toEqual({ outcome: 'too-large', size: 65, grew: true });
      const whole = await read(file, { limit: 1024 * 1024, follow: true });
      expect(whole.outcome === 'read' && whole.bytes.toString('utf8')).toMatch(/^Name:/);
    }
  });
});

describe('inputs: one rule for links', () => {
  it('follows a link to a file inside the repository and knows both paths', async () => {
    const { repo } = repository();
    symlinkSync('../shared/base.yaml', path.join(repo, 'providers/base.yaml'));
    const read = await readInputFile(repo, 'providers/base.yaml');
    expect(read && { file: read.file, real: read.real, text: read.bytes.toString('utf8') }).toEqual({
      file: 'providers/base.yaml',
      real: 'shared/base.yaml',
      text: 'kind: Base\n',
    });
    expect(readInputFileSync(repo, 'providers/base.yaml')?.real).toBe('shared/base.yaml');
  });

  it('takes an absolute path inside the repository as relative to it, and refuses one outside', () => {
    const { repo, outside } = repository();
    expect(resolveInput(repo, path.join(repo, 'providers/core.yaml'))).toMatchObject({
      file: 'providers/core.yaml',
      real: 'providers/core.yaml',
      kind: 'file',
    });
    const elsewhere = path.join(outside, 'secret.yaml');
    expect(refusal(() => resolveInput(repo, elsewhere))).toBe(`input-path: ${elsewhere} is outside the repository`);
  });

  it('follows a folder link inside the repository at any component of the path', () => {
    const { repo } = repository();
    symlinkSync('../shared', path.join(repo, 'providers/linked'));
    expect(resolveInput(repo, 'providers/linked/sub/deep.yaml')).toMatchObject({
      file: 'providers/linked/sub/deep.yaml',
      real: 'shared/sub/deep.yaml',
      kind: 'file',
    });
    const listed = listInputFiles(repo, 'providers', YAML)!;
    expect(listed).toEqual([
      { file: 'providers/core.yaml', real: 'providers/core.yaml' },
      { file: 'providers/linked/base.yaml', real: 'shared/base.yaml' },
      { file: 'providers/linked/sub/deep.yaml', real: 'shared/sub/deep.yaml' },
    ]);
    expect(inputPathsOf(listed)).toEqual([
      'providers/core.yaml',
      'providers/linked/base.yaml',
      'providers/linked/sub/deep.yaml',
      'shared/base.yaml',
      'shared/sub/deep.yaml',
    ]);
  });

  // Every way a path can leave the repository or lead nowhere: the error names the path as given.
  const refused: { name: string; plant: (repo: string, outside: string) => void; file: string; message: string }[] = [
    {
      name: 'a link to a file outside',
      plant: (repo, outside) => symlinkSync(path.join(outside, 'secret.yaml'), path.join(repo, 'providers/x.yaml')),
      file: 'providers/x.yaml',
      message: 'input-path: providers/x.yaml is a symbolic link that points outside the repository',
    },
    {
      name: 'a link to /dev/zero',
      plant: (repo) => symlinkSync('/dev/zero', path.join(repo, 'providers/x.yaml')),
      file: 'providers/x.yaml',
      message: 'input-path: providers/x.yaml is a symbolic link that points outside the repository',
    },
    {
      name: 'a folder link outside on the way',
      plant: (repo, outside) => symlinkSync(outside, path.join(repo, 'providers/out')),
      file: 'providers/out/secret.yaml',
      message:
        'input-path: providers/out/secret.yaml is reached through providers/out, a symbolic link that points outside the repository',
    },
    {
      name: 'a dangling link',
      plant: (repo) => symlinkSync('nowhere.yaml', path.join(repo, 'providers/x.yaml')),
      file: 'providers/x.yaml',
      message: 'input-path: providers/x.yaml is a symbolic link that points to nothing (nowhere.yaml does not exist)',
    },
    {
      name: 'a dangling folder link on the way',
      plant: (repo) => symlinkSync('../gone', path.join(repo, 'providers/gone')),
      file: 'providers/gone/x.yaml',
      message:
        'input-path: providers/gone/x.yaml is reached through providers/gone, a symbolic link that points to nothing (../gone does not exist)',
    },
    {
      name: 'a link loop',
      plant: (repo) => {
        symlinkSync('b.yaml', path.join(repo, 'providers/a.yaml'));
        symlinkSync('a.yaml', path.join(repo, 'providers/b.yaml'));
      },
      file: 'providers/a.yaml',
      message: 'input-path: providers/a.yaml is a symbolic link loop',
    },
    {
      name: 'a path that leaves by ..',
      plant: () => {},
      file: '../outside/secret.yaml',
      message: 'input-path: ../outside/secret.yaml is outside the repository',
    },
  ];
  it.each(refused)('refuses $name, naming $file (resolve, read, read sync)', async ({ plant, file, message }) => {
    const { repo, outside } = repository();
    plant(repo, outside);
    expect(refusal(() => resolveInput(repo, file))).toBe(message);
    expect(await refusalOf(() => readInputFile(repo, file))).toBe(message);
    expect(refusal(() => readInputFileSync(repo, file))).toBe(message);
  });

  it('refuses, in a listed folder, a link out or dangling whatever its name, and a link to a folder that holds it', () => {
    const { repo } = repository();
    symlinkSync('/etc', path.join(repo, 'providers/README'));
    expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
      'input-path: providers/README is a symbolic link that points outside the repository',
    );
    rmSync(path.join(repo, 'providers/README'));
    for (const [target, shown] of [
      ['..', 'the repository root'],
      ['.', 'providers'],
    ] as const) {
      symlinkSync(target, path.join(repo, 'providers/loop'));
      expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
        `input-path: providers/loop is a symbolic link to ${shown}, a folder that holds it: reading it would never end`,
      );
      rmSync(path.join(repo, 'providers/loop'));
    }
  });

  it('lists only regular input files: a FIFO or socket with an input name is refused, other names and dot entries are skipped', async () => {
    const { repo } = repository();
    execFileSync('mkfifo', [path.join(repo, 'providers/notes')]);
    writeFileSync(path.join(repo, 'providers/.hidden.yaml'), 'x');
    expect(listInputFiles(repo, 'providers', YAML)).toEqual([
      { file: 'providers/core.yaml', real: 'providers/core.yaml' },
    ]);
    execFileSync('mkfifo', [path.join(repo, 'providers/pipe.yaml')]);
    expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
      'input-path: providers/pipe.yaml is a FIFO (named pipe), not a regular file',
    );
    rmSync(path.join(repo, 'providers/pipe.yaml'));
    await socketAt(path.join(repo, 'providers/socket.yaml'));
    expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
      'input-path: providers/socket.yaml is a socket, not a regular file',
    );
  });

  it('refuses a folder named like an input file (a folder in place of a file), plain or through a link; other folders are walked', () => {
    const { repo } = repository();
    mkdirSync(path.join(repo, 'providers/core-extra.yaml'));
    expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
      'input-path: providers/core-extra.yaml is a folder, not a regular file',
    );
    rmSync(path.join(repo, 'providers/core-extra.yaml'), { recursive: true });
    symlinkSync('../shared', path.join(repo, 'providers/linked.yaml'));
    expect(refusal(() => listInputFiles(repo, 'providers', YAML))).toBe(
      'input-path: providers/linked.yaml is a folder, not a regular file',
    );
    // Every file is an input (templates/): folders are refused only when named like the files, here *.hbs.
    expect(listInputFiles(repo, 'shared', /./, /\.hbs$/)?.map((e) => e.file)).toEqual([
      'shared/base.yaml',
      'shared/sub/deep.yaml',
    ]);
  });

  it('refuses a FIFO, folder, socket or device in place of an input file, naming it and what it is', async () => {
    const { repo } = repository();
    execFileSync('mkfifo', [path.join(repo, 'fifo.yaml')]);
    mkdirSync(path.join(repo, 'folder.yaml'));
    await socketAt(path.join(repo, 'socket.yaml'));
    const expected: Record<string, string> = {
      'fifo.yaml': 'a FIFO (named pipe)',
      'folder.yaml': 'a folder',
      'socket.yaml': 'a socket',
    };
    for (const [file, what] of Object.entries(expected)) {
      expect(await refusalOf(() => readInputFile(repo, file))).toBe(
        `input-path: ${file} is ${what}, not a regular file`,
      );
      expect(refusal(() => readInputFileSync(repo, file))).toBe(`input-path: ${file} is ${what}, not a regular file`);
    }
    expect(await readInputFile(repo, 'missing.yaml')).toBeUndefined();
    expect(listInputFiles(repo, 'missing', YAML)).toBeUndefined();
  });

  it('refuses an input over 32 MiB from its size, before reading it', async () => {
    const { repo } = repository();
    const file = path.join(repo, 'providers/huge.yaml');
    writeFileSync(file, '');
    truncateSync(file, MAX_INPUT_FILE_BYTES + 1); // sparse: nothing is written
    const message = `yaml-limit: providers/huge.yaml is ${MAX_INPUT_FILE_BYTES + 1} bytes, over the ${MAX_INPUT_FILE_BYTES}-byte limit for an input file`;
    expect(await refusalOf(() => readInputFile(repo, 'providers/huge.yaml'))).toBe(message);
    expect(refusal(() => readInputFileSync(repo, 'providers/huge.yaml'))).toBe(message);
    truncateSync(file, MAX_INPUT_FILE_BYTES);
    expect((await readInputFile(repo, 'providers/huge.yaml'))?.bytes.length).toBe(MAX_INPUT_FILE_BYTES);
  });

  it('judges a listed file again when it was swapped after the listing (a FIFO, a link out): no hang, the same refusal', async () => {
    const { repo, outside } = repository();
    const [entry] = listInputFiles(repo, 'providers', YAML)!;
    const file = path.join(repo, 'providers/core.yaml');
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(await refusalOf(() => readListedInput(repo, entry!))).toBe(
      'input-path: providers/core.yaml is a FIFO (named pipe), not a regular file',
    );
    rmSync(file);
    symlinkSync(path.join(outside, 'secret.yaml'), file);
    expect(refusal(() => readListedInputSync(repo, entry!))).toBe(
      'input-path: providers/core.yaml is a symbolic link that points outside the repository',
    );
    rmSync(file);
    expect(await refusalOf(() => readListedInput(repo, entry!))).toBe(
      'input-path: providers/core.yaml does not exist (it was removed while capi-render read the inputs)',
    );
  });
});

describe('records: regular files only, never through a link', () => {
  const lock = (repo: string) => path.join(repo, 'capi-render.lock');
  const refused: {
    name: string;
    plant: (repo: string, outside: string) => Promise<void> | void;
    shown: string;
    message: string;
  }[] = [
    {
      name: 'a link to /dev/zero',
      plant: (repo) => symlinkSync('/dev/zero', lock(repo)),
      shown: 'capi-render.lock',
      message: 'is a symbolic link (to /dev/zero)',
    },
    {
      name: 'a link to a file inside the repository',
      plant: (repo) => symlinkSync('shared/base.yaml', lock(repo)),
      shown: 'capi-render.lock',
      message: 'is a symbolic link (to shared/base.yaml)',
    },
    {
      name: 'a FIFO',
      plant: (repo) => void execFileSync('mkfifo', [lock(repo)]),
      shown: 'capi-render.lock',
      message: 'is a FIFO (named pipe)',
    },
    { name: 'a folder', plant: (repo) => mkdirSync(lock(repo)), shown: 'capi-render.lock', message: 'is a folder' },
    { name: 'a socket', plant: (repo) => socketAt(lock(repo)), shown: 'capi-render.lock', message: 'is a socket' },
  ];
  it.each(refused)(
    'refuses $name in place of the lock with the refusal check prints',
    async ({ plant, shown, message }) => {
      const { repo, outside } = repository();
      rmSync(lock(repo));
      await plant(repo, outside);
      const expected = `output-location: ${shown} ${message}: capi-render reads only the repository's own regular files${message.includes('link') ? ', never through a link' : ''}`;
      expect(await refusalOf(() => readRecordFile(repo, lock(repo), 'lock'))).toBe(expected);
      expect(refusal(() => readRecordFileSync(repo, lock(repo), 'lock'))).toBe(expected);
    },
  );

  it('refuses a record reached through a folder link, even one inside the repository', async () => {
    const { repo } = repository();
    mkdirSync(path.join(repo, 'real-rendered'));
    writeFileSync(path.join(repo, 'real-rendered/.capi-render-owned'), 'dev/x.yaml\n');
    symlinkSync('real-rendered', path.join(repo, 'rendered'));
    const record = path.join(repo, 'rendered/.capi-render-owned');
    expect(await refusalOf(() => readRecordFile(repo, record, 'ownership'))).toBe(
      "output-location: rendered is a symbolic link (to real-rendered): capi-render reads only the repository's own regular files, never through a link",
    );
    expect(refusal(() => refuseIrregularRecordPath(repo, path.join(repo, 'rendered'), { folder: true }))).toMatch(
      /^output-location: rendered is a symbolic link/,
    );
  });

  it('a record swapped for a link or a FIFO after it was listed is refused when opened (O_NOFOLLOW, O_NONBLOCK)', async () => {
    const { repo } = repository();
    rmSync(lock(repo));
    symlinkSync('/dev/zero', lock(repo));
    expect(await refusalOf(() => readRecordFile(repo, lock(repo), 'lock', { listed: true }))).toMatch(
      /^output-location: capi-render.lock is a symbolic link \(to \/dev\/zero\)/,
    );
    rmSync(lock(repo));
    execFileSync('mkfifo', [lock(repo)]);
    expect(refusal(() => readRecordFileSync(repo, lock(repo), 'lock', { listed: true }))).toMatch(
      /^output-location: capi-render.lock is a FIFO \(named pipe\)/,
    );
  });

  it('reads a regular record, returns undefined for a missing one, and refuses one over its limit', async () => {
    const { repo } = repository();
    expect((await readRecordFile(repo, lock(repo), 'lock'))?.toString('utf8')).toBe('kind: Lock\n');
    expect(await readRecordFile(repo, path.join(repo, 'rendered/.capi-render-owned'), 'ownership')).toBeUndefined();
    truncateSync(lock(repo), MAX_LOCK_FILE_BYTES + 1);
    expect(await refusalOf(() => readRecordFile(repo, lock(repo), 'lock'))).toBe(
      `yaml-limit: capi-render.lock is ${MAX_LOCK_FILE_BYTES + 1} bytes, over the ${MAX_LOCK_FILE_BYTES}-byte limit for capi-render.lock`,
    );
  });
});
