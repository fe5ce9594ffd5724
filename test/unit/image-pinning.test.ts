/** The pure parts of image pinning: where images are, how they are pinned, locked and mirrored. */
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject, SpecError } from 'capi-render';
import { FetchError } from '../../src/errors.js';
import { imageSites } from '../../src/images/image-sites.js';
import { pinImages, hasDigest } from '../../src/images/pin-images.js';
import { registryPolicy } from '../../src/images/registry-policy.js';
import { planImageCopies } from '../../src/images/mirror-images.js';
import { parseLock, serializeLock } from '../../src/lock/lock-file.js';
import { lockChanges, nextLock } from '../../src/lock/next-lock.js';
import { emptyLock } from '../../src/lock/lock-types.js';
import type { InputObject } from '../../src/declarations/inputs.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

const pod = (spec: JsonObject): JsonObject => ({ containers: [{ name: 'c', image: 'r.example/a/c:v1' }], ...spec });
const workload = (kind: string, podSpec: JsonObject): KubeObject => {
  const meta = { name: 'w', namespace: 'ns' };
  if (kind === 'Pod') return { apiVersion: 'v1', kind, metadata: meta, spec: podSpec };
  if (kind === 'CronJob')
    return {
      apiVersion: 'batch/v1',
      kind,
      metadata: meta,
      spec: { jobTemplate: { spec: { template: { spec: podSpec } } } },
    };
  return { apiVersion: 'apps/v1', kind, metadata: meta, spec: { template: { spec: podSpec } } };
};

describe('image sites', () => {
  const cases: { name: string; object: KubeObject; images: string[] }[] = [
    {
      name: 'Deployment containers and initContainers',
      object: workload('Deployment', pod({ initContainers: [{ name: 'i', image: 'r.example/a/init:v1' }] })),
      images: ['r.example/a/init:v1', 'r.example/a/c:v1'],
    },
    { name: 'StatefulSet', object: workload('StatefulSet', pod({})), images: ['r.example/a/c:v1'] },
    { name: 'Job', object: workload('Job', pod({})), images: ['r.example/a/c:v1'] },
    { name: 'CronJob (job template)', object: workload('CronJob', pod({})), images: ['r.example/a/c:v1'] },
    {
      name: 'a bare Pod',
      object: workload('Pod', pod({ ephemeralContainers: [{ name: 'e', image: 'r.example/a/debug:v1' }] })),
      images: ['r.example/a/c:v1', 'r.example/a/debug:v1'],
    },
    {
      name: "cert-manager's ACME solver image, passed as an argument",
      object: workload('Deployment', {
        containers: [
          {
            name: 'cert-manager-controller',
            image: 'quay.io/jetstack/cert-manager-controller:v1.19.4',
            args: ['--v=2', '--acme-http01-solver-image=quay.io/jetstack/cert-manager-acmesolver:v1.19.4'],
          },
        ],
      }),
      images: ['quay.io/jetstack/cert-manager-controller:v1.19.4', 'quay.io/jetstack/cert-manager-acmesolver:v1.19.4'],
    },
    {
      name: 'a ConfigMap has none',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { image: 'r.example/a/c:v1' } },
      images: [],
    },
  ];
  for (const c of cases) it(c.name, () => expect(imageSites(c.object).map((s) => s.image)).toEqual(c.images));
});

describe('pinImages', () => {
  const component = (objects: KubeObject[]) => [{ name: 'cert-manager', objects }];
  it('pins every image once, the argument too, and leaves an image that has its digest', async () => {
    const asked: string[] = [];
    const deployment = workload('Deployment', {
      containers: [
        { name: 'a', image: 'r.example/a/c:v1', args: ['--acme-http01-solver-image=r.example/a/solver:v1'] },
        { name: 'b', image: 'r.example/a/c:v1' },
        { name: 'c', image: `r.example/a/pinned:v1@${D2}` },
      ],
    });
    const pinned = await pinImages(component([deployment]), async (image) => {
      asked.push(image);
      return D1;
    });
    expect(asked.sort()).toEqual(['r.example/a/c:v1', 'r.example/a/solver:v1']);
    expect(imageSites(pinned.components[0]!.objects[0]!).map((s) => s.image)).toEqual([
      `r.example/a/c:v1@${D1}`,
      `r.example/a/solver:v1@${D1}`,
      `r.example/a/c:v1@${D1}`,
      `r.example/a/pinned:v1@${D2}`,
    ]);
    expect(pinned.images).toEqual(['r.example/a/c:v1', 'r.example/a/solver:v1']);
    expect(imageSites(deployment)[0]!.image, 'the input is never mutated').toBe('r.example/a/c:v1');
    expect(hasDigest(`x/y:z@${D1}`)).toBe(true);
  });
  it('reports every image that fails, each naming the object that uses it', async () => {
    const objects = [
      workload('Deployment', {
        containers: [
          { name: 'a', image: 'r.example/a/x:v1' },
          { name: 'b', image: 'r.example/a/y:v1' },
        ],
      }),
    ];
    const err = await pinImages(component(objects), async (image) => {
      throw new FetchError({ severity: 'error', code: 'fetch', message: `image ${image}: not found` });
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).diagnostics.map((d) => d.message)).toEqual([
      'image r.example/a/x:v1: not found (used by Deployment/ns/w container "a")',
      'image r.example/a/y:v1: not found (used by Deployment/ns/w container "b")',
    ]);
  });
});

describe('registryPolicy', () => {
  const secret = (data: Record<string, string>): InputObject =>
    ({
      file: 'providers/creds.yaml',
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'creds', namespace: 'capi-system' },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: data,
      },
      locate: () => ({}),
    }) as unknown as InputObject;
  it('reads a dockerconfigjson pull secret: auth split on the first colon, Docker Hub keys as docker.io', () => {
    const config = JSON.stringify({
      auths: {
        'https://index.docker.io/v1/': { auth: Buffer.from('hub:p:w').toString('base64') },
        'registry.internal:5000': { username: 'u', password: 'pw' },
      },
    });
    const policy = registryPolicy(
      { pinDigests: true, insecureRegistries: ['lab:5000'], pullSecret: { name: 'creds', namespace: 'capi-system' } },
      [secret({ '.dockerconfigjson': config })],
      {},
    );
    expect(policy).toEqual({
      insecureRegistries: ['lab:5000'],
      credentials: {
        'docker.io': { username: 'hub', password: 'p:w' },
        'registry.internal:5000': { username: 'u', password: 'pw' },
      },
    });
  });
  it('refuses a missing or malformed pull secret without printing its content', () => {
    const table: [InputObject[], RegExp][] = [
      [[], /is not among the inputs/],
      [[secret({ other: 'x' })], /has no \.dockerconfigjson key/],
      [[secret({ '.dockerconfigjson': 'not json s3cr3t' })], /is not JSON/],
    ];
    for (const [inputs, says] of table) {
      const err = (() => {
        try {
          registryPolicy({ pullSecret: { name: 'creds', namespace: 'capi-system' } }, inputs, {});
        } catch (e) {
          return e as SpecError;
        }
        throw new Error('expected an error');
      })();
      expect(err.diagnostics[0]!.message).toMatch(says);
      expect(JSON.stringify(err.diagnostics)).not.toContain('s3cr3t');
    }
  });
});

describe('planImageCopies', () => {
  it('flattens to PREFIX/name:tag, and refuses two images that would collide', () => {
    expect(
      planImageCopies(
        [{ image: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', digest: D1 }],
        'mirror.example/capi/',
      ),
    ).toEqual([
      {
        image: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
        at: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
        digest: D1,
        target: 'mirror.example/capi/cluster-api-controller:v1.12.0',
      },
    ]);
    expect(() =>
      planImageCopies(
        [
          { image: 'a.example/x/manager:v1', digest: D1 },
          { image: 'b.example/y/manager:v1', digest: D2 },
        ],
        'm.example/p',
      ),
    ).toThrow(/would both be mirrored to m\.example\/p\/manager:v1/);
  });
});

describe('images in the lock', () => {
  const entry = (environment: string, images: { image: string; digest: string }[]) => ({
    environment,
    providers: [],
    artifacts: [],
    crds: [],
    images,
  });
  it('lists each image once, per environment the references; survives a round trip', () => {
    const lock = nextLock(
      emptyLock(),
      [
        entry('dev', [{ image: 'r.example/a/c:v1', digest: D1 }]),
        entry('prod', [{ image: 'r.example/a/c:v1', digest: D1 }]),
      ],
      ['dev', 'prod'],
    );
    const text = serializeLock(lock);
    expect(text).toContain(`images:\n- image: r.example/a/c:v1\n  digest: ${D1}\n`);
    expect(text).toMatch(/- name: dev\n {2}providers: \[\]\n {2}crds: \[\]\n {2}images:\n {2}- r\.example\/a\/c:v1/);
    expect(serializeLock(parseLock(text))).toBe(text);
  });
  it('keeps the digests of environments not rendered, drops those no environment runs, and reports a moved digest', () => {
    const first = nextLock(
      emptyLock(),
      [
        entry('dev', [{ image: 'r.example/a/c:v1', digest: D1 }]),
        entry('prod', [{ image: 'r.example/a/p:v1', digest: D1 }]),
      ],
      ['dev', 'prod'],
    );
    const second = nextLock(first, [entry('dev', [{ image: 'r.example/a/c:v1', digest: D2 }])], ['dev', 'prod']);
    expect(second.images).toEqual([
      { image: 'r.example/a/p:v1', digest: D1 },
      { image: 'r.example/a/c:v1', digest: D2 },
    ]);
    expect(lockChanges(first, second)).toContainEqual({
      kind: 'image-digest',
      image: 'r.example/a/c:v1',
      before: D1,
      after: D2,
    });
    const third = nextLock(second, [], ['dev']);
    expect(third.images).toEqual([{ image: 'r.example/a/c:v1', digest: D2 }]);
  });
  it('refuses an images entry without a sha256 digest', () => {
    const text = serializeLock(
      nextLock(emptyLock(), [entry('dev', [{ image: 'r.example/a/c:v1', digest: D1 }])], ['dev']),
    ).replace(D1, 'latest');
    expect(() => parseLock(text)).toThrow(/images entry without an image and a sha256 digest/);
  });
});
