/**
 * The sharded CI build, run locally: N `build --shard K/N` jobs in separate folders, their
 * outputs merged by `capi-render merge` in a fresh checkout, equal one full build — rendered/,
 * gitops/, their ownership records and the lock. `check --shard` over all shards checks what one
 * full check does. Shards are read as untrusted input.
 */
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const N = 3;

function inputs(values: (i: number) => string = (i) => `:${8000 + i}`, envs = 5): Record<string, string> {
  const files: Record<string, string> = {
    'capi-render.yaml': `${configYaml()}gitops:\n  flavour: flux\n`,
    'providers/core.yaml': CORE(),
  };
  for (let i = 0; i < envs; i++) {
    files[`overlays/env-${i}/overlay.yaml`] =
      `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: "${values(i)}"\n`;
  }
  return files;
}

/** Everything a build leaves, ownership records included. */
const outputs = (repo: string) =>
  Object.fromEntries(
    Object.entries(snapshotTree(repo)).filter(([k]) => /^(rendered|gitops)\//.test(k) || k === 'capi-render.lock'),
  );

/** N copies of `checkout`, each built with --shard K/N, as N CI jobs would; returns the shard folders. */
async function shardJobs(
  checkout: string,
  env: Record<string, string>,
  temp: () => string = tempDir,
): Promise<string[]> {
  const dirs: string[] = [];
  for (let k = 1; k <= N; k++) {
    const job = temp();
    cpSync(checkout, job, { recursive: true });
    const r = await runCli(['build', '--shard', `${k}/${N}`], { cwd: job, env });
    expect(r.code, r.stderr).toBe(0);
    // The artifact: rendered/, gitops/ and the lock, hidden files included.
    const artifact = temp();
    for (const p of ['rendered', 'gitops', 'capi-render.lock'])
      cpSync(path.join(job, p), path.join(artifact, p), { recursive: true });
    dirs.push(artifact);
  }
  return dirs;
}

describe('a sharded build', () => {
  it('N shard builds merged equal one full build, lock and ownership records included — first build and an incremental one', async () => {
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const full = makeRepo(inputs());
    expect((await runCli(['build'], { cwd: full, env })).code).toBe(0);

    const fanIn = makeRepo(inputs());
    const merged = await runCli(['merge', ...(await shardJobs(fanIn, env))], { cwd: fanIn, env });
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain(`merged shard 1/${N}`);
    expect(outputs(fanIn)).toEqual(outputs(full));
    for (let k = 1; k <= N; k++)
      expect((await runCli(['check', '--shard', `${k}/${N}`], { cwd: fanIn, env })).code).toBe(0);

    // The next commit changes three environments' values; the shards start from the merged state.
    const next = inputs((i) => ([1, 3, 4].includes(i) ? `:${9000 + i}` : `:${8000 + i}`));
    for (const i of [1, 3, 4])
      writeFileSync(path.join(fanIn, `overlays/env-${i}/overlay.yaml`), next[`overlays/env-${i}/overlay.yaml`]!);
    const shards = await shardJobs(fanIn, env);
    const again = await runCli(['merge', '--json', ...shards], { cwd: fanIn, env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      shards: [{ shard: `1/${N}`, environments: ['env-0', 'env-3'] }, { shard: `2/${N}` }, { shard: `3/${N}` }],
      lockWritten: true,
    });
    const fullNext = makeRepo(next);
    expect((await runCli(['build'], { cwd: fullNext, env })).code).toBe(0);
    expect(outputs(fanIn)).toEqual(outputs(fullNext));
    expect((await runCli(['check'], { cwd: fanIn, env })).code).toBe(0);
  }, 120_000);

  it('check --shard: each shard sees drift in its own environments, shard 1 also the output of removed environments', async () => {
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const repo = makeRepo(inputs());
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    // env-1 is in shard 2; a removed environment's folder belongs to no shard but the first.
    // (A new file: environments that share content share the file on disk — a git checkout would not.)
    const file = path.join(repo, 'rendered/env-1/cluster-api/service-capi-webhook-service.yaml');
    const edited = readFileSync(file, 'utf8').replace('port: 443', 'port: 444');
    rmSync(file);
    writeFileSync(file, edited);
    cpSync(path.join(repo, 'rendered/env-0'), path.join(repo, 'rendered/env-gone'), { recursive: true });
    const record = path.join(repo, 'rendered/.capi-render-owned');
    writeFileSync(
      record,
      readFileSync(record, 'utf8') +
        readFileSync(record, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('env-0/'))
          .map((l) => `${l.replace('env-0/', 'env-gone/')}\n`)
          .join(''),
    );
    const codes = [];
    for (let k = 1; k <= N; k++) codes.push(await runCli(['check', '--shard', `${k}/${N}`], { cwd: repo, env }));
    expect(
      codes.map((r) => r.code),
      codes[2]!.stderr,
    ).toEqual([1, 1, 0]);
    expect(codes[0]!.stderr).toContain('rendered/env-gone/');
    expect(codes[0]!.stderr).not.toContain('rendered/env-1/');
    expect(codes[1]!.stderr).toContain('rendered/env-1/cluster-api/service-capi-webhook-service.yaml: error[drift]');
    expect(codes[1]!.stderr).not.toContain('env-gone');
  });

  describe('merge refuses what it cannot trust, and changes nothing', () => {
    // One fan-in checkout and its shards, built once; each case works on copies.
    const env = { CAPI_RENDER_CACHE_DIR: suiteTempDir() };
    const pristine = { fanIn: '', shards: [] as string[] };
    beforeAll(async () => {
      const fanIn = makeRepo(inputs(), path.join(suiteTempDir(), 'repo'));
      expect((await runCli(['build'], { cwd: fanIn, env })).code).toBe(0);
      for (const i of [1, 3])
        writeFileSync(
          path.join(fanIn, `overlays/env-${i}/overlay.yaml`),
          inputs((j) => `:${9000 + j}`)[`overlays/env-${i}/overlay.yaml`]!,
        );
      pristine.fanIn = fanIn;
      pristine.shards = await shardJobs(fanIn, env, suiteTempDir);
    }, 120_000);
    const setup = async () => {
      const copy = (dir: string) => {
        const to = tempDir();
        cpSync(dir, to, { recursive: true });
        return to;
      };
      return { env, fanIn: copy(pristine.fanIn), shards: pristine.shards.map(copy) };
    };

    it.each([
      [
        'shards out of order',
        (s: string[]) => [s[1]!, s[0]!, s[2]!],
        /error\[shard\]: shard 1\/3 .*: the output of environment env-3 is not what this checkout's inputs render/,
        1,
      ],
      [
        'a shard missing',
        (s: string[]) => [s[0]!, s[1]!],
        /error\[shard\]: shard [12]\/2 .*the output of environment env-\d is not what/,
        1,
      ],
      [
        'a shard built from another commit',
        (s: string[]) => {
          const lock = path.join(s[1]!, 'capi-render.lock');
          writeFileSync(
            lock,
            readFileSync(lock, 'utf8').replace(
              /(file: overlays\/env-4\/overlay\.yaml\n\s+sha256: )[0-9a-f]+/,
              (_m, head: string) => head + 'f'.repeat(64),
            ),
          );
          return s;
        },
        /error\[shard\]: shard 2\/3 .* was built from other inputs than this checkout: overlays\/env-4\/overlay\.yaml/,
        1,
      ],
      [
        'a link in a shard',
        (s: string[]) => {
          const target = path.join(s[0]!, 'rendered/env-3/cluster-api/kustomization.yaml');
          rmSync(target);
          symlinkSync('/etc/passwd', target);
          return s;
        },
        /error\[shard\]: shard 1\/3 .*rendered\/env-3\/cluster-api\/kustomization\.yaml is listed in its ownership record but is a symbolic link/,
        1,
      ],
      [
        'a shard without its ownership records (hidden files not uploaded)',
        (s: string[]) => {
          rmSync(path.join(s[2]!, 'rendered/.capi-render-owned'));
          return s;
        },
        /error\[shard\]: shard 3\/3 .*rendered\/ has no ownership record \(\.capi-render-owned\)/,
        1,
      ],
      [
        'a shard without a lock',
        (s: string[]) => {
          rmSync(path.join(s[0]!, 'capi-render.lock'));
          return s;
        },
        /error\[shard\]: shard 1\/3 .*has no capi-render\.lock/,
        1,
      ],
      [
        'a shard folder that does not exist',
        (s: string[]) => [s[0]!, `${s[1]}-missing`, s[2]!],
        /error\[shard\]: shard 2\/3 .*does not exist/,
        1,
      ],
    ])('%s', async (_name, arrange, message, code) => {
      const { env, fanIn, shards } = await setup();
      const before = snapshotTree(fanIn);
      const r = await runCli(['merge', ...arrange(shards)], { cwd: fanIn, env });
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(snapshotTree(fanIn)).toEqual(before);
    });

    it.each([
      ['the repository itself', (repo: string) => repo, /is the repository itself/],
      ['a folder holding the repository', (repo: string) => path.dirname(repo), /holds the repository/],
      ['the output folder', (repo: string) => path.join(repo, 'rendered'), /overlaps the output folder/],
    ])('a shard folder that is %s: usage error, exit 2', async (_name, shard, message) => {
      const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
      const base = tempDir();
      const fanIn = makeRepo(inputs(), path.join(base, 'repo'));
      expect((await runCli(['build'], { cwd: fanIn, env })).code).toBe(0);
      const before = snapshotTree(fanIn);
      const r = await runCli(['merge', shard(fanIn)], { cwd: fanIn, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(snapshotTree(fanIn)).toEqual(before);
    });

    it('merge without shards, and --help', async () => {
      expect((await runCli(['merge'], { cwd: makeRepo(inputs()) })).code).toBe(2);
      const help = await runCli(['merge', '--help'], { cwd: tempDir() });
      expect(help.code).toBe(0);
      for (const word of ['SHARD...', '--allow-removal', '--json']) expect(help.stdout).toContain(word);
    });
  });
});

describe('init --shards', () => {
  it('scaffolds a workflow that checks as an N-job matrix and re-renders as N jobs and one fan-in', async () => {
    const repo = tempDir();
    const r = await runCli(
      [
        'init',
        '--shards',
        '4',
        '--version',
        'v1.12.0',
        '--local-repository',
        `${FIXTURES}repository`,
        '--allow-outside',
      ],
      { cwd: repo },
    );
    expect(r.code, r.stderr).toBe(0);
    const workflow = YAML.parse(readFileSync(path.join(repo, '.github/workflows/capi-render.yaml'), 'utf8')) as {
      jobs: Record<
        string,
        {
          strategy?: { matrix: { shard: number[] } };
          needs?: string;
          steps: { run?: string; with?: Record<string, unknown> }[];
        }
      >;
    };
    expect(workflow.jobs.check!.strategy!.matrix.shard).toEqual([1, 2, 3, 4]);
    expect(workflow.jobs.check!.steps.map((s) => s.run).join('\n')).toContain('check --shard ${{ matrix.shard }}/4');
    expect(workflow.jobs.render!.steps.map((s) => s.run).join('\n')).toContain('build --shard ${{ matrix.shard }}/4');
    expect(workflow.jobs.render!.steps.find((s) => s.with?.['include-hidden-files'])).toBeDefined();
    expect(workflow.jobs.commit!.needs).toBe('render');
    const fanIn = workflow.jobs.commit!.steps.map((s) => s.run).join('\n');
    expect(fanIn).toContain('merge $(for k in $(seq 1 4); do echo "$RUNNER_TEMP/shards/capi-render-shard-$k"; done)');
    expect(fanIn).toContain('git push');
    // Pull requests still get the HTML report, from one job (it reads the committed output).
    expect(workflow.jobs.report!.steps.map((s) => s.run).join('\n')).toContain(
      'report --base "origin/${{ github.base_ref }}"',
    );
    // …and that job fails on a danger finding against the base branch.
    expect(workflow.jobs.report!.steps.map((s) => s.run).join('\n')).toContain(
      'diff --base "origin/${{ github.base_ref }}" --fail-on danger',
    );
  });

  it.each(['0', '1.5', 'many', '300'])('--shards %s is a usage error', async (n) => {
    const r = await runCli(['init', '--shards', n], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shards must be a whole number');
  });

  it('scaffolds the one-job workflow without --shards', async () => {
    const repo = tempDir();
    expect((await runCli(['init'], { cwd: repo })).code).toBe(0);
    expect(readFileSync(path.join(repo, '.github/workflows/capi-render.yaml'), 'utf8')).not.toMatch(
      /strategy:|matrix:|shard/,
    );
  });
});
