/**
 * What a build of local repositories loads, read from the built CLI itself: a module hook records
 * every file Node loads, and each chunk's source map says which sources it holds. The SOPS and age
 * code loads on first use only, so such a build loads none of it; a build with a SOPS Secret to
 * seal does load the sealer. Nor does a build that reports no problem load the `yaml` package, which
 * only a problem's line and column need.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireCurrentDist } from '../helpers/built-dist.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

/** Sources that only a build using SOPS needs, or one reporting a problem with its position. */
const ON_FIRST_USE = [
  /node_modules\/(age-encryption|@noble\/(curves|hashes|ciphers)|@scure\/base|yaml)\//,
  /src\/secrets\/sops\/(seal-environment|decrypt-encrypted-inputs|age-keys)\.ts$/,
];

/** The sources of every bundled file a `capi-render build` in `repo` loaded, by the files' source maps. */
function loadedSources(repo: string, env: Record<string, string> = {}): string[] {
  const dir = tempDir();
  const log = path.join(dir, 'loaded.txt');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  const register = path.join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, CLI, 'build'], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...env, NO_COLOR: '1', CAPI_RENDER_CACHE_DIR: path.join(dir, 'cache') },
  });
  expect(r.status, r.stderr).toBe(0);
  const files = [...new Set(readFileSync(log, 'utf8').split('\n'))]
    .filter((url) => url.startsWith('file:') && url.includes('/dist/bin/'))
    .map((url) => new URL(url).pathname);
  return files.flatMap((file) =>
    existsSync(`${file}.map`) ? (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources : [],
  );
}

describe('modules a build loads', () => {
  beforeAll(() => requireCurrentDist());

  it('a build of local repositories loads no SOPS, age or yaml package code', () => {
    const sources = loadedSources(makeRepo({ 'providers/core.yaml': CORE() }));
    // The render itself was loaded and read: the check below looks at real chunks.
    expect(sources.some((s) => s.endsWith('src/render/render-run.ts'))).toBe(true);
    expect(sources.filter((s) => ON_FIRST_USE.some((re) => re.test(s)))).toEqual([]);
  });

  it('a build with a Secret to seal loads the sealer and age', () => {
    // As test/integration/sops-flux.test.ts: CAPA's credential lands in a Secret, sealed for Flux.
    const credential = Buffer.from('[default]\naws_access_key_id = AKIAEXAMPLE\n').toString('base64');
    const repo = makeRepo({
      'capi-render.yaml': configYaml(
        'variables:\n  CAPA_CONTROLLER_IMAGE_TAG: v2.0.2\n  TKG_NO_PROXY: ""\n  TKG_HTTPS_PROXY: ""\n  TKG_HTTP_PROXY: ""\nsecrets:\n  mode: sops\ngitops:\n  flavour: flux\n',
        [`${FIXTURES}derived/tanzu-framework`],
      ),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.0.2\n  configSecret:\n    name: aws-variables\n',
      'providers/vars.yaml': `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: "${credential}"\n`,
      '.sops.yaml':
        'creation_rules:\n  - path_regex: ^rendered/.*\\.yaml$\n    encrypted_regex: ^(data|stringData)$\n    age: age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29\n',
    });
    const sources = loadedSources(repo);
    expect(sources.some((s) => s.endsWith('src/secrets/sops/seal-environment.ts'))).toBe(true);
    expect(sources.some((s) => /node_modules\/age-encryption\//.test(s))).toBe(true);
  });
});
