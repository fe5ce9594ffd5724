/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY, end to end: the built CLI (a separate process, so it trusts
 * the test certificate through NODE_EXTRA_CA_CERTS) fetches from the fake GitHub and the fake
 * GitLab over https:// and from a real registry over http://, through a real forward proxy on
 * 127.0.0.1. The names it asks for (api.github.test, gitlab.example.com, registry.test) resolve
 * only at the proxy, as a corporate network's names do: a request that bypasses the proxy cannot
 * reach them, so where the traffic went is visible in the outcome as well as in the proxy's log.
 * `publish` (plain http://, no certificate to trust) runs in-process with the same environment.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOciClient } from '../../src/source/oci/oci-client.js';
import { publishOciArtifact } from '../../src/source/oci/oci-publish.js';
import { runCli } from '../helpers/cli.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { GITLAB_HOST, gitLabUrl, startFakeGitLab, type FakeGitLab } from '../helpers/fake-gitlab.js';
import { CORE_COMPONENTS, REPO_ROOT, fixtureText } from '../helpers/fixtures.js';
import { startForwardProxy, startTlsFront, type ForwardProxy, type TlsFront } from '../helpers/forward-proxy.js';
import { freePort, registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { CORE, makeRepo } from '../helpers/repo.js';
import { skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const GITHUB_HOST = 'api.github.test';
const REGISTRY_HOST = 'registry.test';
const PROXY_USER = 'corp-user';
const PROXY_PASSWORD = 'Pr0xy-Secret-pw';

const registryMissing = registryUnavailableReason();
const skipOci = skipWithout(registryMissing, 'the proxy tests of OCI traffic');

const core = (extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n${extra}`;
const config = (extra = '') =>
  `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\n${extra}`;

let github: FakeGitHub;
let gitlab: FakeGitLab;
let front: TlsFront;
let proxy: ForwardProxy;
let registry: TestRegistry | undefined;

beforeAll(async () => {
  [github, gitlab] = await Promise.all([startFakeGitHub(), startFakeGitLab()]);
  front = await startTlsFront({ [GITHUB_HOST]: github.baseUrl, [GITLAB_HOST]: gitlab.origin });
  if (!registryMissing) {
    registry = await startRegistry();
    await publishOciArtifact({
      reference: `http://${registry.host}/capi/cluster-api:v1.12.0`,
      files: [
        {
          name: 'metadata.yaml',
          bytes: new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml')),
        },
        { name: 'core-components.yaml', bytes: new TextEncoder().encode(fixtureText(CORE_COMPONENTS)) },
      ],
    });
  }
  const registryPort = registry ? Number(registry.host.split(':')[1]) : 0;
  proxy = await startForwardProxy((host, port) =>
    (host === GITHUB_HOST || host === GITLAB_HOST) && port === 443
      ? { host: '127.0.0.1', port: front.port }
      : host === REGISTRY_HOST && registry && port === registryPort
        ? { host: '127.0.0.1', port: registryPort }
        : undefined,
  );
});

afterAll(async () => {
  await Promise.all([github?.close(), gitlab?.close(), front?.close(), proxy?.close(), registry?.stop()]);
});

/** Runs `capi-render build` in its own process — asynchronously: the proxy and servers live in this one. */
async function build(repo: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'build'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      CAPI_RENDER_CACHE_DIR: tempDir(),
      NODE_EXTRA_CA_CERTS: front.certFile,
      CAPI_RENDER_PROGRESS_INTERVAL: '60',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill(), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stderr };
}

const withCredentials = () => proxy.url.replace('http://', `http://${PROXY_USER}:${PROXY_PASSWORD}@`);
const basic = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;
const newRequests = (before: number) => proxy.requests.slice(before);

describe('proxy variables', () => {
  it('GitHub traffic goes through HTTPS_PROXY (CONNECT, with the credentials of the proxy URL)', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config(`github:\n  apiUrl: https://${GITHUB_HOST}\n`),
      'providers/core.yaml': core(),
    });
    const before = proxy.requests.length;
    const r = await build(repo, { HTTPS_PROXY: withCredentials() });
    expect(r.code, r.stderr).toBe(0);
    const seen = newRequests(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(
      seen.every((q) => q.method === 'CONNECT' && q.target === `${GITHUB_HOST}:443` && q.authorization === basic),
    ).toBe(true);
    expect(r.stderr).toContain('rendered default: cluster-api v1.12.0');
    expect(r.stderr).not.toContain(PROXY_PASSWORD);
  });

  it('GitLab traffic goes through it too; lower-case https_proxy works, the upper-case name wins', async () => {
    const url = gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml');
    const repo = makeRepo({
      'capi-render.yaml': config(),
      'providers/core.yaml': core(`  fetchConfig:\n    url: ${url}\n`),
    });
    const before = proxy.requests.length;
    expect((await build(repo, { https_proxy: proxy.url })).code).toBe(0);
    expect(newRequests(before).map((q) => q.target)).toContain(`${GITLAB_HOST}:443`);
    const unusable = await build(
      makeRepo({ 'capi-render.yaml': config(), 'providers/core.yaml': core(`  fetchConfig:\n    url: ${url}\n`) }),
      { HTTPS_PROXY: 'http://127.0.0.1:1', https_proxy: proxy.url },
    );
    expect(unusable.code).toBe(1);
    expect(unusable.stderr).toContain('through proxy http://127.0.0.1:1 (ECONNREFUSED)');
  });

  it("GitLab's Packages API listing (spec.version latest) goes through the proxy too", async () => {
    const url = gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml');
    const repo = makeRepo({
      'capi-render.yaml': config(),
      'providers/core.yaml': core(`  fetchConfig:\n    url: ${url}\n`).replace('version: v1.12.0', 'version: latest'),
    });
    const before = { proxy: proxy.requests.length, gitlab: gitlab.requests.length };
    const r = await build(repo, { HTTPS_PROXY: proxy.url });
    expect(r.code, r.stderr).toBe(0);
    expect(newRequests(before.proxy).every((q) => q.method === 'CONNECT' && q.target === `${GITLAB_HOST}:443`)).toBe(
      true,
    );
    expect(gitlab.requests.slice(before.gitlab).map((q) => q.url)).toContain(
      '/api/v4/projects/capi%2Freleases/packages?package_type=generic&package_name=cluster-api&per_page=100',
    );
    expect(r.stderr).toContain('rendered default: cluster-api v1.12.0');
  });

  it.skipIf(skipOci)(
    'OCI registry traffic over http:// goes through HTTP_PROXY as absolute-form requests',
    async () => {
      const port = registry!.host.split(':')[1];
      const repo = makeRepo({
        'capi-render.yaml': config(),
        'providers/core.yaml': core(
          `  fetchConfig:\n    oci: http://${REGISTRY_HOST}:${port}/capi/cluster-api:v1.12.0\n`,
        ),
      });
      const before = proxy.requests.length;
      const r = await build(repo, { HTTP_PROXY: withCredentials(), HTTPS_PROXY: 'http://127.0.0.1:1' });
      expect(r.code, r.stderr).toBe(0);
      const seen = newRequests(before);
      expect(seen.length).toBeGreaterThan(0);
      for (const q of seen) {
        expect(q.method).not.toBe('CONNECT');
        expect(q.target.startsWith(`http://${REGISTRY_HOST}:${port}/v2/`)).toBe(true);
        expect(q.authorization).toBe(basic);
      }
    },
  );

  it.skipIf(skipOci)(
    'publish pushes through HTTP_PROXY too (the transport build and mirror use), and NO_PROXY bypasses it',
    async () => {
      const port = registry!.host.split(':')[1];
      const repo = makeRepo({ 'providers/core.yaml': CORE('v1.12.0') });
      const cache = tempDir();
      expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
      const publish = (env: Record<string, string>) =>
        runCli(
          [
            'publish',
            '--oci',
            `http://${REGISTRY_HOST}:${port}/capi/default:v1`,
            '--source',
            'https://example.com/platform.git',
            '--revision',
            'v1',
          ],
          { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache, ...env } },
        );
      const before = proxy.requests.length;
      const r = await publish({ HTTP_PROXY: withCredentials(), HTTPS_PROXY: 'http://127.0.0.1:1' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `^pushed rendered/default \\(\\d+ files\\) to http://${REGISTRY_HOST.replace('.', '\\.')}:${port}/capi/default:v1@sha256:`,
          'm',
        ),
      );
      const seen = newRequests(before);
      // The blob checks and uploads and the manifest PUT, all as absolute-form requests with the proxy's credentials.
      expect(seen.map((q) => q.method)).toEqual(expect.arrayContaining(['HEAD', 'POST', 'PUT']));
      for (const q of seen) {
        expect(q.target.startsWith(`http://${REGISTRY_HOST}:${port}/v2/capi/default/`)).toBe(true);
        expect(q.authorization).toBe(basic);
      }
      // What the proxy delivered is in the registry, under the digest publish printed.
      const stored = await createOciClient({ registry: registry!.host, plainHttp: true }).getManifest(
        'capi/default',
        'v1',
      );
      expect(stored.digest).toBe(r.stdout.trim());
      // NO_PROXY is honoured the same way: direct, the name does not resolve, and the proxy sees nothing.
      const direct = proxy.requests.length;
      const bypass = await publish({ HTTP_PROXY: proxy.url, NO_PROXY: REGISTRY_HOST });
      expect(bypass.code).toBe(1);
      expect(bypass.stderr).toMatch(/ENOTFOUND|EAI_AGAIN/);
      expect(newRequests(direct)).toEqual([]);
    },
  );

  it.each([
    { name: 'a domain suffix', noProxy: 'github.test' },
    { name: 'a leading dot', noProxy: 'example.org, .github.test' },
    { name: 'a wildcard entry', noProxy: 'example.org,*' },
    { name: 'host and port', noProxy: `${GITHUB_HOST}:443` },
  ])('NO_PROXY bypasses the proxy: $name', async ({ noProxy }) => {
    const repo = makeRepo({
      'capi-render.yaml': config(`github:\n  apiUrl: https://${GITHUB_HOST}\n`),
      'providers/core.yaml': core(),
    });
    const before = proxy.requests.length;
    const r = await build(repo, { HTTPS_PROXY: proxy.url, NO_PROXY: noProxy });
    // Direct, the name does not resolve: the build fails at once (no retry: progress prints a line
    // per retry) and the proxy saw nothing.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`could not reach ${GITHUB_HOST.replace('.', '\\.')} \\((ENOTFOUND|EAI_AGAIN)\\)`),
    );
    expect(r.stderr).not.toMatch(/retr(y|ied)/);
    expect(newRequests(before)).toEqual([]);
  });

  it('NO_PROXY entries that do not match keep the proxy (another port, a parent-only dot form)', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config(`github:\n  apiUrl: https://${GITHUB_HOST}\n`),
      'providers/core.yaml': core(),
    });
    const r = await build(repo, {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: `${GITHUB_HOST}:8443, .${GITHUB_HOST}, test.github`,
    });
    expect(r.code, r.stderr).toBe(0);
  });

  it('an unreachable proxy fails once, names the proxy without its credentials, and does not retry', async () => {
    const closed = await freePort();
    const repo = makeRepo({
      'capi-render.yaml': config(`github:\n  apiUrl: https://${GITHUB_HOST}\n`),
      'providers/core.yaml': core(),
    });
    const r = await build(repo, { HTTPS_PROXY: `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${closed}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `could not reach ${GITHUB_HOST} through proxy http://***@127.0.0.1:${closed} (ECONNREFUSED)`,
    );
    expect(r.stderr).not.toContain(PROXY_PASSWORD);
    expect(r.stderr).not.toContain(PROXY_USER);
    // No retry: progress prints one line per retry, so none is the count, not a wall-clock guess.
    expect(r.stderr).not.toMatch(/retry/);
  });

  it('a proxy variable that is not a URL is reported by name, its credentials hidden', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config(`github:\n  apiUrl: https://${GITHUB_HOST}\n`),
      'providers/core.yaml': core(),
    });
    const r = await build(repo, { HTTPS_PROXY: `ftp://${PROXY_USER}:${PROXY_PASSWORD}@proxy.corp:21` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTPS_PROXY: ftp:// proxies are not supported');
    expect(r.stderr).not.toContain(PROXY_PASSWORD);
  });
});

it('the CLI bundle is there to run', async () => {
  expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
});
