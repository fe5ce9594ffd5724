/**
 * What capi-render.lock knows a pinned image by: the reference its provider releases (before
 * `images:` overrides), so a mirror's location is not part of the pin; and how the resolver uses
 * that key — reused wherever the image is pulled from, resolved where it is pulled from.
 */
import { describe, expect, it } from 'vitest';
import { FetchError, SpecError } from '../../src/errors.js';
import { createImageResolver } from '../../src/images/image-resolver.js';
import { lockKey } from '../../src/images/pin-images.js';
import type { ImageRegistry } from '../../src/images/registry/image-registry.js';
import { imageOrigins, type ImageOverrides } from '../../src/process/image-overrides.js';
import { imageDisagreements } from '../../src/merge/merge-shards.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const CORE = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0';
const CM = 'quay.io/jetstack/cert-manager-controller:v1.19.4';

describe('lockKey over images: overrides', () => {
  // `released`: the images an artifact names; `rendered`: the image the output runs (an override's
  // result, or a patch's); `key`: what the lock records it under.
  const cases: {
    name: string;
    released: string[];
    component: string;
    overrides: ImageOverrides;
    rendered: string;
    key: string;
  }[] = [
    {
      name: 'no override: the image is its own key',
      released: [CORE],
      component: 'cluster-api',
      overrides: {},
      rendered: CORE,
      key: CORE,
    },
    {
      name: 'an override to a mirror: the released image',
      released: [CORE],
      component: 'cluster-api',
      overrides: { all: { repository: 'registry.site/capi' } },
      rendered: 'registry.site/capi/cluster-api-controller:v1.12.0',
      key: CORE,
    },
    {
      name: 'another mirror: the same key',
      released: [CORE],
      component: 'cluster-api',
      overrides: { all: { repository: 'mirror.other/x/y' } },
      rendered: 'mirror.other/x/y/cluster-api-controller:v1.12.0',
      key: CORE,
    },
    {
      name: 'a per-component override',
      released: [CORE],
      component: 'cluster-api',
      overrides: { 'cluster-api': { repository: 'registry.site/core' } },
      rendered: 'registry.site/core/cluster-api-controller:v1.12.0',
      key: CORE,
    },
    {
      name: 'an override that changes the tag',
      released: [CORE],
      component: 'cluster-api',
      overrides: { all: { repository: 'registry.site/capi', tag: 'v1.12.0-site' } },
      rendered: 'registry.site/capi/cluster-api-controller:v1.12.0-site',
      key: CORE,
    },
    {
      name: "cert-manager's images, overridden per image",
      released: [CM, 'quay.io/jetstack/cert-manager-webhook:v1.19.4'],
      component: 'cert-manager',
      overrides: { 'cert-manager/cert-manager-controller': { repository: 'registry.site/jetstack' } },
      rendered: 'registry.site/jetstack/cert-manager-controller:v1.19.4',
      key: CM,
    },
    {
      name: 'an image a patch set (no released image became it): itself',
      released: [CORE],
      component: 'cluster-api',
      overrides: { all: { repository: 'registry.site/capi' } },
      rendered: 'registry.site/patched/manager:v1',
      key: 'registry.site/patched/manager:v1',
    },
    {
      name: 'two released images the override sends to one name: the rendered name (each has its own content)',
      released: ['a.example/x/manager:v1', 'b.example/y/manager:v1'],
      component: 'infrastructure-z',
      overrides: { all: { repository: 'registry.site/capi' } },
      rendered: 'registry.site/capi/manager:v1',
      key: 'registry.site/capi/manager:v1',
    },
    {
      name: 'a released image with a digest: keyed without it',
      released: [`${CORE}@${D1}`],
      component: 'cluster-api',
      overrides: { all: { repository: 'registry.site/capi' } },
      rendered: 'registry.site/capi/cluster-api-controller:v1.12.0',
      key: CORE,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const origins = imageOrigins(c.released, c.component, c.overrides);
      const exact = new Map(
        [...origins].map(([rendered, released]) => [rendered.replace(/@sha256:[0-9a-f]{64}$/, ''), released]),
      );
      expect(lockKey(c.rendered, exact.get(c.rendered) ?? [])).toBe(c.key);
    });
  }
});

describe('the resolver and origin keys', () => {
  /** A registry that answers every tag from `tags` and counts what it is asked. */
  const registry = (tags: Record<string, string>) => {
    const asked: string[] = [];
    const client = {
      resolve: async (image: { registry: string; repository: string; tag: string }) => {
        const ref = `${image.registry}/${image.repository}:${image.tag}`;
        asked.push(ref);
        const digest = tags[ref];
        if (!digest) throw new FetchError([{ severity: 'error', code: 'fetch', message: `no ${ref}` }]);
        return { digest, mediaType: 'application/vnd.oci.image.index.v1+json', platforms: [] };
      },
    } as unknown as ImageRegistry;
    return { client, asked };
  };
  const SITE = 'registry.site/capi/cluster-api-controller:v1.12.0';
  const OTHER = 'mirror.other/capi/cluster-api-controller:v1.12.0';
  const resolver = (locked: [string, string][], client: ImageRegistry, offline = false) =>
    createImageResolver({
      locked: new Map(locked.map(([image, digest]) => [image, { digest }])),
      repoRoot: '/nonexistent',
      offline,
      registry: () => client,
    });
  const policy = { insecureRegistries: [] };

  const cases: {
    name: string;
    locked: [string, string][];
    offline: boolean;
    tags: Record<string, string>;
    image: string;
    key: string;
    digest: string;
    asked: string[];
  }[] = [
    {
      name: 'the lock has the origin: reused at a mirror, offline, nothing asked',
      locked: [[CORE, D1]],
      offline: true,
      tags: {},
      image: SITE,
      key: CORE,
      digest: D1,
      asked: [],
    },
    {
      name: 'the lock has the origin: reused at another mirror, nothing asked',
      locked: [[CORE, D1]],
      offline: false,
      tags: { [OTHER]: D2 },
      image: OTHER,
      key: CORE,
      digest: D1,
      asked: [],
    },
    {
      name: 'the override removed: the origin is pulled and reused',
      locked: [[CORE, D1]],
      offline: true,
      tags: {},
      image: CORE,
      key: CORE,
      digest: D1,
      asked: [],
    },
    {
      name: 'a lock from before origin keys (the rendered name): reused',
      locked: [[SITE, D1]],
      offline: true,
      tags: {},
      image: SITE,
      key: CORE,
      digest: D1,
      asked: [],
    },
    {
      name: 'the lock lacks it: resolved where it is pulled from',
      locked: [],
      offline: false,
      tags: { [SITE]: D2, [CORE]: D1 },
      image: SITE,
      key: CORE,
      digest: D2,
      asked: [SITE],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { client, asked } = registry(c.tags);
      const r = resolver(c.locked, client, c.offline);
      expect(await r.lookup(policy)(c.image, c.key)).toBe(c.digest);
      expect(asked).toEqual(c.asked);
      // Only an entry found under the old name is re-keyed (and said so once by the build).
      const old = c.locked.some(([image]) => image === c.key)
        ? []
        : c.locked.filter(([image]) => image === c.image).map(([image]) => [image, c.key]);
      expect([...r.rekeyed()]).toEqual(old);
    });
  }

  it('offline, an image the lock lacks is named with the released name the lock would know it by', async () => {
    const { client } = registry({});
    const lookup = resolver([[OTHER, D1]], client, true).lookup(policy);
    await expect(lookup(SITE, CORE)).rejects.toThrow(
      `--offline: image ${SITE} has no digest in capi-render.lock (which names it as released: ${CORE})`,
    );
  });

  it('refuses two locations of one released image that point to different digests (a stale mirror)', async () => {
    const { client } = registry({ [SITE]: D1, [CORE]: D2 });
    const lookup = resolver([], client).lookup(policy);
    expect(await lookup(CORE, CORE)).toBe(D2);
    const stale = lookup(SITE, CORE);
    await expect(stale).rejects.toBeInstanceOf(SpecError);
    await expect(stale).rejects.toThrow(`${CORE} points to ${D2} but ${SITE} to ${D1}, and both are ${CORE}`);
  });

  it('upgrade --images refreshes by key: the mirror is asked again', async () => {
    const { client, asked } = registry({ [SITE]: D2 });
    const r = createImageResolver({
      locked: new Map([[CORE, { digest: D1 }]]),
      repoRoot: '/nonexistent',
      offline: false,
      refresh: (key) => key === CORE,
      registry: () => client,
    });
    expect(await r.lookup(policy)(SITE, CORE)).toBe(D2);
    expect(asked).toEqual([SITE]);
  });
});

describe('merging shards', () => {
  const entry = (environment: string, digest: string) => ({
    environment,
    providers: [],
    artifacts: [],
    crds: [],
    images: [{ image: CORE, digest }],
  });
  const shardOf = new Map([
    ['dev', 'shard 1/2 (a)'],
    ['prod', 'shard 2/2 (b)'],
  ]);
  it('accepts one released image pinned alike by every shard', () => {
    expect(imageDisagreements([entry('dev', D1), entry('prod', D1)], shardOf)).toEqual([]);
  });
  it('refuses one released image two shards pinned to different digests (two mirrors that disagree), naming both', () => {
    const [problem, ...rest] = imageDisagreements([entry('dev', D1), entry('prod', D2)], shardOf);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      severity: 'error',
      code: 'shard',
      message: `${CORE} is pinned to ${D1} by environment dev (shard 1/2 (a)) but to ${D2} by prod (shard 2/2 (b)): one released image pins one digest`,
    });
  });
});
