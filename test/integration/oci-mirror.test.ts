/**
 * mirror --format oci pushes pinned releases to a real registry (Debian's docker-registry) in the
 * operator's publish layout; a repository whose providers read them through spec.fetchConfig.oci
 * renders exactly what the local repository renders.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtureText } from '../helpers/fixtures.js';

const USER = { username: 'mirror', password: 'S3cret-mirror-pw' };
const unavailable = registryUnavailableReason({ user: USER });
const skipRegistry = skipWithout(unavailable, 'the OCI mirror tests');

const infra = (extra: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n${extra}`;
const secret = (user?: { username: string; password: string }) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: oci-creds\n  namespace: capd-system\nstringData:\n${user ? `  OCI_USERNAME: ${user.username}\n  OCI_PASSWORD: ${user.password}\n` : '  unrelated: x\n'}`;

describe.skipIf(skipRegistry)('mirror --format oci → fetchConfig.oci', () => {
  let open: TestRegistry;
  let secured: TestRegistry;
  beforeAll(async () => {
    open = await startRegistry();
    secured = await startRegistry({ user: USER });
  });
  afterAll(async () => {
    await open?.stop();
    await secured?.stop();
  });

  it('renders the same output from the registry as from the local repository', async () => {
    const local = makeRepo({ 'providers/core.yaml': CORE(), 'providers/docker.yaml': infra('') });
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build'], { cwd: local, env })).code).toBe(0);
    const pushed = await runCli(['mirror', '--format', 'oci', '--to', `http://${open.host}/capi`], { cwd: local, env });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toMatch(
      /pushed http:\/\/127\.0\.0\.1:\d+\/capi\/infrastructure-docker:v1\.12\.0 \(sha256:[0-9a-f]{64}\)/,
    );

    const oci = (label: string) => `  fetchConfig:\n    oci: http://${open.host}/capi/${label}:v1.12.0\n`;
    const consumer = makeRepo({
      'providers/core.yaml': CORE('v1.12.0', 'capi-system', oci('cluster-api')),
      'providers/docker.yaml': infra(oci('infrastructure-docker')),
    });
    const built = await runCli(['build'], { cwd: consumer, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(built.code, built.stderr).toBe(0);
    expect(snapshotTree(path.join(consumer, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));

    // The tag moves: other bytes are published under infrastructure-docker:v1.12.0 (same file names).
    // The lock pinned the old digests, so the next render (cold cache) refuses instead of updating.
    const { publishOciArtifact } = await import('../../src/source/oci/oci-publish.js');
    const encoder = new TextEncoder();
    await publishOciArtifact({
      reference: `http://${open.host}/capi/infrastructure-docker:v1.12.0`,
      files: [
        {
          name: 'infrastructure-docker-v1.12.0-components.yaml',
          bytes: encoder.encode(
            fixtureText('repository/infrastructure-docker/v1.11.0/infrastructure-components-development.yaml'),
          ),
        },
        {
          name: 'infrastructure-docker-v1.12.0-metadata.yaml',
          bytes: encoder.encode(fixtureText('repository/infrastructure-docker/v1.12.0/metadata.yaml')),
        },
      ],
    });
    // A no-op build fetches nothing; the CI gate (check) re-fetches and refuses the moved tag.
    const moved = await runCli(['check'], { cwd: consumer, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain('error[digest-mismatch]');
  });

  it('reads a registry with Basic auth using configSecret credentials, and fails clearly without them', async () => {
    const local = makeRepo({ 'providers/core.yaml': CORE(), 'providers/docker.yaml': infra('') });
    const env = { CAPI_RENDER_CACHE_DIR: tempDir(), OCI_USERNAME: USER.username, OCI_PASSWORD: USER.password };
    const pushed = await runCli(['mirror', '--format', 'oci', '--to', `http://${secured.host}/capi`], {
      cwd: local,
      env,
    });
    expect(pushed.code, pushed.stderr).toBe(0);

    const withCreds = `  configSecret:\n    name: oci-creds\n  fetchConfig:\n    oci: http://${secured.host}/capi/infrastructure-docker:v1.12.0\n`;
    const good = makeRepo({
      'providers/core.yaml': CORE(),
      'providers/docker.yaml': infra(withCreds),
      'providers/secret.yaml': secret(USER),
    });
    const ok = await runCli(['build'], { cwd: good, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(ok.code, ok.stderr).toBe(0);

    const bad = makeRepo({
      'providers/core.yaml': CORE(),
      'providers/docker.yaml': infra(withCreds),
      'providers/secret.yaml': secret(),
    });
    const denied = await runCli(['build'], { cwd: bad, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('error[auth]');
    expect(denied.stderr).not.toContain(USER.password);
  });
});
