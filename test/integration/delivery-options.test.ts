/**
 * The delivery options' error cases through `build`: each bad setting fails with one error naming
 * capi-render.yaml (and its line where the schema can tell), exit 1, and nothing written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const argocd = (lines: string) =>
  `gitops:\n  flavour: argocd\n  argocd:\n    application: true\n    repoURL: https://git.example.com/m.git\n${lines}`;
const flux = (lines: string) => `gitops:\n  flavour: flux\n  flux:\n${lines}`;

const cases: { name: string; config: string; code: string; line?: number; text: RegExp }[] = [
  {
    name: 'a destination server that is not a URL',
    config: argocd('    destination:\n      server: mgmt-prod\n'),
    code: 'config',
    line: 13,
    text: /server/,
  },
  {
    name: 'a destination with both server and name',
    config: argocd('    destination:\n      server: https://a.example.com\n      name: a\n'),
    code: 'destination',
    text: /exactly one of server and name/,
  },
  { name: 'an unknown source', config: argocd('    source: helm\n'), code: 'config', line: 12, text: /source/ },
  {
    name: 'a hydrator path at the repository root',
    config: argocd('    source: hydrator\n    hydrator:\n      pathPrefix: .\n'),
    code: 'config',
    line: 14,
    text: /pathPrefix/,
  },
  {
    name: 'an unknown plugin setting',
    config: argocd('    plugin:\n      version: v1\n'),
    code: 'config',
    line: 13,
    text: /version/,
  },
  {
    name: 'a digest that is not sha256',
    config: flux('    oci:\n      repository: registry.example.com/capi\n      digest: latest\n'),
    code: 'config',
    line: 12,
    text: /digest/,
  },
  {
    name: 'an OCI source without a repository',
    config: flux('    oci:\n      tag: v1\n'),
    code: 'config',
    text: /gitops\.flux\.oci\.repository is required/,
  },
  {
    name: 'an OCI repository with a scheme',
    config: flux('    oci:\n      repository: oci://registry.example.com/capi\n'),
    code: 'config',
    line: 11,
    text: /repository/,
  },
  {
    name: 'a kubeConfig without a secretRef name',
    config: flux('    kubeConfig:\n      secretRef: {}\n'),
    code: 'config',
    line: 11,
    text: /name/,
  },
];

describe('delivery options: bad settings', () => {
  it.each(cases)('$name → error[$code]', async ({ config, code, line, text }) => {
    const repo = makeRepo({ 'capi-render.yaml': configYaml(config), 'providers/core.yaml': CORE() });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^capi-render\\.yaml${line ? `:${line}:\\d+` : ''}: error\\[${code}\\]|error\\[${code}\\]`, 'm'),
    );
    expect(r.stderr).toMatch(text);
    if (line) expect(r.stderr).toMatch(new RegExp(`^capi-render\\.yaml:${line}:`, 'm'));
    expect(existsSync(path.join(repo, 'rendered'))).toBe(false);
  });
});
