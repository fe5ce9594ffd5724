/**
 * The OCI source and publisher against a real registry (Debian's docker-registry, distribution
 * 2.8): artifacts pushed in the operator's `publish` layout are read back through the source.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, RenderError } from '../../src/errors.js';
import { createOciSource, describeOciArtifact } from '../../src/source/oci/oci-source.js';
import { packOciArtifact, publishOciArtifact, type OciFile } from '../../src/source/oci/oci-publish.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { freePort, registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { OPENSSL_BINARY, startTokenServer, type TokenServer } from '../helpers/token-server.js';
import { rejectionOf } from '../helpers/errors.js';

const USER = { username: 'capi', password: 'pa55-Secret-word' };
const REFRESH_TOKEN = 'refresh-Secret-token';
const unavailable =
  registryUnavailableReason({ user: USER }) ??
  (existsSync(OPENSSL_BINARY) ? undefined : `${OPENSSL_BINARY} is missing (apt-get install openssl)`);
const skipRegistry = skipWithout(unavailable, 'the OCI registry tests');

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const text = (s: string) => new TextEncoder().encode(s);
const fixture = (rel: string) => {
  const bytes = readFileSync(`${FIXTURES}${rel}`);
  return new Uint8Array(rel.endsWith('.gz') ? gunzipSync(bytes) : bytes);
};
const CORE_1_12 = fixture('repository/cluster-api/v1.12.0/core-components.yaml.gz');
const META_1_12 = fixture('repository/cluster-api/v1.12.0/metadata.yaml');
const CORE_1_11 = fixture('repository/cluster-api/v1.11.0/core-components.yaml.gz');
const META_1_11 = fixture('repository/cluster-api/v1.11.0/metadata.yaml');

/** Every message and hint of an error, to check no secret leaks. */
function allText(err: unknown): string {
  if (err instanceof RenderError)
    return [err.message, ...err.diagnostics.flatMap((d) => [d.message, d.hint ?? ''])].join('\n');
  return String(err);
}

describe.skipIf(skipRegistry)('OCI source against a real registry', () => {
  let open: TestRegistry;
  let secured: TestRegistry;
  beforeAll(async () => {
    [open, secured] = await Promise.all([startRegistry(), startRegistry({ user: USER })]);
    await publishOciArtifact({
      reference: `http://${open.host}/capi/cluster-api:v1.12.0`,
      files: [
        { name: 'metadata.yaml', bytes: META_1_12 },
        { name: 'core-components.yaml', bytes: CORE_1_12 },
      ],
    });
    // The versioned names the operator's docs use for multi-provider artifacts.
    await publishOciArtifact({
      reference: `http://${open.host}/capi/cluster-api:v1.11.0`,
      files: [
        { name: 'core-cluster-api-v1.11.0-metadata.yaml', bytes: META_1_11 },
        { name: 'core-cluster-api-v1.11.0-components.yaml', bytes: CORE_1_11 },
      ],
    });
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), secured?.stop()]);
  });

  const core = (reference: string, extra: Partial<Parameters<typeof createOciSource>[0]> = {}) =>
    createOciSource({ reference, providerType: 'core', providerName: 'cluster-api', ...extra });

  it('reads back what publish pushed, byte for byte, with the manifest digest in the url', async () => {
    const files: OciFile[] = [
      { name: 'metadata.yaml', bytes: META_1_12 },
      { name: 'core-components.yaml', bytes: CORE_1_12 },
    ];
    const { source, pinnedVersion } = core(`http://${open.host}/capi/cluster-api`);
    expect(pinnedVersion).toBeUndefined();
    const components = await source.readFile('v1.12.0', 'core-components.yaml');
    const metadata = await source.readFile('v1.12.0', 'metadata.yaml');
    expect(sha256(components.bytes)).toBe(sha256(CORE_1_12));
    expect(Buffer.from(metadata.bytes).equals(Buffer.from(META_1_12))).toBe(true);
    const digest = packOciArtifact(files).manifestDigest;
    expect(components.url).toBe(`oci://${open.host}/capi/cluster-api@${digest}#core-components.yaml`);
    expect(describeOciArtifact(components)).toEqual({
      registry: open.host,
      repository: 'capi/cluster-api',
      manifestDigest: digest,
      layerDigest: `sha256:${sha256(CORE_1_12)}`,
      title: 'core-components.yaml',
    });
    // Publishing the same files again (in another order) gives the same manifest.
    const again = await publishOciArtifact({
      reference: `http://${open.host}/capi/cluster-api:v1.12.0`,
      files: [...files].reverse(),
    });
    expect(again.manifestDigest).toBe(digest);
  });

  it('lists the tags as versions when the reference has no tag', async () => {
    expect(await core(`http://${open.host}/capi/cluster-api`).source.listVersions()).toEqual(['v1.11.0', 'v1.12.0']);
  });

  it('lets the reference tag override spec.version (pinnedVersion) and finds versioned file names', async () => {
    const { source, pinnedVersion } = core(`http://${open.host}/capi/cluster-api:v1.11.0`);
    expect(pinnedVersion).toBe('v1.11.0');
    const components = await source.readFile('v1.11.0', 'core-components.yaml');
    expect(sha256(components.bytes)).toBe(sha256(CORE_1_11));
    expect(components.url.endsWith('#core-cluster-api-v1.11.0-components.yaml')).toBe(true);
    // Asked for another version, the pinned tag is still what is fetched.
    const typed = core(`http://${open.host}/capi/cluster-api:v1.12.0`).source;
    expect(sha256((await typed.readFile('v1.11.0', 'core-components.yaml')).bytes)).toBe(sha256(CORE_1_12));
  });

  it('prefers {type}-{name}-{version} titles over typed and generic ones; empty layers count as absent', async () => {
    const reference = `http://${open.host}/capi/precedence:v1.12.0`;
    await publishOciArtifact({
      reference,
      files: [
        { name: 'components.yaml', bytes: text('generic') },
        { name: 'core-components.yaml', bytes: text('typed') },
        { name: 'core-cluster-api-v1.12.0-components.yaml', bytes: text('specific') },
        { name: 'metadata.yaml', bytes: text('generic metadata') },
        { name: 'core-cluster-api-v1.12.0-metadata.yaml', bytes: text('') },
        { name: 'bootstrap-components.yaml', bytes: text('other type') },
      ],
    });
    const read = async (type: string, file: string) =>
      new TextDecoder().decode(
        (
          await createOciSource({ reference, providerType: type, providerName: 'cluster-api' }).source.readFile(
            'v1.12.0',
            file,
          )
        ).bytes,
      );
    expect(await read('core', 'core-components.yaml')).toBe('specific');
    expect(await read('core', 'metadata.yaml')).toBe('generic metadata');
    expect(await read('bootstrap', 'bootstrap-components.yaml')).toBe('other type');
    expect(await read('infrastructure', 'infrastructure-components.yaml')).toBe('generic');
  });

  it('reports an unknown tag as version-not-found, listing the tags', async () => {
    const err = await rejectionOf(
      RenderError,
      core(`http://${open.host}/capi/cluster-api`).source.readFile('v9.9.9', 'core-components.yaml'),
    );
    expect(err).toBeInstanceOf(FetchError);
    expect(err.code).toBe('version-not-found');
    expect(err.diagnostics[0]?.hint).toContain('v1.12.0');
    expect(err.diagnostics[0]?.hint).toContain('v1.11.0');
    const noRepo = await rejectionOf(RenderError, core(`http://${open.host}/capi/nothing-here`).source.listVersions());
    expect(noRepo.code).toBe('source-not-found');
  });

  it('reports a missing components layer as source-not-found, naming the layers present', async () => {
    const reference = `http://${open.host}/capi/metadata-only:v1.12.0`;
    await publishOciArtifact({ reference, files: [{ name: 'metadata.yaml', bytes: META_1_12 }] });
    const err = await rejectionOf(RenderError, core(reference).source.readFile('v1.12.0', 'core-components.yaml'));
    expect(err.code).toBe('source-not-found');
    expect(err.diagnostics[0]?.hint).toContain('metadata.yaml');
  });

  it('gives a moved tag a different url', async () => {
    const reference = `http://${open.host}/capi/moving:v1.0.0`;
    await publishOciArtifact({
      reference,
      files: [
        { name: 'components.yaml', bytes: text('first') },
        { name: 'metadata.yaml', bytes: META_1_12 },
      ],
    });
    const before = await core(reference).source.readFile('v1.0.0', 'core-components.yaml');
    await publishOciArtifact({
      reference,
      files: [
        { name: 'components.yaml', bytes: text('second') },
        { name: 'metadata.yaml', bytes: META_1_12 },
      ],
    });
    const after = await core(reference).source.readFile('v1.0.0', 'core-components.yaml');
    expect(new TextDecoder().decode(after.bytes)).toBe('second');
    expect(after.url).not.toBe(before.url);
  });

  it('uses Basic credentials (htpasswd) and fails with auth, never showing the password', async () => {
    const reference = `http://${secured.host}/private/cluster-api:v1.12.0`;
    const files = [
      { name: 'metadata.yaml', bytes: META_1_12 },
      { name: 'core-components.yaml', bytes: CORE_1_12 },
    ];
    const pushedAnonymously = await rejectionOf(RenderError, publishOciArtifact({ reference, files }));
    expect(pushedAnonymously.code).toBe('auth');
    await publishOciArtifact({ reference, files, credentials: USER });

    const withCredentials = core(reference, { credentials: USER }).source;
    expect(await withCredentials.listVersions()).toEqual(['v1.12.0']);
    expect(sha256((await withCredentials.readFile('v1.12.0', 'core-components.yaml')).bytes)).toBe(sha256(CORE_1_12));

    const failures = await Promise.all([
      rejectionOf(RenderError, core(reference).source.readFile('v1.12.0', 'core-components.yaml')),
      rejectionOf(RenderError, core(reference).source.listVersions()),
      rejectionOf(
        RenderError,
        core(reference, {
          credentials: { username: USER.username, password: `${USER.password}-wrong` },
        }).source.listVersions(),
      ),
      rejectionOf(
        RenderError,
        publishOciArtifact({ reference, files, credentials: { username: 'capi', password: `x${USER.password}` } }),
      ),
    ]);
    for (const err of failures) {
      expect(err.code).toBe('auth');
      expect(allText(err)).not.toContain(USER.password);
      expect(allText(err)).not.toContain(Buffer.from(`${USER.username}:${USER.password}`).toString('base64'));
    }
  });

  it('reports an unreachable registry as fetch, naming host:port', async () => {
    const port = await freePort();
    const err = await rejectionOf(RenderError, core(`http://127.0.0.1:${port}/capi/cluster-api`).source.listVersions());
    expect(err.code).toBe('fetch');
    expect(err.message).toContain(`127.0.0.1:${port}`);
    // TLS against a plain-HTTP registry fails fast too, and says to try http://.
    const tls = await rejectionOf(
      RenderError,
      core(`https://${open.host}/capi/cluster-api`, { timeoutMs: 5000 }).source.listVersions(),
    );
    expect(tls.code).toBe('fetch');
  });
});

describe.skipIf(skipRegistry)('OCI source against a real registry with token auth', () => {
  let dir: string;
  let tokens: TokenServer;
  let registry: TestRegistry;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-token-'));
    tokens = await startTokenServer({ dir, user: USER, refreshToken: REFRESH_TOKEN });
    registry = await startRegistry({ token: tokens });
  });
  afterAll(async () => {
    await Promise.all([registry?.stop(), tokens?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const files = [
    { name: 'metadata.yaml', bytes: META_1_12 },
    { name: 'core-cluster-api-v1.12.0-components.yaml', bytes: CORE_1_12 },
  ];

  it('gets a token with username/password, then with a refresh token or an access token', async () => {
    const reference = `http://${registry.host}/tokens/cluster-api:v1.12.0`;
    await publishOciArtifact({ reference, files, credentials: USER });
    expect(tokens.counts.password).toBeGreaterThan(0);

    const byRefresh = createOciSource({
      reference,
      providerType: 'core',
      providerName: 'cluster-api',
      credentials: { refreshToken: REFRESH_TOKEN },
    }).source;
    expect(sha256((await byRefresh.readFile('v1.12.0', 'core-components.yaml')).bytes)).toBe(sha256(CORE_1_12));
    expect(tokens.counts.refresh).toBe(1); // the manifest and the blob share the cached token

    const accessToken = tokens.mint(['repository:tokens/cluster-api:pull']);
    const before = { ...tokens.counts };
    const byAccess = createOciSource({
      reference,
      providerType: 'core',
      providerName: 'cluster-api',
      credentials: { accessToken },
    }).source;
    expect(sha256((await byAccess.readFile('v1.12.0', 'metadata.yaml')).bytes)).toBe(sha256(META_1_12));
    expect(tokens.counts).toEqual(before); // an access token is used as is
  });

  it('fails with auth when the token service refuses, never showing a secret', async () => {
    const reference = `http://${registry.host}/tokens/cluster-api`;
    const failures = await Promise.all([
      rejectionOf(
        RenderError,
        createOciSource({ reference, providerType: 'core', providerName: 'cluster-api' }).source.listVersions(),
      ),
      rejectionOf(
        RenderError,
        createOciSource({
          reference,
          providerType: 'core',
          providerName: 'cluster-api',
          credentials: { ...USER, password: 'nope' },
        }).source.listVersions(),
      ),
      rejectionOf(
        RenderError,
        createOciSource({
          reference,
          providerType: 'core',
          providerName: 'cluster-api',
          credentials: { refreshToken: `${REFRESH_TOKEN}-old` },
        }).source.listVersions(),
      ),
    ]);
    expect(tokens.counts.anonymous).toBeGreaterThan(0);
    for (const err of failures) {
      expect(err.code).toBe('auth');
      expect(allText(err)).not.toContain(USER.password);
      expect(allText(err)).not.toContain(REFRESH_TOKEN);
    }
  });
});
