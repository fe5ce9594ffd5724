/**
 * The manual cannot drift: every `console` block in README.md and docs/**\/*.md is run
 * against a fresh copy of this repository's example and must show exactly what the tool prints.
 * The convention is docs/README.md "Transcripts: the manual is tested"; each document is one bash
 * process (state carries through its blocks), with the built CLI (dist/) and no network.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/run.js';
import { requireCurrentDist } from '../helpers/built-dist.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { gitEnv, initRepo } from '../helpers/git.js';
import { fencedBlocks, manualFiles, readManual } from '../helpers/markdown.js';
import { startRegistry } from '../helpers/registry.js';
import { copyExample } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import {
  alignElisions,
  normalise,
  parseTranscripts,
  splitOutputs,
  transcriptScript,
  type Transcript,
} from '../helpers/transcript.js';

/** The built CLI the transcripts run: a private copy (see beforeAll). */
let CLI = '';
const documents = manualFiles(REPO_ROOT).map((file) => ({
  file,
  transcripts: parseTranscripts(file, fencedBlocks(readManual(REPO_ROOT, file))),
}));
const withTranscripts = documents.filter((d) => d.transcripts.length > 0);

/**
 * A fresh copy of the example under `root`, committed in a new git repository, with `capi-render`
 * on its PATH.
 */
function exampleCopy(root: string): { repo: string; env: Record<string, string> } {
  const repo = path.join(root, 'example');
  copyExample({ committed: true, dir: repo });
  cpSync(path.join(REPO_ROOT, 'test/fixtures/live'), path.join(repo, 'test/fixtures/live'), { recursive: true });
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'capi-render'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(path.join(bin, 'capi-render'), 0o755);
  const env = {
    ...gitEnv(path.join(root, 'home')),
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    CAPI_RENDER_CACHE_DIR: seededCache(root),
    // No network: a proxy on a closed port makes every attempt fail at once (loopback is never proxied).
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
  };
  // The copy's .gitignore keeps what a real checkout ignores (init writes the same line).
  writeFileSync(path.join(repo, '.gitignore'), '.capi-render-write/\n');
  initRepo(repo, env);
  return { repo, env };
}

/**
 * A copy of the cache one build of the example filled (see beforeAll), as a reader's cache would be
 * after their first build: every document then starts from release artifacts already parsed, instead
 * of each paying for the same cold build. What a transcript prints does not depend on it (the
 * records that let a build skip work are kept per repository path, and this copy is at another path).
 */
function seededCache(root: string): string {
  const cache = path.join(root, 'cache');
  cpSync(warmCache, cache, { recursive: true });
  return cache;
}

/**
 * Runs a document's transcripts; returns the expected and the actual transcript text. Asynchronous,
 * so the documents' shells run side by side.
 */
async function runDocument(
  root: string,
  transcripts: Transcript[],
  registries: DocumentRegistries = NO_REGISTRIES,
): Promise<{ expected: string; actual: string }> {
  const copy = exampleCopy(root);
  const repo = copy.repo;
  const env = { ...copy.env, ...registries.env };
  const commands = transcripts.flatMap((t) => t.commands);
  // The script's own status is the last command's; a failing command is part of what it shows.
  const stdout = await promisify(execFile)('bash', ['--noprofile', '--norc', '-c', transcriptScript(transcripts)], {
    cwd: repo,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (r) => r.stdout,
    (e: { stdout?: string }) => {
      if (typeof e.stdout !== 'string') throw e;
      return e.stdout;
    },
  );
  const outputs = splitOutputs(stdout, commands.length);
  const show = (lines: (c: (typeof commands)[number], i: number) => string[]) =>
    commands.map((c, i) => [`# ${c.where}`, `$ ${c.command}`, ...lines(c, i)].join('\n')).join('\n');
  return {
    expected: show((c) => c.expected),
    actual: show((c, i) =>
      alignElisions(
        c.expected,
        outputs[i]!.map((l) => registries.name(normalise(l, repo))),
      ),
    ),
  };
}

/**
 * Real registries for a document whose commands name `$CONNECTED_REGISTRY` or `$SITE_REGISTRY`
 * (docs/air-gapped.md: a connected side and an air-gapped site). Each is Debian's docker-registry
 * on a free loopback port (never proxied); the connected one holds the image the example's core
 * provider runs, as a provider's registry would. Their addresses print as the variables' names, so
 * the manual reads the same on any machine.
 */
interface DocumentRegistries {
  env: Record<string, string>;
  name: (line: string) => string;
  stop: () => Promise<void>;
}
const NO_REGISTRIES: DocumentRegistries = { env: {}, name: (line) => line, stop: async () => {} };
const REGISTRY_VARIABLES = /\$(CONNECTED|SITE)_REGISTRY\b/;

async function documentRegistries(transcripts: Transcript[]): Promise<DocumentRegistries> {
  if (!transcripts.some((t) => t.commands.some((c) => REGISTRY_VARIABLES.test(c.command)))) return NO_REGISTRIES;
  const connected = await startRegistry();
  const site = await startRegistry();
  await pushTestImage(connected.host, 'release/cluster-api-controller', 'v1.12.0', {
    platforms: ['linux/amd64', 'linux/arm64'],
  });
  return {
    env: { CONNECTED_REGISTRY: connected.host, SITE_REGISTRY: site.host },
    name: (line) => line.split(connected.host).join('$CONNECTED_REGISTRY').split(site.host).join('$SITE_REGISTRY'),
    stop: async () => {
      await connected.stop();
      await site.stop();
    },
  };
}

/**
 * A private copy of the built CLI and the package files it reads (it finds them by walking up to
 * capi-render's package.json), so a rebuild of dist/ during the run (`npm run build` in another
 * shell: the bundler empties dist/bin/ first) cannot pull the CLI away from under the transcripts.
 * Checked by running it.
 */
function snapshotCli(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-cli-'));
  snapshots.push(dir);
  for (const entry of ['package.json', 'dist/bin', 'schemas', 'bundled-templates', 'trust'])
    cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const cli = path.join(dir, 'dist/bin/capi-render.js');
  execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
  return cli;
}

const snapshots: string[] = [];
/** The cache of one build of the example, copied into every document's root. */
let warmCache = '';
afterAll(() => {
  for (const dir of snapshots) rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  // The build npm test made before the tests; this file never rebuilds dist/ (other files run it).
  requireCurrentDist();
  CLI = snapshotCli();
  const root = mkdtempSync(path.join(os.tmpdir(), 'capi-render-doc-cache-'));
  snapshots.push(root);
  const repo = path.join(root, 'example');
  copyExample({ committed: true, dir: repo });
  warmCache = path.join(root, 'cache');
  execFileSync(process.execPath, [CLI, 'build', '--force'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CAPI_RENDER_CACHE_DIR: warmCache,
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
    },
    stdio: 'ignore',
  });
}, 300_000);

describe('the manual', () => {
  it('README.md is at most 250 lines', () => {
    const lines = readManual(REPO_ROOT, 'README.md').split('\n').length - 1;
    expect(lines).toBeGreaterThan(50);
    expect(lines).toBeLessThanOrEqual(250);
  });

  it("README.md's command list names exactly the CLI's commands, one line each", () => {
    const readme = readManual(REPO_ROOT, 'README.md');
    const section = readme.slice(
      readme.indexOf('\n## Commands\n'),
      readme.indexOf('\n## ', readme.indexOf('\n## Commands\n') + 1),
    );
    const listed = [...section.matchAll(/^- `([a-z-]+)` — /gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it('has transcripts, and a "$ " line only in console blocks (or text blocks, which are not run)', () => {
    expect(withTranscripts.map((d) => d.file)).toContain('README.md');
    const stray = documents.flatMap(({ file }) =>
      fencedBlocks(readManual(REPO_ROOT, file))
        .filter((b) => b.lang !== 'console' && b.lang !== 'text' && b.lines.some((l) => l.startsWith('$ ')))
        .map((b) => `${file}:${b.line} (${b.lang || 'no language'})`),
    );
    expect(stray).toEqual([]);
  });

  it.concurrent.for(withTranscripts.map((d) => [d.file, d.transcripts] as const))(
    '%s: every transcript prints what it shows',
    { timeout: 180_000 },
    async ([, transcripts], { expect, onTestFinished }) => {
      // Concurrent tests: the folder is removed by this test's own hook (helpers/tmp.ts's tempDir
      // registers on whichever test is current).
      const root = mkdtempSync(path.join(os.tmpdir(), 'capi-render-doc-'));
      onTestFinished(() => rmSync(root, { recursive: true, force: true }));
      const registries = await documentRegistries(transcripts);
      onTestFinished(() => registries.stop());
      const { expected, actual } = await runDocument(root, transcripts, registries);
      expect(actual).toBe(expected);
    },
  );
});
