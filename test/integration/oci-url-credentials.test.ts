/**
 * Credentials of `oci://` provider URLs against a real registry with htpasswd Basic auth: the
 * Docker credential chain the proposal names (PR #14033 FR6: `$DOCKER_CONFIG/config.json`), the
 * provider's configSecret `OCI_*` keys (the operator's) before it, and a clear `auth` error without
 * either — never showing the password.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureText } from '../helpers/fixtures.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { CORE, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { packProviderArtifact, pushProviderArtifact } from '../../src/publish/provider-artifact.js';

const USER = { username: 'capi', password: 'Oci-url-S3cret' };
const unavailable = registryUnavailableReason({ user: USER });
if (unavailable && !process.env.CI) console.warn(`\n!!! SKIPPING the oci:// credential tests: ${unavailable}\n`);

const CONFIG = 'apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\n';
const secret = (values: Record<string, string>) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: oci-creds\n  namespace: capi-system\nstringData:\n${Object.entries(
    values,
  )
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('')}`;

/** A `$DOCKER_CONFIG` folder whose config.json logs in to `host` as `user`. */
function dockerConfig(host: string, user: { username: string; password: string }): string {
  const dir = path.join(tempDir(), 'docker');
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      auths: { [host]: { auth: Buffer.from(`${user.username}:${user.password}`).toString('base64') } },
    }),
  );
  return dir;
}

describe.skipIf(unavailable !== undefined && !process.env.CI)('oci:// provider URLs: registry credentials', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ user: USER });
    const artifact = packProviderArtifact({
      identity: { type: 'core', name: 'cluster-api', version: 'v1.12.0' },
      source: 'https://github.com/kubernetes-sigs/cluster-api',
      files: [
        {
          name: 'metadata.yaml',
          bytes: new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml')),
        },
        {
          name: 'core-components.yaml',
          bytes: new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/core-components.yaml')),
        },
      ],
    });
    await pushProviderArtifact(
      { registry: registry.host, repository: 'capi/manifests/core-cluster-api', tag: 'v1.12.0', plainHttp: true },
      artifact,
      USER,
    );
  });
  afterAll(async () => {
    await registry?.stop();
  });

  const url = () => `  fetchConfig:\n    url: oci://${registry.host}/capi/manifests/core-cluster-api\n`;
  const withSecret = () => `  configSecret:\n    name: oci-creds\n${url()}`;
  const cases: { name: string; files: () => Record<string, string>; env: () => Record<string, string>; ok: boolean }[] =
    [
      {
        name: 'the Docker credential chain ($DOCKER_CONFIG/config.json)',
        files: () => ({ 'providers/core.yaml': CORE('v1.12.0', 'capi-system', url()) }),
        env: () => ({ DOCKER_CONFIG: dockerConfig(registry.host, USER) }),
        ok: true,
      },
      {
        name: 'the configSecret OCI_* keys, before a wrong Docker login',
        files: () => ({
          'providers/core.yaml': CORE('v1.12.0', 'capi-system', withSecret()),
          'providers/secret.yaml': secret({ OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password }),
        }),
        env: () => ({ DOCKER_CONFIG: dockerConfig(registry.host, { username: 'capi', password: 'wrong' }) }),
        ok: true,
      },
      {
        name: 'no credentials at all',
        files: () => ({ 'providers/core.yaml': CORE('v1.12.0', 'capi-system', url()) }),
        env: () => ({ HOME: tempDir() }),
        ok: false,
      },
    ];
  for (const c of cases) {
    it(c.ok ? `logs in with ${c.name}` : `fails with error[auth] with ${c.name}`, async () => {
      const repo = makeRepo({ 'capi-render.yaml': CONFIG, ...c.files() });
      const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir(), ...c.env() } });
      expect(built.stderr).not.toContain(USER.password);
      if (c.ok) {
        expect(built.code, built.stderr).toBe(0);
        expect(built.stderr).toContain('rendered default: cluster-api v1.12.0');
      } else {
        expect(built.code).toBe(1);
        expect(built.stderr).toContain('error[auth]');
      }
    });
  }
});
