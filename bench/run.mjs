#!/usr/bin/env node
/**
 * npm run bench — capi-render against `kubectl kustomize` on the same work, side by side, offline,
 * on the real v1.12.0 fixtures (core, kubeadm bootstrap + control plane, CAPD, cert-manager v1.19.4),
 * uncompressed into the work folder as their projects publish them, so both tools read the same files.
 *
 *  1. one environment: `capi-render build` vs `kubectl kustomize` over an equivalent kustomize tree
 *     (the same release files, the same Deployment patch and image override), built by this script,
 *     that yields the same objects;
 *  2. 10, 50 and 100 generated environments: one build vs as many kustomize builds;
 *  3. a no-op rebuild of 100 environments;
 *  4. the floor: parsing every input artifact once and serialising every output object (no reuse)
 *     with the fastest YAML path available here (js-yaml);
 *  5. fleets whose environments really differ: 100 environments that each set their own
 *     CAPI_DIAGNOSTICS_ADDRESS vs 100 kustomize builds given the same values through a patch, with a
 *     warm and with an empty cache; 1000 such environments (capi-render only) against the floor and
 *     against 10× its own 100-environment time; 10,000 (one run) against 10× the 1000-environment time
 *     of the same run, with its peak memory and cache size;
 *  6. peak memory (max RSS) of each, and the cache folder's size after each capi-render case;
 *  7. `import --from` of a cluster dump of 20k objects as a `---` stream (one document per object)
 *     against the same objects as one `kind: List` (reading the stream was once quadratic);
 *  8. image pinning: 100 environments with imagePolicy.pinDigests and a warm lock (every
 *     digest locked: no registry) against the same build without pinning; and a cold lock against
 *     a local registry (Debian's docker-registry, when installed), each distinct image resolved once.
 * Every case timed against kustomize first checks that both produced the same objects (parsed,
 * canonical JSON, sorted by apiVersion/kind/namespace/name: ./same-objects.mjs); the kustomize tree
 * does clusterctl's work too — labels, the cert-manager annotation, `$$` escapes, the inventory
 * (./kustomize-base.mjs). A case whose objects differ prints no ratio and fails the run.
 * Prints medians, ratios, each row's target and the exact commands, then the targets missed;
 * `--check` (npm run bench -- --check) exits 1 when one still is after a second look: a row whose
 * timing target (a time, or a ratio of times) missed in the table's pass is measured again, its case
 * and its comparison alternating round after round (up to 5 rounds, fewer for the rows whose rounds
 * take minutes), and judged on the medians of the pooled rounds (./noise-aware.mjs, via
 * ./bench-table.mjs); peak memory, cache size and request counts are judged as measured.
 * Environment: BENCH_RUNS (default 3) for more samples; BENCH_SKIP_1000=1 leaves out the 1000- and
 * 10,000-environment rows (the latter is judged against the former), BENCH_SKIP_10000=1 the
 * 10,000-environment row alone (~100 s); BENCH_ONLY=pinning runs the rows of 8 alone,
 * BENCH_ONLY=fleet the distinct-values fleets of 5 (100, 1000 and 10,000 environments) alone,
 * BENCH_ONLY=first the two one-environment rows of 1 alone.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import { writeKustomizeBase } from './kustomize-base.mjs';
import { differenceBetween } from './same-objects.mjs';
import { atMost, benchTable, formatMs, ratioAtMost, target, timeAtMost } from './bench-table.mjs';
import { median } from './noise-aware.mjs';
import { realProviderRows } from './real-providers.mjs';
import { plainReleases, writeBenchProviders } from './bench-repo.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const work = mkdtempSync(path.join(os.tmpdir(), 'capi-render-bench-'));
/** The release fixtures as published (uncompressed), read by capi-render and kustomize alike. */
const FIXTURES = plainReleases(path.join(ROOT, 'test/fixtures/repository'), path.join(work, 'releases'));

/**
 * The package as npm ships it (package.json `files`), copied into the work folder with node_modules
 * linked: the bench measures the build it started with, and a rebuild of dist/ in the same checkout
 * during the run (another build, a test run) cannot remove or swap the CLI under it.
 */
function snapshotPackage() {
  if (!existsSync(path.join(ROOT, 'dist/bin/capi-render.js'))) {
    console.error('build first: npm run build');
    process.exit(1);
  }
  const pkg = path.join(work, 'package');
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const entry of ['package.json', ...manifest.files])
    cpSync(path.join(ROOT, entry), path.join(pkg, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
  return pkg;
}
const PACKAGE = snapshotPackage();
const CLI = path.join(PACKAGE, 'dist/bin/capi-render.js');
const commands = [];

const ARTIFACTS = [
  ['cert-manager', 'v1.19.4', 'cert-manager.yaml'],
  ['cluster-api', 'v1.12.0', 'core-components.yaml'],
  ['bootstrap-kubeadm', 'v1.12.0', 'bootstrap-components.yaml'],
  ['control-plane-kubeadm', 'v1.12.0', 'control-plane-components.yaml'],
  ['infrastructure-docker', 'v1.12.0', 'infrastructure-components-development.yaml'],
];
const REGISTRY = (i) => `registry-${i % 4}.example.com/capi`;
const REPLICAS = (i) => (i % 3) + 1;
/** The value each environment of a distinct-values fleet sets. */
const ADDRESS = (i) => `:${8000 + i}`;

function artifactText(label, version, file) {
  const plain = path.join(FIXTURES, label, version, file);
  return existsSync(plain) ? readFileSync(plain, 'utf8') : gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
}

/** Runs a command; returns wall ms and max RSS (KiB) when /usr/bin/time is there. */
function timed(cmd, args, cwd, cacheDir = path.join(work, 'cache')) {
  const full = TIME ? [TIME, ['-f', '%M', cmd, ...args]] : [cmd, args];
  const start = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, NO_COLOR: '1', CAPI_RENDER_CACHE_DIR: cacheDir },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${r.stderr}`);
  const rss = TIME ? Number(r.stderr.trim().split('\n').at(-1)) : NaN;
  return { ms, rss };
}

/**
 * A case's figures from its samples: the median time and the largest peak, plus `extra` — there,
 * the measuring functions put `once`, which takes one more sample of the case for a re-measure
 * (bench-table.mjs).
 */
function summary(samples, extra = {}) {
  return { ms: median(samples.map((s) => s.ms)), rss: Math.max(...samples.map((s) => s.rss)), ...extra };
}

// ---- inputs -----------------------------------------------------------------------------------

/**
 * The name of environment `i` of `envs`: zero-padded to four digits, or to as many as `envs` has, so
 * that names sort in number order in every fleet (env-0042 of 100, env-00042 of 10,000).
 */
const envName = (i, envs) => `env-${String(i).padStart(Math.max(4, String(envs).length), '0')}`;

function capiRepo(name, envs, { distinct = false } = {}) {
  const dir = path.join(work, name);
  writeBenchProviders(dir, FIXTURES);
  for (let i = 0; i < envs; i++) {
    const env = path.join(dir, 'overlays', envName(i, envs));
    mkdirSync(env, { recursive: true });
    writeFileSync(
      path.join(env, 'overlay.yaml'),
      distinct
        ? `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: "${ADDRESS(i)}"\n`
        : `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: ${REPLICAS(i)}}}\nimages:\n  all:\n    repository: ${REGISTRY(i)}\n`,
    );
  }
  return dir;
}

/**
 * The clusterctl inventory capi-render writes (the Provider CRD and one Provider per provider), which
 * a kustomize user commits as files: taken from one unmeasured build of a one-environment repository.
 */
let inventoryText;
function kustomizeInventory() {
  if (inventoryText === undefined) {
    const repo = capiRepo('inventory-source', 1);
    timed(process.execPath, [CLI, 'build'], repo, path.join(work, 'cache-inventory'));
    const env = path.join(repo, 'rendered', 'env-0000');
    const docs = [];
    for (const component of readdirSync(env, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()) {
      for (const f of readdirSync(path.join(env, component)).sort()) {
        if (f.startsWith('provider-') || f === 'customresourcedefinition-providers.clusterctl.cluster.x-k8s.io.yaml')
          docs.push(readFileSync(path.join(env, component, f), 'utf8'));
      }
    }
    inventoryText = docs.map((d) => `---\n${d}`).join('');
  }
  return inventoryText;
}

/** The release files as the kustomize base of the bench (./kustomize-base.mjs): one folder per release. */
function kustomizeBase(base) {
  return writeKustomizeBase(
    base,
    ARTIFACTS.map(([label, version, file]) => [label, artifactText(label, version, file)]),
    kustomizeInventory(),
    'v1.19.4',
  );
}

/** The same work for kustomize: the base (kustomizeBase), a patch and image overrides per environment. */
function kustomizeTrees(name, envs) {
  const base = path.join(work, name, 'base');
  const images = new Set();
  for (const text of kustomizeBase(base).values())
    for (const m of text.matchAll(/^\s*image: "?([^\s:@"]+)/gm)) images.add(m[1]);
  const dirs = [];
  for (let i = 0; i < envs; i++) {
    const dir = path.join(work, name, `env-${String(i).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    const imageList = [...images]
      .sort()
      .map((img) => `- name: ${img}\n  newName: ${REGISTRY(i)}/${img.split('/').at(-1)}\n`)
      .join('');
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      `resources:\n- ../base\npatches:\n- target: {kind: Deployment, name: capi-controller-manager}\n  patch: |-\n    - {op: replace, path: /spec/replicas, value: ${REPLICAS(i)}}\nimages:\n${imageList}`,
    );
    dirs.push(dir);
  }
  return dirs;
}

/**
 * The distinct-values fleet for kustomize: the same base (kustomizeBase) and, per environment, a JSON patch that sets that environment's --diagnostics-address on each provider
 * Deployment — the value capi-render substitutes.
 */
function kustomizeDistinctTrees(name, envs) {
  const base = path.join(work, name, 'base');
  const targets = [];
  for (const text of kustomizeBase(base).values()) {
    for (const doc of jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA })) {
      if (doc?.kind !== 'Deployment') continue;
      doc.spec.template.spec.containers.forEach((c, ci) => {
        const ai = (c.args ?? []).findIndex((a) => a.startsWith('--diagnostics-address='));
        if (ai >= 0) targets.push({ name: doc.metadata.name, path: `/spec/template/spec/containers/${ci}/args/${ai}` });
      });
    }
  }
  const dirs = [];
  for (let i = 0; i < envs; i++) {
    const dir = path.join(work, name, `env-${String(i).padStart(4, '0')}`);
    mkdirSync(dir, { recursive: true });
    const patches = targets
      .map(
        (t) =>
          `- target: {kind: Deployment, name: ${t.name}}\n  patch: |-\n    - {op: replace, path: ${t.path}, value: "--diagnostics-address=${ADDRESS(i)}"}\n`,
      )
      .join('');
    writeFileSync(path.join(dir, 'kustomization.yaml'), `resources:\n- ../base\npatches:\n${patches}`);
    dirs.push(dir);
  }
  return { dirs, patched: targets.length };
}

/** Bytes of every file under `dir` (the cache folder's size). */
function folderBytes(dir) {
  let total = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += statSync(p).size;
    }
  };
  if (existsSync(dir)) walk(dir);
  return total;
}

// ---- image pinning -------------------------------------------------------------------------

/** Every image reference of a rendered tree (containers and cert-manager's solver argument). */
function renderedImages(dir) {
  const out = new Set();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml'))
        for (const m of readFileSync(p, 'utf8').matchAll(
          /(?:image: |--acme-http01-solver-image=)["']?([^\s"'@]+)["']?$/gm,
        ))
          out.add(m[1]);
    }
  };
  walk(dir);
  return [...out].sort();
}

/**
 * The 100-environment fleet with pinning on and every digest already in the lock (made-up digests
 * written into the lock of an unpinned build): the build pins from the lock alone, --offline.
 */
function pinnedWarmLock(unpinnedRepo) {
  const repo = path.join(work, 'pinned-warm-100');
  rmSync(repo, { recursive: true, force: true });
  execFileSync('cp', ['-r', unpinnedRepo, repo]);
  timed(process.execPath, [CLI, 'build'], repo);
  const lock = jsYaml.load(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'));
  const digest = (ref) => `sha256:${createHash('sha256').update(ref).digest('hex')}`;
  const all = new Set();
  for (const env of lock.environments) {
    env.images = renderedImages(path.join(repo, 'rendered', env.name));
    for (const i of env.images) all.add(i);
  }
  lock.images = [...all].sort().map((image) => ({ image, digest: digest(image) }));
  const lockText = jsYaml.dump(lock, { lineWidth: -1, noArrayIndent: true });
  // The same build side by side, without and with pinning: the lock's digests stay unused without it.
  const config = path.join(repo, 'capi-render.yaml');
  const plain = readFileSync(config, 'utf8');
  const pinnedConfig = `${plain}imagePolicy:\n  pinDigests: true\n`;
  const build = (text) => {
    writeFileSync(config, text);
    for (const p of ['rendered', 'gitops']) rmSync(path.join(repo, p), { recursive: true, force: true });
    writeFileSync(path.join(repo, 'capi-render.lock'), lockText);
    return timed(process.execPath, [CLI, 'build', '--offline', '--force'], repo);
  };
  /** One round: unpinned, then pinned. */
  const round = () => {
    const unpinned = build(plain);
    return { unpinned, pinned: build(pinnedConfig) };
  };
  const rounds = Array.from({ length: RUNS }, round);
  commands.push(
    `(cd ${repo} && rm -rf rendered gitops && node ${CLI} build --offline --force)   # with and without imagePolicy.pinDigests, every digest in capi-render.lock`,
  );
  return {
    ...summary(rounds.map((r) => r.pinned)),
    unpinned: median(rounds.map((r) => r.unpinned.ms)),
    round: () => {
      const r = round();
      return { row: r.pinned.ms, comparison: r.unpinned.ms };
    },
  };
}

/** Pushes a one-layer image (a config blob and a manifest) under `repository:tag`. */
async function pushImage(host, repository, tag) {
  const blob = async (bytes) => {
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const start = await fetch(`http://${host}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
    const location = new URL(start.headers.get('location'), `http://${host}`);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, {
      method: 'PUT',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    if (put.status !== 201) throw new Error(`blob upload to ${host}/${repository}: HTTP ${put.status}`);
    return { digest, size: bytes.length };
  };
  const config = await blob(
    Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] }, tag })),
  );
  const layer = await blob(Buffer.from(`${repository}:${tag}`));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
  });
  const put = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    body: manifest,
    headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
  });
  if (put.status !== 201) throw new Error(`manifest push to ${host}/${repository}:${tag}: HTTP ${put.status}`);
}

/**
 * 100 environments pinned against a local registry with an empty lock: every distinct image is
 * resolved once (one HEAD), however many environments run it. The registry's access log counts the
 * requests. cert-manager is left out: its solver image is an argument no image override redirects,
 * so it would need quay.io.
 */
async function pinnedColdLock() {
  if (!existsSync('/usr/bin/docker-registry')) {
    console.warn('(no /usr/bin/docker-registry: the cold-lock pinning row is left out)');
    return undefined;
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const host = `127.0.0.1:${port}`;
  const storage = mkdtempSync(path.join(work, 'registry-'));
  const configFile = path.join(storage, 'config.yml');
  writeFileSync(
    configFile,
    `version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: ${storage}/data\nhttp:\n  addr: ${host}\n`,
  );
  const log = [];
  const registry = spawn('/usr/bin/docker-registry', ['serve', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  registry.stdout.on('data', (d) => log.push(String(d)));
  registry.stderr.on('data', (d) => log.push(String(d)));
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`http://${host}/v2/`)).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const repo = capiRepo('pinned-cold-100', 100);
    const config = path.join(repo, 'capi-render.yaml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace('certManager:\n  version: v1.19.4\n', 'certManager:\n  install: false\n'),
    );
    // One registry for every environment: the overlays' own image overrides go.
    for (const env of readdirSync(path.join(repo, 'overlays'))) {
      const f = path.join(repo, 'overlays', env, 'overlay.yaml');
      writeFileSync(f, readFileSync(f, 'utf8').replace(/images:\n {2}all:\n {4}repository: .*\n/, ''));
    }
    writeFileSync(config, `${readFileSync(config, 'utf8')}images:\n  all: {repository: ${host}/capi}\n`);
    const unpinned = capiCold(repo);
    const images = renderedImages(path.join(repo, 'rendered'));
    for (const image of images) {
      const [name, tag] = image.slice(host.length + 1).split(':');
      await pushImage(host, name, tag);
    }
    writeFileSync(
      config,
      `${readFileSync(config, 'utf8')}imagePolicy:\n  pinDigests: true\n  insecureRegistries: [${host}]\n`,
    );
    await new Promise((r) => setTimeout(r, 500));
    const before = log
      .join('')
      .split('\n')
      .filter((l) => /"(?:HEAD|GET) \/v2\/[^ ]*\/manifests\//.test(l)).length;
    const pinned = capiCold(repo, path.join(work, 'cache'), 1);
    // The builds run synchronously: the registry's log lines are read once the event loop turns.
    await new Promise((r) => setTimeout(r, 500));
    const requests =
      log
        .join('')
        .split('\n')
        .filter((l) => /"(?:HEAD|GET) \/v2\/[^ ]*\/manifests\//.test(l)).length - before;
    return { ms: pinned.ms, rss: pinned.rss, unpinned: unpinned.ms, images: images.length, requests };
  } finally {
    registry.kill();
  }
}

// ---- the Argo CD plugin ----------------------------------------------------------------------
// `cmp-generate` for one environment of a 100-environment Argo CD repository with the lock committed
// and the cache warm — its stream stored by an earlier run (an unchanged environment after a new
// commit), and not stored (a changed one) — against `build --stdout --env` of the same environment;
// and cold (an empty cache volume: a new repo-server Pod) for one environment of a 500-environment
// repository, against Argo CD's 90 s.

/** A `capiRepo` fleet prepared for Argo CD, built once: the committed lock the plugin renders from. */
function argocdRepo(name, envs, cacheDir) {
  const repo = capiRepo(name, envs);
  const config = path.join(repo, 'capi-render.yaml');
  writeFileSync(config, `${readFileSync(config, 'utf8')}gitops:\n  flavour: argocd\n`);
  timed(process.execPath, [CLI, 'build'], repo, cacheDir);
  return repo;
}

/**
 * `cmp-generate --env <env>` (the plugin's argv; the env flag stands for ARGOCD_ENV_CAPI_ENV).
 * `before(r)` runs ahead of each sample, unmeasured: it empties what the case must find empty.
 */
function cmpGenerate(repo, env, cacheDir, { runs = RUNS, before = () => undefined, label = '' } = {}) {
  const once = (r = 0) => {
    before(r);
    return timed(process.execPath, [CLI, 'cmp-generate', '--env', env], repo, cacheDir);
  };
  commands.push(
    `(cd ${repo} && CAPI_RENDER_CACHE_DIR=${cacheDir} node ${CLI} cmp-generate --env ${env})${label ? `   # ${label}` : ''}`,
  );
  return summary(
    Array.from({ length: runs }, (_, r) => once(r)),
    { once },
  );
}

function buildStdout(repo, env, cacheDir) {
  const once = () => timed(process.execPath, [CLI, 'build', '--stdout', '--env', env], repo, cacheDir);
  commands.push(`(cd ${repo} && CAPI_RENDER_CACHE_DIR=${cacheDir} node ${CLI} build --stdout --env ${env})`);
  return summary(Array.from({ length: RUNS }, once), { once });
}

// ---- measurements -----------------------------------------------------------------------------

/** One cold build: no rendered/, no gitops/, no lock; the cache folder as it is. */
function coldOnce(repo, cacheDir = path.join(work, 'cache')) {
  for (const p of ['rendered', 'gitops', 'capi-render.lock'])
    rmSync(path.join(repo, p), { recursive: true, force: true });
  return timed(process.execPath, [CLI, 'build'], repo, cacheDir);
}

function capiCold(repo, cacheDir = path.join(work, 'cache'), runs = RUNS) {
  const once = () => coldOnce(repo, cacheDir);
  const samples = Array.from({ length: runs }, once);
  commands.push(`(cd ${repo} && rm -rf rendered gitops capi-render.lock && node ${CLI} build)`);
  return summary(samples, { cache: folderBytes(cacheDir), once });
}

/** A cold build with an empty cache folder every time: the first build on a new machine or CI runner. */
function capiEmptyCache(repo) {
  let cache = 0;
  const once = (r = 'again') => {
    const cacheDir = path.join(work, `empty-cache-${r}`);
    const sample = coldOnce(repo, cacheDir);
    cache = folderBytes(cacheDir);
    rmSync(cacheDir, { recursive: true, force: true });
    return sample;
  };
  const samples = Array.from({ length: RUNS }, (_, r) => once(r));
  commands.push(
    `(cd ${repo} && rm -rf rendered gitops capi-render.lock && CAPI_RENDER_CACHE_DIR=$(mktemp -d) node ${CLI} build)`,
  );
  return summary(samples, { cache, once: () => once() });
}

function capiNoop(repo) {
  const once = () => timed(process.execPath, [CLI, 'build'], repo);
  commands.push(`(cd ${repo} && node ${CLI} build)   # again, nothing changed`);
  return summary(Array.from({ length: RUNS }, once), { once });
}

/** Builds every kustomize tree of `dirs` in turn: the total time, and the largest single peak. */
function kustomizeOnce(dirs) {
  let ms = 0;
  let rss = 0;
  for (const d of dirs) {
    const s = timed('kubectl', ['kustomize', d, '-o', path.join(d, 'out.yaml')], work);
    ms += s.ms;
    rss = Math.max(rss, s.rss);
  }
  return { ms, rss };
}

function kustomizeAll(dirs, runs) {
  const once = () => kustomizeOnce(dirs);
  commands.push(
    `for d in ${path.dirname(dirs[0])}/env-*; do kubectl kustomize $d -o $d/out.yaml; done   # ${dirs.length} builds`,
  );
  return summary(Array.from({ length: runs }, once), { once });
}

async function floor(repo, scale = 1) {
  // Parse each input artifact once, and dump every output object of every environment (no reuse).
  // `scale`: the fleet is `scale` times this repository's (the dumping part grows linearly).
  const { render } = await import(path.join(PACKAGE, 'dist/index.js'));
  const result = await render({ repoRoot: repo });
  const objects = result.environments.flatMap((e) => e.environment.components.flatMap((c) => c.objects));
  const texts = ARTIFACTS.map(([l, v, f]) => artifactText(l, v, f));
  const once = () => {
    const start = process.hrtime.bigint();
    for (const t of texts) jsYaml.loadAll(t, undefined, { schema: jsYaml.CORE_SCHEMA });
    const parsed = process.hrtime.bigint();
    let bytes = 0;
    for (const o of objects) bytes += jsYaml.dump(o, { lineWidth: -1, noRefs: true, noArrayIndent: true }).length;
    if (bytes === 0) throw new Error('nothing serialised');
    return (Number(parsed - start) + scale * Number(process.hrtime.bigint() - parsed)) / 1e6;
  };
  const samples = Array.from({ length: RUNS }, once);
  commands.push(
    `(in-process) js-yaml loadAll of the 5 artifacts + js-yaml dump of all ${objects.length} output objects${scale > 1 ? ` (dump time × ${scale}: the ${scale * result.environments.length}-environment fleet)` : ''}`,
  );
  return { ms: median(samples), objects: objects.length * scale, once };
}

/**
 * A cluster dump of `n` objects as kubectl prints them: the v1.12.0 clusterctl dump's inventory and
 * cert-manager Deployment (what import looks for), then small Pods. Written as a `---` stream and as
 * one List; returns both paths and an empty repository to import into.
 */
function importDumps(n) {
  const dir = path.join(work, 'import');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'capi-render.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n  - path: ${FIXTURES}\n`,
  );
  const fixture = gunzipSync(
    readFileSync(path.join(ROOT, 'test/fixtures/live/clusterctl-v1.12.0.list.yaml.gz')),
  ).toString('utf8');
  const objects = jsYaml
    .load(fixture, { schema: jsYaml.CORE_SCHEMA })
    .items.filter((o) => o.kind === 'Provider' || (o.kind === 'Deployment' && o.metadata.namespace === 'cert-manager'));
  for (let i = 0; objects.length < n; i++) {
    objects.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${i}`, namespace: `ns-${i % 50}`, labels: { app: `a${i % 7}` } },
      spec: { containers: [{ name: 'c', image: `registry.example.com/app:${i % 13}` }] },
    });
  }
  const options = { lineWidth: -1, noRefs: true };
  const stream = path.join(work, `dump-${n}.stream.yaml`);
  const list = path.join(work, `dump-${n}.list.yaml`);
  writeFileSync(stream, objects.map((o) => `---\n${jsYaml.dump(o, options)}`).join(''));
  writeFileSync(
    list,
    jsYaml.dump({ apiVersion: 'v1', items: objects, kind: 'List', metadata: { resourceVersion: '' } }, options),
  );
  return { dir, stream, list };
}

function capiImport(repo, dump) {
  const once = () => timed(process.execPath, [CLI, 'import', '--from', dump, '--dry-run'], repo);
  commands.push(`(cd ${repo} && node ${CLI} import --from ${dump} --dry-run)`);
  return summary(Array.from({ length: RUNS }, once), { bytes: statSync(dump).size, once });
}

// ---- report -----------------------------------------------------------------------------------

const fmt = formatMs;
const mib = (kib) => (Number.isFinite(kib) ? `${(kib / 1024).toFixed(0)} MiB` : 'n/a');
const size = (bytes) => (bytes === undefined ? '' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const ratio = (a, b) => `${(a / b).toFixed(3)}×`;
const table = benchTable();
const CHECK = process.argv.includes('--check');
const ARTIFACT_BYTES = ARTIFACTS.reduce((sum, [l, v, f]) => sum + Buffer.byteLength(artifactText(l, v, f)), 0);
/** Targets shared by many rows: peak memory, and the cache-growth bound (≤ 2× the artifacts). */
const peakUnder = (kib, mibBound) => atMost('peak', kib / 1024, mibBound, ' MiB');
const cacheBound = (bytes) =>
  atMost('cache after', bytes / 1024 / 1024, Number(((2 * ARTIFACT_BYTES) / 1024 / 1024).toFixed(1)), ' MiB');
/** How capi-render's environments (rendered/env-NNNN) differ from the kustomize builds of `dirs` (their out.yaml), if at all. */
const differenceFromKustomize = (repo, dirs) =>
  differenceBetween(
    dirs.map((d, i) => [path.join(repo, 'rendered', envName(i, dirs.length)), path.join(d, 'out.yaml')]),
  );

console.log(
  `capi-render bench — ${RUNS} run(s) per capi-render figure (median), node ${process.version}, ${os.cpus().length} CPUs\n`,
);

function pinningRows(repo) {
  const pinnedWarm = pinnedWarmLock(repo);
  table.add(
    [
      '100 environments, pinDigests, warm lock',
      fmt(pinnedWarm.ms),
      `unpinned ${fmt(pinnedWarm.unpinned)}`,
      ratio(pinnedWarm.ms, pinnedWarm.unpinned),
      '≤ 1.1× of unpinned',
      mib(pinnedWarm.rss),
      '',
      '',
    ],
    {
      targets: [ratioAtMost(pinnedWarm.ms, pinnedWarm.unpinned, 1.1)],
      remeasure: { comparison: 'unpinned', round: pinnedWarm.round },
    },
  );
  return pinnedColdLock().then((pinnedCold) => {
    if (!pinnedCold) return;
    table.add(
      [
        `100 environments, pinDigests, cold lock (${pinnedCold.images} images, ${pinnedCold.requests} registry requests)`,
        fmt(pinnedCold.ms),
        `unpinned ${fmt(pinnedCold.unpinned)}`,
        ratio(pinnedCold.ms, pinnedCold.unpinned),
        'each image once',
        mib(pinnedCold.rss),
        '',
        '',
      ],
      {
        targets: [
          target(
            `${pinnedCold.requests} manifest requests for ${pinnedCold.images} images`,
            pinnedCold.requests === pinnedCold.images,
          ),
        ],
      },
    );
  });
}

if (process.env.BENCH_ONLY === 'pinning') {
  const repo = capiRepo('envs-100', 100);
  timed(process.execPath, [CLI, 'build'], repo);
  await pinningRows(repo);
  process.exit(await table.verdict(CHECK));
}
if (process.env.BENCH_ONLY === 'fleet') {
  await distinctFleetRows();
  const exitCode = await table.verdict(CHECK);
  console.log('\nCommands (kustomize figures are the sum of sequential builds):');
  for (const c of commands) console.log(`  ${c}`);
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  process.exit(exitCode);
}
/** The real-provider rows (./real-providers.mjs): alone under BENCH_ONLY=real, else last. */
const realRows = () =>
  realProviderRows({
    work,
    fixtures: FIXTURES,
    cli: CLI,
    runs: RUNS,
    timed,
    folderBytes,
    artifactText,
    commands,
    table,
    atMost,
    fmt,
    mib,
    size,
    ratio,
  });
if (process.env.BENCH_ONLY === 'real') {
  realRows();
  const code = await table.verdict(CHECK);
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
const one = capiRepo('one', 1);
const oneK = kustomizeTrees('one-kustomize', 1);
const c1 = capiCold(one);
const k1 = kustomizeAll(oneK, RUNS);
const same1 = differenceFromKustomize(one, oneK);
const e1 = capiEmptyCache(one);
const same1e = differenceFromKustomize(one, oneK);
table.add(
  ['1 environment', fmt(c1.ms), fmt(k1.ms), ratio(c1.ms, k1.ms), '≤ 0.5×', mib(c1.rss), mib(k1.rss), size(c1.cache)],
  {
    compared: true,
    difference: same1,
    targets: [ratioAtMost(c1.ms, k1.ms, 0.5), cacheBound(c1.cache)],
    remeasure: { comparison: 'kustomize', round: () => ({ row: c1.once().ms, comparison: k1.once().ms }) },
  },
);
table.add(
  [
    '1 environment, empty cache',
    fmt(e1.ms),
    fmt(k1.ms),
    ratio(e1.ms, k1.ms),
    '≤ 0.4×',
    mib(e1.rss),
    mib(k1.rss),
    size(e1.cache),
  ],
  {
    compared: true,
    difference: same1e,
    targets: [ratioAtMost(e1.ms, k1.ms, 0.4), cacheBound(e1.cache)],
    remeasure: { comparison: 'kustomize', round: () => ({ row: e1.once().ms, comparison: k1.once().ms }) },
  },
);
if (process.env.BENCH_ONLY === 'first') {
  const code = await table.verdict(CHECK);
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  process.exit(code);
}

let repo100;
for (const n of [10, 50, 100]) {
  const repo = capiRepo(`envs-${n}`, n);
  const dirs = kustomizeTrees(`envs-${n}-kustomize`, n);
  const c = capiCold(repo);
  const k = kustomizeAll(dirs, n >= 50 ? 1 : RUNS);
  table.add(
    [
      `${n} environments`,
      fmt(c.ms),
      fmt(k.ms),
      ratio(c.ms, k.ms),
      n === 100 ? '≤ 0.05× (20× faster)' : '',
      mib(c.rss),
      mib(k.rss),
      size(c.cache),
    ],
    {
      compared: true,
      difference: differenceFromKustomize(repo, dirs),
      targets: [...(n === 100 ? [ratioAtMost(c.ms, k.ms, 0.05)] : []), cacheBound(c.cache)],
      // kustomize takes minutes a round here: fewer rounds.
      remeasure:
        n === 100
          ? { comparison: 'kustomize', maxRounds: 3, round: () => ({ row: c.once().ms, comparison: k.once().ms }) }
          : undefined,
    },
  );
  if (n === 100) repo100 = { repo, cold: c };
}
const noop = capiNoop(repo100.repo);
table.add(
  [
    'no-op rebuild, 100 environments',
    fmt(noop.ms),
    `cold ${fmt(repo100.cold.ms)}`,
    ratio(noop.ms, repo100.cold.ms),
    '≤ 0.1× of cold',
    mib(noop.rss),
    '',
    '',
  ],
  {
    targets: [ratioAtMost(noop.ms, repo100.cold.ms, 0.1)],
    remeasure: {
      comparison: 'cold',
      // The cold build first: the no-op rebuilds what it left.
      round: () => {
        const comparison = repo100.cold.once().ms;
        return { row: noop.once().ms, comparison };
      },
    },
  },
);
const fl = await floor(repo100.repo);
table.add(
  [
    `floor, 100 environments (${fl.objects} objects)`,
    fmt(repo100.cold.ms),
    `floor ${fmt(fl.ms)}`,
    ratio(repo100.cold.ms, fl.ms),
    '≤ 2× of floor',
    '',
    '',
    '',
  ],
  {
    targets: [ratioAtMost(repo100.cold.ms, fl.ms, 2)],
    remeasure: { comparison: 'floor', round: () => ({ row: repo100.cold.once().ms, comparison: fl.once() }) },
  },
);

/**
 * Fleets whose environments really differ: 100 environments (against kustomize, with a warm and an
 * empty cache, and against the floor), then 1000 and 10,000 (capi-render only; each cache warm from
 * the same artifacts). Each row's cache starts empty, so its size is what that case leaves; the warm
 * row's cache is filled by a first, unmeasured build. These rows alone: BENCH_ONLY=fleet.
 */
async function distinctFleetRows() {
  const distinct100 = capiRepo('distinct-100', 100, { distinct: true });
  const distinctK = kustomizeDistinctTrees('distinct-100-kustomize', 100);
  const warmCache = path.join(work, 'cache-distinct');
  timed(process.execPath, [CLI, 'build'], distinct100, warmCache);
  const d100 = capiCold(distinct100, warmCache);
  const dk = kustomizeAll(distinctK.dirs, 1);
  table.add(
    [
      '100 environments, distinct values',
      fmt(d100.ms),
      fmt(dk.ms),
      ratio(d100.ms, dk.ms),
      '≤ 0.02×; < 512 MiB',
      mib(d100.rss),
      mib(dk.rss),
      size(d100.cache),
    ],
    {
      compared: true,
      difference: differenceFromKustomize(distinct100, distinctK.dirs),
      targets: [ratioAtMost(d100.ms, dk.ms, 0.02), peakUnder(d100.rss, 512), cacheBound(d100.cache)],
      remeasure: {
        comparison: 'kustomize',
        maxRounds: 3,
        round: () => ({ row: d100.once().ms, comparison: dk.once().ms }),
      },
    },
  );
  const d100e = capiEmptyCache(distinct100);
  table.add(
    [
      '100 environments, distinct values, empty cache',
      fmt(d100e.ms),
      fmt(dk.ms),
      ratio(d100e.ms, dk.ms),
      '≤ 0.05×; < 512 MiB',
      mib(d100e.rss),
      mib(dk.rss),
      size(d100e.cache),
    ],
    {
      compared: true,
      difference: differenceFromKustomize(distinct100, distinctK.dirs),
      targets: [ratioAtMost(d100e.ms, dk.ms, 0.05), peakUnder(d100e.rss, 512), cacheBound(d100e.cache)],
      remeasure: {
        comparison: 'kustomize',
        maxRounds: 3,
        round: () => ({ row: d100e.once().ms, comparison: dk.once().ms }),
      },
    },
  );
  const dfl = await floor(distinct100);
  table.add(
    [
      `floor, 100 environments, distinct values (${dfl.objects} objects)`,
      fmt(d100.ms),
      `floor ${fmt(dfl.ms)}`,
      ratio(d100.ms, dfl.ms),
      '≤ 2× of floor',
      '',
      '',
      '',
    ],
    {
      targets: [ratioAtMost(d100.ms, dfl.ms, 2)],
      remeasure: { comparison: 'floor', round: () => ({ row: d100.once().ms, comparison: dfl.once() }) },
    },
  );
  if (process.env.BENCH_SKIP_1000) return;
  const distinct1000 = capiRepo('distinct-1000', 1000, { distinct: true });
  const cache1000 = path.join(work, 'cache-distinct-1000');
  rmSync(cache1000, { recursive: true, force: true });
  // Its cache is warm from the same artifacts (the 100-environment fleet's), as on a developer's machine.
  timed(process.execPath, [CLI, 'build'], distinct100, cache1000);
  const d1000 = capiCold(distinct1000, cache1000, Math.min(RUNS, 2));
  table.add(
    [
      '1000 environments, distinct values',
      fmt(d1000.ms),
      `10 × 100: ${fmt(10 * d100.ms)}`,
      ratio(d1000.ms, 10 * d100.ms),
      '≤ 1× (linear); < 1 GiB',
      mib(d1000.rss),
      '',
      size(d1000.cache),
    ],
    {
      targets: [ratioAtMost(d1000.ms, 10 * d100.ms, 1), peakUnder(d1000.rss, 1024), cacheBound(d1000.cache)],
      remeasure: {
        comparison: '10 × 100',
        round: () => ({ row: d1000.once().ms, comparison: 10 * d100.once().ms }),
      },
    },
  );
  table.add(
    [
      '1000 environments, distinct values, vs floor',
      fmt(d1000.ms),
      `floor ${fmt(10 * dfl.ms)}`,
      ratio(d1000.ms, 10 * dfl.ms),
      '≤ 2× of floor',
      '',
      '',
      '',
    ],
    {
      targets: [ratioAtMost(d1000.ms, 10 * dfl.ms, 2)],
      remeasure: { comparison: 'floor × 10', round: () => ({ row: d1000.once().ms, comparison: 10 * dfl.once() }) },
    },
  );
  commands.push(`floor of 1000 environments: the 100-environment floor's dump time × 10 (linear by construction)`);
  if (process.env.BENCH_SKIP_10000) return;
  // 10,000 environments: one run (a build takes minutes), judged against ten of the 1000-environment
  // build of this run; its cache warm from the same artifacts, as the 1000 row's.
  const distinct10000 = capiRepo('distinct-10000', 10_000, { distinct: true });
  const cache10000 = path.join(work, 'cache-distinct-10000');
  rmSync(cache10000, { recursive: true, force: true });
  timed(process.execPath, [CLI, 'build'], distinct100, cache10000);
  const d10000 = capiCold(distinct10000, cache10000, 1);
  table.add(
    [
      '10,000 environments, distinct values (1 run)',
      fmt(d10000.ms),
      `10 × 1000: ${fmt(10 * d1000.ms)}`,
      ratio(d10000.ms, 10 * d1000.ms),
      '≤ 1× (linear); < 1 GiB',
      mib(d10000.rss),
      '',
      size(d10000.cache),
    ],
    {
      targets: [ratioAtMost(d10000.ms, 10 * d1000.ms, 1), peakUnder(d10000.rss, 1024)],
      // Two rounds at most: one takes as long as eleven 1000-environment builds.
      remeasure: {
        comparison: '10 × 1000',
        maxRounds: 2,
        round: () => ({ row: d10000.once().ms, comparison: 10 * d1000.once().ms }),
      },
    },
  );
}
await distinctFleetRows();

const dumps = importDumps(20_000);
const importStream = capiImport(dumps.dir, dumps.stream);
const importList = capiImport(dumps.dir, dumps.list);
// "≈ 1× of List" as a bound: within 1.5× (the two medians of ~0.2 s move by a tenth between runs).
table.add(
  [
    `import, 20k-object --- stream (${size(importStream.bytes)})`,
    fmt(importStream.ms),
    `as one List ${fmt(importList.ms)}`,
    ratio(importStream.ms, importList.ms),
    '≤ 2 s; ≈ 1× of List (≤ 1.5×)',
    mib(importStream.rss),
    '',
    '',
  ],
  {
    targets: [timeAtMost(importStream.ms, 2000), ratioAtMost(importStream.ms, importList.ms, 1.5)],
    remeasure: {
      comparison: 'as one List',
      round: () => ({ row: importStream.once().ms, comparison: importList.once().ms }),
    },
  },
);

// Image pinning.
await pinningRows(repo100.repo);

// The Argo CD plugin. The 100-environment repository's cache is warm from its build; the
// stream store (plugin-streams/, plugin-documents/) is emptied before each "not stored" sample.
const pluginCache = path.join(work, 'cache-plugin');
const plugin100 = argocdRepo('argocd-100', 100, pluginCache);
const pluginEnv = 'env-0042';
const stdout100 = buildStdout(plugin100, pluginEnv, pluginCache);
const dropStreams = () => {
  for (const f of ['plugin-streams', 'plugin-documents'])
    rmSync(path.join(pluginCache, f), { recursive: true, force: true });
};
const notStored = cmpGenerate(plugin100, pluginEnv, pluginCache, {
  before: dropStreams,
  label: 'stream store emptied before each run',
});
timed(process.execPath, [CLI, 'cmp-generate', '--env', pluginEnv], plugin100, pluginCache);
const stored = cmpGenerate(plugin100, pluginEnv, pluginCache, { label: 'stream stored by the run before' });
table.add(
  [
    `cmp-generate, 1 of 100 environments, warm (stream stored)`,
    fmt(stored.ms),
    `build --stdout ${fmt(stdout100.ms)}`,
    ratio(stored.ms, stdout100.ms),
    '≤ 0.3 s',
    mib(stored.rss),
    '',
    '',
  ],
  {
    targets: [timeAtMost(stored.ms, 300)],
    remeasure: {
      comparison: 'build --stdout',
      round: () => ({ row: stored.once().ms, comparison: stdout100.once().ms }),
    },
  },
);
table.add([
  `cmp-generate, 1 of 100 environments, warm (stream not stored)`,
  fmt(notStored.ms),
  `build --stdout ${fmt(stdout100.ms)}`,
  ratio(notStored.ms, stdout100.ms),
  '',
  mib(notStored.rss),
  '',
  '',
]);
// Cold: an empty cache volume every run (the first generate after the repo-server Pod starts), 500 environments.
const plugin500 = argocdRepo('argocd-500', 500, path.join(work, 'cache-plugin-500'));
const coldCache = path.join(work, 'cache-plugin-cold');
const cold500 = cmpGenerate(plugin500, 'env-0250', coldCache, {
  runs: Math.min(RUNS, 2),
  before: () => rmSync(coldCache, { recursive: true, force: true }),
  label: 'empty cache folder before each run',
});
const cold500Cache = folderBytes(coldCache);
table.add(
  [
    `cmp-generate, 1 of 500 environments, empty cache`,
    fmt(cold500.ms),
    `Argo CD's limit 90 s`,
    ratio(cold500.ms, 90_000),
    '< 90 s',
    mib(cold500.rss),
    '',
    size(cold500Cache),
  ],
  {
    targets: [timeAtMost(cold500.ms, 90_000), cacheBound(cold500Cache)],
    // Argo CD's limit is a constant: the case alone, round after round.
    remeasure: { comparison: "Argo CD's limit", maxRounds: 3, round: () => ({ row: cold500.once().ms }) },
  },
);

realRows();

const exitCode = await table.verdict(CHECK);
console.log(
  '\ncapi-render figures are cold builds (no rendered/, no lock) sharing one cache folder — parsed artifacts, validated inputs, the parsed lock — that is warm after the first run, as on a laptop or a CI runner that keeps ~/.cache/capi-render; "empty cache" starts from nothing every time.',
);
console.log(
  `"cache after": the cache folder's size after the case; the artifacts the builds read are ${size(ARTIFACT_BYTES)} (cache growth target: ≤ 2× that per build). Distinct values: each environment sets its own CAPI_DIAGNOSTICS_ADDRESS (capi-render) or patches its own --diagnostics-address into the provider Deployments (kustomize).`,
);
console.log(
  'cmp-generate rows (the Argo CD plugin): repositories prepared for Argo CD and built once, so capi-render.lock is committed. "Stream stored": an earlier run stored this environment\'s stream under its inputs hash, as after a commit that left it unchanged; "not stored": only the artifacts are cached, as after a commit that changed it; "empty cache": nothing cached at all (a new repo-server Pod), measured, not projected.',
);
console.log(
  '\nCommands (kustomize figures are the sum of sequential builds; peak memory is the largest single process):',
);
for (const c of commands) console.log(`  ${c}`);
if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
else console.log(`\nkept ${work}`);
process.exit(exitCode);
