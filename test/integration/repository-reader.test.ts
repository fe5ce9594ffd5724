/**
 * One reader for everything capi-render reads back from a repository (src/repository-files.ts),
 * through the CLI:
 *
 * - every INPUT kind × {a link inside the repository, a link outside, a dangling link, a FIFO, a
 *   folder in place, an oversized file}: a link inside renders, the lock's inputFiles records both
 *   the link's path and its target's, and `check` passes; every other case is exit 1 with a first
 *   line naming the path, and nothing changed;
 * - every RECORD (the lock, both ownership records, a rendered file) × {a link to a copy outside, a
 *   FIFO, a link to /dev/zero} × every command that reads a repository, and the no-op launcher: exit 1
 *   with check's refusal naming the record, nothing changed, and no read of /dev/zero (memory stays
 *   flat; the launcher runs under an address-space limit that such a read exceeds).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_FILE_BYTES } from '../../src/repository-files.js';
import { snapshot, touchedPaths, type Snapshot } from '../fuzz/tree-snapshot.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { gitEnv, initRepo } from '../helpers/git.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

/**
 * A small repository holding one file of every input kind: a provider CR, its configSecret and its
 * additional manifests (in providers/ and a sub-folder of it), an environment overlay with a patch
 * file and a base outside providers/, and a user template (the environment is prepared for Argo CD,
 * which renders its Application from that template).
 */
const FILES: Record<string, string> = {
  'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n  - path: ${FIXTURES}repository\n`,
  'providers/core.yaml':
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n  configSecret:\n    name: core-vars\n  additionalManifests:\n    name: core-extra\n',
  'providers/secrets/core-vars.yaml':
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: core-vars\n  namespace: capi-system\nstringData:\n  EXP_MACHINE_POOL: "true"\n',
  'providers/manifests.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: core-extra\n  namespace: capi-system\ndata:\n  manifests: |\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: extra-settings\n      namespace: capi-system\n    data:\n      mode: strict\n',
  'overlays/common/labels.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base-notes\n  namespace: capi-system\ndata:\n  note: from a base\n',
  'overlays/dev/overlay.yaml':
    'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n  - ../common/labels.yaml\npatches:\n  - path: patches/replicas.yaml\ngitops:\n  flavour: argocd\n  argocd:\n    application: true\n    repoURL: https://example.com/repo.git\n',
  'overlays/dev/patches/replicas.yaml':
    'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  deployment:\n    replicas: 2\n',
  'templates/argocd/application.yaml.hbs': readFileSync(
    path.join(REPO_ROOT, 'bundled-templates/argocd/application.yaml.hbs'),
    'utf8',
  ),
};

function writeRepository(dir: string): string {
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** The lstat snapshot of the repository without .git (git refreshes its index on its own). */
function tree(repo: string): Snapshot {
  return new Map([...snapshot(repo)].filter(([p]) => p !== '.git' && !p.startsWith('.git/')));
}

function inputFiles(repo: string): string[] {
  const lock = jsYaml.load(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')) as {
    inputFiles?: { file: string }[];
  };
  return (lock.inputFiles ?? []).map((f) => f.file);
}

const firstLine = (stderr: string) => stderr.split('\n')[0]!;

// ---------------------------------------------------------------------------------------------
// Inputs

interface InputKind {
  name: string;
  /** The repository-relative path planted on. */
  at: string;
  /** A folder: a FIFO, a folder or a size make no sense in its place (it is no file), so those rows are left out. */
  folder?: boolean;
  /** One file below a folder kind, to find in inputFiles under both paths. */
  inside?: string;
}

const INPUT_KINDS: InputKind[] = [
  { name: 'capi-render.yaml', at: 'capi-render.yaml' },
  { name: 'the providers folder', at: 'providers', folder: true, inside: 'core.yaml' },
  { name: 'a sub-folder of providers', at: 'providers/secrets', folder: true, inside: 'core-vars.yaml' },
  { name: 'a provider file', at: 'providers/core.yaml' },
  { name: 'a configSecret file', at: 'providers/secrets/core-vars.yaml' },
  { name: 'an additional-manifests file', at: 'providers/manifests.yaml' },
  { name: 'the overlays folder', at: 'overlays', folder: true, inside: 'dev/overlay.yaml' },
  { name: "an environment's overlay folder", at: 'overlays/dev', folder: true, inside: 'overlay.yaml' },
  { name: 'an overlay.yaml', at: 'overlays/dev/overlay.yaml' },
  { name: 'a patch file', at: 'overlays/dev/patches/replicas.yaml' },
  { name: 'a base named in resources', at: 'overlays/common/labels.yaml' },
  { name: 'the templates folder', at: 'templates', folder: true, inside: 'argocd/application.yaml.hbs' },
  { name: 'a template', at: 'templates/argocd/application.yaml.hbs' },
];

type InputCase = 'link outside' | 'dangling link' | 'FIFO' | 'folder in place' | 'oversized';

/** What each refused case plants at `at`, and the first line it must print. */
const REFUSED: Record<
  InputCase,
  { plant: (repo: string, at: string, outside: string) => void; first: (at: string) => string | RegExp }
> = {
  'link outside': {
    plant: (repo, at, outside) => {
      // The same bytes, outside: only where it is differs.
      const copy = path.join(outside, path.basename(at));
      renameSync(path.join(repo, at), copy);
      symlinkSync(copy, path.join(repo, at));
    },
    first: (at) => `${at}: error[input-path]: ${at} is a symbolic link that points outside the repository`,
  },
  'dangling link': {
    plant: (repo, at) => {
      rmSync(path.join(repo, at), { recursive: true });
      symlinkSync('gone', path.join(repo, at));
    },
    first: (at) => `${at}: error[input-path]: ${at} is a symbolic link that points to nothing (gone does not exist)`,
  },
  FIFO: {
    plant: (repo, at) => {
      rmSync(path.join(repo, at));
      execFileSync('mkfifo', [path.join(repo, at)]);
    },
    first: (at) => `${at}: error[input-path]: ${at} is a FIFO (named pipe), not a regular file`,
  },
  'folder in place': {
    plant: (repo, at) => {
      rmSync(path.join(repo, at));
      mkdirSync(path.join(repo, at));
    },
    first: (at) => `${at}: error[input-path]: ${at} is a folder, not a regular file`,
  },
  oversized: {
    // Sparse: 32 MiB + 1 byte without writing them.
    plant: (repo, at) => truncateSync(path.join(repo, at), MAX_INPUT_FILE_BYTES + 1),
    first: (at) =>
      `${at}: error[yaml-limit]: ${at} is ${MAX_INPUT_FILE_BYTES + 1} bytes, over the ${MAX_INPUT_FILE_BYTES}-byte limit for an input file`,
  },
};

const REFUSED_ROWS = INPUT_KINDS.flatMap((kind) =>
  (Object.keys(REFUSED) as InputCase[])
    .filter((c) => !kind.folder || c === 'link outside' || c === 'dangling link')
    .map((c) => ({ kind: kind.name, at: kind.at, case: c })),
);

describe('every input kind, one rule', () => {
  const base = suiteTempDir();
  const prepared = path.join(base, 'prepared');
  const cache = path.join(base, 'cache');
  const env = { CAPI_RENDER_CACHE_DIR: cache };
  /** A fresh copy of the prepared (built) repository, and a folder beside it. */
  const copy = () => {
    const root = tempDir();
    cpSync(prepared, path.join(root, 'repo'), { recursive: true });
    mkdirSync(path.join(root, 'outside'));
    return { repo: path.join(root, 'repo'), outside: path.join(root, 'outside') };
  };

  beforeAll(async () => {
    writeRepository(prepared);
    const built = await runCli(['build'], { cwd: prepared, env });
    expect(built.code, built.stderr).toBe(0);
    // Every kind is an input the lock records, the template included.
    expect(inputFiles(prepared)).toEqual(Object.keys(FILES).sort());
  });

  it.each(INPUT_KINDS)(
    '$name linked inside the repository: renders, inputFiles holds both paths, check passes',
    async ({ at, folder, inside }) => {
      const { repo } = copy();
      const target = `linked/${path.basename(at)}`;
      mkdirSync(path.join(repo, 'linked'));
      renameSync(path.join(repo, at), path.join(repo, target));
      symlinkSync(path.relative(path.dirname(path.join(repo, at)), path.join(repo, target)), path.join(repo, at));
      const built = await runCli(['build'], { cwd: repo, env });
      expect(built.code, built.stderr).toBe(0);
      const [named, real] = folder ? [`${at}/${inside}`, `${target}/${inside}`] : [at, target];
      expect(inputFiles(repo)).toEqual(expect.arrayContaining([named, real]));
      const checked = await runCli(['check'], { cwd: repo, env });
      expect(checked.code, checked.stderr).toBe(0);
    },
  );

  it.each(REFUSED_ROWS)(
    '$kind, $case: exit 1, the first line names it, nothing changed',
    async ({ at, case: which }) => {
      const { repo, outside } = copy();
      REFUSED[which].plant(repo, at, outside);
      const before = tree(repo);
      const r = await runCli(['build'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(1);
      const expected = REFUSED[which].first(at);
      expect(firstLine(r.stderr)).toBe(expected);
      expect(touchedPaths(before, tree(repo))).toEqual([]);
    },
  );

  it('a link retargeted to a copy with the same bytes is a change: check names both targets, the next build is no stamped no-op', async () => {
    const { repo } = copy();
    mkdirSync(path.join(repo, 'linked'));
    renameSync(path.join(repo, 'overlays/dev/patches/replicas.yaml'), path.join(repo, 'linked/a.yaml'));
    cpSync(path.join(repo, 'linked/a.yaml'), path.join(repo, 'linked/b.yaml'));
    symlinkSync('../../../linked/a.yaml', path.join(repo, 'overlays/dev/patches/replicas.yaml'));
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    expect((await runCli(['build'], { cwd: repo, env })).stderr).toMatch(/^unchanged since the last build/);
    rmSync(path.join(repo, 'overlays/dev/patches/replicas.yaml'));
    symlinkSync('../../../linked/b.yaml', path.join(repo, 'overlays/dev/patches/replicas.yaml'));
    const checked = await runCli(['check'], { cwd: repo, env });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('input files changed: linked/a.yaml (removed), linked/b.yaml (added)');
    const rebuilt = await runCli(['build'], { cwd: repo, env });
    expect(rebuilt.stderr).toContain('capi-render.lock updated');
    expect(inputFiles(repo)).toEqual(expect.arrayContaining(['overlays/dev/patches/replicas.yaml', 'linked/b.yaml']));
    expect(inputFiles(repo)).not.toContain('linked/a.yaml');
  });
});

// ---------------------------------------------------------------------------------------------
// Records

const RECORDS = [
  'capi-render.lock',
  'rendered/.capi-render-owned',
  'gitops/.capi-render-owned',
  'rendered/dev/kustomization.yaml',
];

const PLANTS: Record<string, (file: string, outside: string) => void> = {
  'a link to a copy outside': (file, outside) => {
    const copy = path.join(outside, path.basename(file));
    renameSync(file, copy);
    symlinkSync(copy, file);
  },
  'a FIFO': (file) => {
    rmSync(file);
    execFileSync('mkfifo', [file]);
  },
  'a link to /dev/zero': (file) => {
    rmSync(file);
    symlinkSync('/dev/zero', file);
  },
};

/** Every command that reads a repository (the no-op launcher is spawned below). */
const COMMANDS: string[][] = [
  ['build'],
  ['build', '--frozen'],
  ['build', '--stdout', '--env', 'dev'],
  ['check'],
  ['upgrade', '--latest-patch'],
  ['diff'],
  ['plan'],
  ['report', '--offline'],
  ['inputs', '--env', 'dev'],
  ['images'],
  ['variables'],
  ['sbom', '--env', 'dev'],
  ['rbac', '--env', 'dev'],
  ['cmp-generate', '--env', 'dev'],
];

/** 3 GiB of address space: enough for the CLI, not for the 4 GB a read of /dev/zero grew to. */
const ADDRESS_SPACE_KIB = 3 * 1024 * 1024;
const LAUNCHER = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

/** The installed executable (launcher, then the no-op bundle, then the CLI) as a child process. */
function launch(
  repo: string,
  env: Record<string, string>,
  argv: string[],
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    'sh',
    ['-c', `ulimit -v ${ADDRESS_SPACE_KIB} && exec "$0" "$@"`, process.execPath, LAUNCHER, ...argv],
    { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const RECORD_ROWS = RECORDS.flatMap((record) => Object.keys(PLANTS).map((plant) => ({ record, plant })));

describe('every record, every command: regular files only, never through a link', () => {
  // One built repository for the whole table, each row planting and then restoring one record: its
  // stamp stays valid, so the spawned launcher's no-op path (which reads the lock itself) is live.
  const base = suiteTempDir();
  const repo = path.join(base, 'repo');
  const outside = path.join(base, 'outside');
  const env = { ...gitEnv(path.join(base, 'home')), CAPI_RENDER_CACHE_DIR: path.join(base, 'cache') };

  beforeAll(async () => {
    writeRepository(repo);
    mkdirSync(outside);
    const built = await runCli(['build'], { cwd: repo, env });
    expect(built.code, built.stderr).toBe(0);
    initRepo(repo, env);
    const noop = launch(repo, env, ['build']);
    expect(noop.stderr).toMatch(/^unchanged since the last build/);
  });

  it.each(RECORD_ROWS)(
    '$record replaced by $plant: every command exits 1 naming it, changes nothing, reads nothing of it',
    async ({ record, plant }) => {
      const file = path.join(repo, record);
      const saved = readFileSync(file);
      PLANTS[plant]!(file, outside);
      try {
        const before = tree(repo);
        const peak = process.resourceUsage().maxRSS;
        const expected = `${record}: error[output-location]: ${record} is a `;
        for (const argv of COMMANDS) {
          const r = await runCli(argv, { cwd: repo, env });
          const command = argv.join(' ');
          expect(r.code, `${command}: ${r.stderr}`).toBe(1);
          expect(firstLine(r.stderr), command).toContain(expected);
          expect(r.stdout, command).toBe('');
        }
        // maxRSS is in KiB: a read of /dev/zero to its end would have taken gigabytes.
        expect(process.resourceUsage().maxRSS - peak).toBeLessThan(512 * 1024);
        const launched = launch(repo, env, ['build']);
        expect(launched.status, launched.stderr).toBe(1);
        expect(firstLine(launched.stderr)).toContain(expected);
        expect(touchedPaths(before, tree(repo))).toEqual([]);
      } finally {
        rmSync(file);
        writeFileSync(file, saved);
      }
    },
  );

  it('leaves the repository a stamped no-op after the table (the launcher answered from its stamp all along)', () => {
    expect(launch(repo, env, ['build']).stderr).toMatch(/^unchanged since the last build/);
  });
});
