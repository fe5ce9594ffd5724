/**
 * Every record proves itself, through the CLI: each way a one-line edit in a pull request (or a
 * damaged output folder, or a hostile registry) used to make a record decide on its own, and each
 * class the record property test (test/records/) found, as a row — the command's exit code, its
 * first stderr line (the file and line, or the object, it names) and `git status` afterwards, which
 * shows exactly what the command may change and nothing else.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startBodyServer, type BodyServer } from '../helpers/body-server.js';
import { createTestSigstore, signImageLegacy, type KeySigner } from '../helpers/cosign-signatures.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { gitEnv, initRepo } from '../helpers/git.js';
import { execFileSync } from 'node:child_process';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, copyExample, makeRepo } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const skipRegistry = skipWithout(registryUnavailableReason(), 'the rows with a registry');

interface Row {
  name: string;
  /** Makes the repository (committed to git as it is then), and edits it afterwards as the pull request does. */
  repo: () => string;
  edit?: (repo: string) => void;
  /** Commands run one after the other; each but the last must exit 0. */
  before?: string[][];
  argv: string[];
  code: 0 | 1;
  /** The first line of stderr (a failure), or a line stderr must hold (a success). */
  first: RegExp;
  /** `git status --porcelain` afterwards (the edit itself included), sorted. */
  status: string[];
}

const lock = (repo: string) => path.join(repo, 'capi-render.lock');
const editFile = (file: string, from: string | RegExp, to: string) =>
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(from, () => to),
  );
const example = () => copyExample({ committed: true });
/** `rm -rf rendered gitops`. */
const dropOutput = (repo: string) => {
  rmSync(path.join(repo, 'rendered'), { recursive: true });
  rmSync(path.join(repo, 'gitops'), { recursive: true });
};
/** An artifact's url edited in the lock. */
const editUrl = (repo: string) =>
  editFile(
    lock(repo),
    'url: cluster-api/v1.12.0/core-components.yaml',
    'url: https://evil.example.com/core-components.yaml',
  );

async function runRow(row: Row, env: Record<string, string>): Promise<void> {
  const repo = row.repo();
  const gitenv = { ...gitEnv(tempDir()), ...env };
  initRepo(repo, gitenv);
  row.edit?.(repo);
  for (const argv of row.before ?? []) {
    const r = await runCli(argv, { cwd: repo, env: gitenv });
    expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  }
  const r = await runCli(row.argv, { cwd: repo, env: gitenv });
  expect(r.code, r.stderr).toBe(row.code);
  if (row.code === 1) expect(r.stderr.split('\n')[0]).toMatch(row.first);
  else expect(r.stderr).toMatch(row.first);
  expect(r.stderr).not.toContain('internal error');
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: repo,
    env: gitenv,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean)
    .sort();
  expect(status).toEqual([...row.status].sort());
}

const rows: Row[] = [
  {
    name: 'a lock edit bypassed the removal guard: providers/docker.yaml removed and dev’s block deleted from the lock',
    repo: example,
    edit: (repo) => {
      rmSync(path.join(repo, 'providers/docker.yaml'));
      editFile(lock(repo), /^- name: dev\n[\s\S]*?(?=^- name: prod$)/m, '');
    },
    argv: ['build', '--env', 'dev'],
    code: 1,
    first:
      /^error\[removal\]: environment dev: 10 CRDs are no longer rendered \(devclusters\.infrastructure\.cluster\.x-k8s\.io, /,
    status: [' D providers/docker.yaml', ' M capi-render.lock'],
  },
  {
    name: 'a lock edit bypassed the removal guard: only the CAPD lines deleted from dev’s crds:',
    repo: example,
    edit: (repo) => {
      rmSync(path.join(repo, 'providers/docker.yaml'));
      editFile(lock(repo), /^ {2}- (?:dev|docker)\S*\.infrastructure\.cluster\.x-k8s\.io\n/gm, '');
    },
    argv: ['build', '--env', 'dev'],
    code: 1,
    first: /^error\[removal\]: environment dev: 10 CRDs are no longer rendered/,
    status: [' D providers/docker.yaml', ' M capi-render.lock'],
  },
  {
    name: 'a partial build left an environment unrepaired: rm -rf rendered gitops, build --shard 1/2, then a plain build repairs everything',
    repo: example,
    edit: dropOutput,
    before: [['build', '--shard', '1/2']],
    argv: ['build'],
    code: 0,
    first: /^rendered prod: /m,
    status: [],
  },
  {
    name: 'the same, then --env prod',
    repo: example,
    edit: dropOutput,
    before: [['build', '--shard', '1/2']],
    argv: ['build', '--env', 'prod'],
    code: 0,
    first: /^rendered prod: /m,
    status: [],
  },
  {
    name: 'build read what check refuses: capi-render.lock a link to /dev/zero',
    repo: example,
    edit: (repo) => {
      rmSync(lock(repo));
      symlinkSync('/dev/zero', lock(repo));
    },
    argv: ['build', '--frozen'],
    code: 1,
    first: /^capi-render\.lock: error\[output-location\]: capi-render\.lock is a symbolic link \(to \/dev\/zero\)/,
    status: [' T capi-render.lock'],
  },
  {
    name: 'an overlay file linked outside the repository rendered unrecorded',
    repo: example,
    edit: (repo) => {
      const outside = path.join(tempDir(), 'overlay.yaml');
      writeFileSync(outside, readFileSync(path.join(repo, 'overlays/dev/overlay.yaml')));
      rmSync(path.join(repo, 'overlays/dev/overlay.yaml'));
      symlinkSync(outside, path.join(repo, 'overlays/dev/overlay.yaml'));
    },
    argv: ['check'],
    code: 1,
    first:
      /^overlays\/dev\/overlay\.yaml: error\[input-path\]: overlays\/dev\/overlay\.yaml is a symbolic link that points outside the repository/,
    status: [' T overlays/dev/overlay.yaml'],
  },
  {
    name: 'a line of the ownership record duplicated: check names the record, build rewrites it',
    repo: example,
    edit: (repo) =>
      editFile(
        path.join(repo, 'rendered/.capi-render-owned'),
        /^dev\/kustomization\.yaml\n/m,
        'dev/kustomization.yaml\ndev/kustomization.yaml\n',
      ),
    argv: ['check'],
    code: 1,
    first: /^rendered\/\.capi-render-owned: error\[drift\]: differs from what the inputs render/,
    status: [' M rendered/.capi-render-owned'],
  },
  {
    name: 'a line of the ownership record deleted: the file, identical to what the build writes, is taken back',
    repo: example,
    edit: (repo) => editFile(path.join(repo, 'rendered/.capi-render-owned'), /^dev\/kustomization\.yaml\n/m, ''),
    argv: ['build'],
    code: 0,
    first: /rendered: 0 written, 249 unchanged, 0 removed/,
    status: [],
  },
  {
    name: 'a lock entry of the wrong shape: refused at its line',
    repo: example,
    edit: (repo) => editFile(lock(repo), /^ {4}source: local:bootstrap-kubeadm\n/m, ''),
    argv: ['build'],
    code: 1,
    first:
      /^capi-render\.lock:13:5: error\[lock\]: capi-render\.lock has a provider entry of environment dev without provider, version and source/,
    status: [' M capi-render.lock'],
  },
  {
    name: 'an artifact’s url edited: check says the lock is stale',
    repo: example,
    edit: editUrl,
    argv: ['check'],
    code: 1,
    first: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale:/,
    status: [' M capi-render.lock'],
  },
  {
    name: 'the same, then build: the url is derived again',
    repo: example,
    edit: editUrl,
    argv: ['build'],
    code: 0,
    first: /capi-render\.lock updated/,
    status: [],
  },
];

describe('every record proves itself, through the CLI', () => {
  it.each(rows)('$name', async (row) => {
    await runRow(row, { CAPI_RENDER_CACHE_DIR: tempDir() });
  });
});

describe('every record proves itself, through the CLI: the cache', () => {
  it('a byte changed in every parsed-artifact and parsed-lock entry of the cache: the build renders from the texts, repairs a hand edit, and check passes', async () => {
    const repo = example();
    const cache = tempDir();
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: cache };
    initRepo(repo, env);
    expect((await runCli(['build', '--force'], { cwd: repo, env })).code).toBe(0);
    for (const folder of readdirSync(cache).filter((f) => /^(parsed2|lock)-v8-/.test(f))) {
      for (const name of readdirSync(path.join(cache, folder))) {
        const file = path.join(cache, folder, name);
        const bytes = readFileSync(file);
        bytes[Math.floor(bytes.length / 2)]! ^= 1;
        writeFileSync(file, bytes);
      }
    }
    const edited = 'rendered/prod/cluster-api/deployment-capi-controller-manager.yaml';
    editFile(path.join(repo, edited), /replicas: \d+/, 'replicas: 7');
    const build = await runCli(['build'], { cwd: repo, env });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain(
      `repaired (edited by hand since the last build; the inputs render otherwise): ${edited}`,
    );
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, env, encoding: 'utf8' })).toBe('');
    expect((await runCli(['check'], { cwd: repo, env })).code).toBe(0);
  });
});

describe.skipIf(skipRegistry)('every record proves itself, through the CLI: images', () => {
  const dir = suiteTempDir('capi-render-records-cli-');
  let registry: TestRegistry;
  let hostile: BodyServer;
  let key: KeySigner;
  let signed: string;
  let unsigned: string;
  beforeAll(async () => {
    [registry, hostile] = await Promise.all([startRegistry(), startBodyServer()]);
    key = (await createTestSigstore(path.join(dir, 'sigstore'))).key();
    signed = (await pushTestImage(registry.host, 'capi/cluster-api-controller', 'v1.12.0')).digest;
    await signImageLegacy(registry.host, 'capi/cluster-api-controller', signed, key);
    unsigned = (await pushTestImage(registry.host, 'capi/cluster-api-controller', 'unsigned', { layers: 3 })).digest;
    await pushTestImage(registry.host, 'mirror/cluster-api-controller', 'v1.12.0');
  });
  afterAll(async () => {
    await Promise.all([registry?.stop(), hostile?.close()]);
  });

  /** One core provider pulled from `repository`, pinned, with `rules` (YAML list items). */
  const pinned =
    (repository: string, rules: string, host = registry.host) =>
    () => {
      const config = `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimages:\n  all: {repository: ${host}/${repository}}\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${host}]\n${rules ? `  verify:\n${rules}` : ''}`;
      const repo = makeRepo(
        { 'capi-render.yaml': config, 'providers/core.yaml': CORE() },
        path.join(dir, `repo-${Math.random().toString(36).slice(2)}`),
      );
      mkdirSync(path.join(repo, 'keys'), { recursive: true });
      writeFileSync(path.join(repo, 'keys/cosign.pub'), key.publicKeyPem);
      return repo;
    };
  const keyRule = '    - images: "registry.k8s.io/cluster-api/*"\n      key: keys/cosign.pub\n';
  const builtFirst = (make: () => string) => async () => {
    const repo = make();
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    return repo;
  };
  const lockLine = (repo: string) =>
    readFileSync(lock(repo), 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith('- image: ')) + 1;

  it('a locked digest edited to an unsigned image: check --offline and build --frozen refuse at the lock line with no registry, build at the same line', async () => {
    const repo = await builtFirst(pinned('capi', keyRule))();
    const line = lockLine(repo);
    for (const [argv, first] of [
      [
        ['check', '--offline'],
        new RegExp(
          `^capi-render\\.lock:${line}:1: error\\[lock\\]: image .*@${unsigned}: capi-render\\.lock keeps signature evidence that does not verify \\(signature is for another digest`,
        ),
      ],
      [
        ['build', '--frozen', '--offline'],
        new RegExp(
          `^capi-render\\.lock:${line}:1: error\\[lock\\]: image .*@${unsigned}: capi-render\\.lock keeps signature evidence that does not verify`,
        ),
      ],
      [
        ['build'],
        new RegExp(
          `^capi-render\\.lock:${line}:1: error\\[image\\]: image .*@${unsigned}: imagePolicy\\.verify\\[0\\] \\(key keys/cosign\\.pub\\): no signature found`,
        ),
      ],
    ] as const) {
      await runRow(
        {
          name: argv.join(' '),
          repo: () => repo,
          edit: (r) => editFile(lock(r), `digest: ${signed}`, `digest: ${unsigned}`),
          argv: [...argv],
          code: 1,
          first,
          status: [' M capi-render.lock'],
        },
        { CAPI_RENDER_CACHE_DIR: tempDir() },
      );
      rmSync(path.join(repo, '.git'), { recursive: true, force: true });
      editFile(lock(repo), `digest: ${unsigned}`, `digest: ${signed}`);
    }
  });

  it('a rule written for the released names, images moved to a mirror where they are unsigned: no longer passes in silence', async () => {
    await runRow(
      {
        name: 'mirror',
        repo: pinned('mirror', keyRule),
        argv: ['build'],
        code: 1,
        first:
          /^error\[image\]: image \S+\/mirror\/cluster-api-controller:v1\.12\.0@sha256:[0-9a-f]{64}: imagePolicy\.verify\[0\] \(key keys\/cosign\.pub\): no signature found/,
        status: [],
      },
      { CAPI_RENDER_CACHE_DIR: tempDir() },
    );
  });

  it('a rule that matches no image the environment runs: an error at its line', async () => {
    const rules = `${keyRule}    - images: "quay.io/jetstack/cert-manager-*"\n      key: keys/cosign.pub\n`;
    await runRow(
      {
        name: 'unmatched',
        repo: pinned('capi', rules),
        argv: ['build'],
        code: 1,
        first:
          /^capi-render\.yaml:15:\d+: error\[config\]: imagePolicy\.verify\[1\] \(images "quay\.io\/jetstack\/cert-manager-\*"\) matches no image this environment runs/,
        status: [],
      },
      { CAPI_RENDER_CACHE_DIR: tempDir() },
    );
  });

  it('a registry answering a manifest with an endless body: one line naming the image and the limit', async () => {
    hostile.handle((request: IncomingMessage) =>
      request.method === 'GET' && request.url?.includes('/manifests/')
        ? { headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }, body: { kind: 'endless' } }
        : { status: 404 },
    );
    await runRow(
      {
        name: 'endless',
        repo: pinned('capi', '', hostile.host),
        argv: ['build'],
        code: 1,
        first:
          /^error\[fetch\]: image \S+\/capi\/cluster-api-controller:v1\.12\.0: manifest v1\.12\.0 from registry \S+: the answer is larger than the 4 MiB limit/,
        status: [],
      },
      { CAPI_RENDER_CACHE_DIR: tempDir() },
    );
  });
});
