import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { JsonValue, KubeObject } from 'capi-render';
import { getIn, setIn } from '../../src/manifest/object.js';
import {
  applyImageOverrides,
  listImages,
  resolveImageOverride,
  type ImageOverrideMode,
  type ImageOverrides,
} from '../../src/process/image-overrides.js';
import { parseImageReference } from '../../src/process/image-reference.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { CERT_MANAGER, CORE_COMPONENTS, DOCKER_COMPONENTS, findObject, fixtureObjects } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';

const core = deepFreeze(fixtureObjects(CORE_COMPONENTS));
const docker = deepFreeze(fixtureObjects(DOCKER_COMPONENTS));
const certManager = deepFreeze(fixtureObjects(CERT_MANAGER));
const capi = findObject(core, 'Deployment', 'capi-controller-manager');

const IMAGE = ['spec', 'template', 'spec', 'containers', 0, 'image'];
const INIT = ['spec', 'template', 'spec', 'initContainers'];
const CAINJECTOR = 'quay.io/jetstack/cert-manager-cainjector:v1.19.4';
const WEBHOOK = 'quay.io/jetstack/cert-manager-webhook:v1.19.4';
const CONTROLLER = 'quay.io/jetstack/cert-manager-controller:v1.19.4';
const CAPI_IMAGE = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0';
const DIGEST = `sha256:${'ab'.repeat(32)}`;

/** The images of the cert-manager Deployments (cainjector, controller, webhook) after a pass. */
function certManagerImages(overrides: ImageOverrides): string[] {
  return applyImageOverrides(certManager, 'cert-manager', overrides, 'strict')
    .filter((o) => o.kind === 'Deployment')
    .map((o) => getIn(o, IMAGE) as string);
}

/** The core Deployment with its manager image replaced by `image`. */
function capiWithImage(image: string): KubeObject {
  return deepFreeze(setIn(capi, IMAGE, image));
}

function imageAfter(
  image: string,
  overrides: ImageOverrides,
  mode: ImageOverrideMode = 'strict',
  component = 'cluster-api',
): JsonValue | undefined {
  return getIn(applyImageOverrides([capiWithImage(image)], component, overrides, mode)[0], IMAGE);
}

describe('applyImageOverrides: clusterctl images: precedence on the real cert-manager v1.19.4 Deployments', () => {
  const foo = { repository: 'foo-repository.io', tag: 'foo-tag' };
  const bar = { repository: 'bar-repository.io', tag: 'bar-tag' };
  const baz = { repository: 'baz-repository.io', tag: 'baz-tag' };
  const cases: { name: string; overrides: ImageOverrides; expected: [string, string, string] }[] = [
    { name: 'no configuration leaves every image alone', overrides: {}, expected: [CAINJECTOR, CONTROLLER, WEBHOOK] },
    {
      name: 'a component/image entry changes that image only',
      overrides: { 'cert-manager/cert-manager-cainjector': foo },
      expected: ['foo-repository.io/cert-manager-cainjector:foo-tag', CONTROLLER, WEBHOOK],
    },
    {
      name: 'a component entry changes all its images',
      overrides: { 'cert-manager': foo },
      expected: [
        'foo-repository.io/cert-manager-cainjector:foo-tag',
        'foo-repository.io/cert-manager-controller:foo-tag',
        'foo-repository.io/cert-manager-webhook:foo-tag',
      ],
    },
    {
      name: 'component/image beats component; the others take the component entry',
      overrides: { 'cert-manager/cert-manager-cainjector': foo, 'cert-manager': bar },
      expected: [
        'foo-repository.io/cert-manager-cainjector:foo-tag',
        'bar-repository.io/cert-manager-controller:bar-tag',
        'bar-repository.io/cert-manager-webhook:bar-tag',
      ],
    },
    {
      name: 'the union is field-wise: repository from component/image, tag from component',
      overrides: {
        'cert-manager/cert-manager-cainjector': { repository: 'foo-repository.io' },
        'cert-manager': { tag: 'bar-tag' },
      },
      expected: [
        'foo-repository.io/cert-manager-cainjector:bar-tag',
        'quay.io/jetstack/cert-manager-controller:bar-tag',
        'quay.io/jetstack/cert-manager-webhook:bar-tag',
      ],
    },
    {
      name: 'all applies to every component',
      overrides: { all: foo },
      expected: [
        'foo-repository.io/cert-manager-cainjector:foo-tag',
        'foo-repository.io/cert-manager-controller:foo-tag',
        'foo-repository.io/cert-manager-webhook:foo-tag',
      ],
    },
    {
      name: 'component beats all',
      overrides: { all: foo, 'cert-manager': bar },
      expected: [
        'bar-repository.io/cert-manager-cainjector:bar-tag',
        'bar-repository.io/cert-manager-controller:bar-tag',
        'bar-repository.io/cert-manager-webhook:bar-tag',
      ],
    },
    {
      name: 'all and component mix field-wise',
      overrides: { all: { repository: 'foo-repository.io' }, 'cert-manager': { tag: 'bar-tag' } },
      expected: [
        'foo-repository.io/cert-manager-cainjector:bar-tag',
        'foo-repository.io/cert-manager-controller:bar-tag',
        'foo-repository.io/cert-manager-webhook:bar-tag',
      ],
    },
    {
      name: 'three levels: the most specific non-empty field wins for each image',
      overrides: {
        'cert-manager/cert-manager-cainjector': { repository: 'foo-repository.io' },
        'cert-manager': { tag: 'bar-tag' },
        all: baz,
      },
      expected: [
        'foo-repository.io/cert-manager-cainjector:bar-tag',
        'baz-repository.io/cert-manager-controller:bar-tag',
        'baz-repository.io/cert-manager-webhook:bar-tag',
      ],
    },
    {
      name: 'three levels: an image without its own entry takes component then all',
      overrides: {
        'cert-manager/cert-manager-cainjector': foo,
        'cert-manager': { repository: 'bar-repository.io' },
        all: baz,
      },
      expected: [
        'foo-repository.io/cert-manager-cainjector:foo-tag',
        'bar-repository.io/cert-manager-controller:baz-tag',
        'bar-repository.io/cert-manager-webhook:baz-tag',
      ],
    },
    {
      name: 'entries of another component do not apply',
      overrides: { 'cluster-api': foo, 'cluster-api/cert-manager-cainjector': bar },
      expected: [CAINJECTOR, CONTROLLER, WEBHOOK],
    },
    {
      name: 'empty strings are no override',
      overrides: { all: foo, 'cert-manager': { repository: '', tag: '' } },
      expected: [
        'foo-repository.io/cert-manager-cainjector:foo-tag',
        'foo-repository.io/cert-manager-controller:foo-tag',
        'foo-repository.io/cert-manager-webhook:foo-tag',
      ],
    },
  ];

  it.each(cases)('$name', ({ overrides, expected }) => {
    expect(certManagerImages(overrides)).toEqual(expected);
  });
});

describe('applyImageOverrides: fields of one override on the real core v1.12.0 image', () => {
  const cases: { name: string; image?: string; overrides: ImageOverrides; expected: string }[] = [
    {
      name: 'name only (clusterctl v1.14)',
      overrides: { 'cluster-api/cluster-api-controller': { name: 'custom-cluster-api-controller' } },
      expected: 'registry.k8s.io/cluster-api/custom-cluster-api-controller:v1.12.0',
    },
    {
      name: 'repository and name, tag kept',
      overrides: {
        'cluster-api/cluster-api-controller': { repository: 'myorg.io/mirror', name: 'custom-cluster-api-controller' },
      },
      expected: 'myorg.io/mirror/custom-cluster-api-controller:v1.12.0',
    },
    {
      name: 'repository from all, name from component/image',
      overrides: {
        all: { repository: 'myorg.io/mirror' },
        'cluster-api/cluster-api-controller': { name: 'custom-cluster-api-controller' },
      },
      expected: 'myorg.io/mirror/custom-cluster-api-controller:v1.12.0',
    },
    {
      name: 'repository, name and tag',
      overrides: {
        'cluster-api/cluster-api-controller': {
          repository: 'myorg.io/mirror',
          name: 'custom-cluster-api-controller',
          tag: 'v1.5.0',
        },
      },
      expected: 'myorg.io/mirror/custom-cluster-api-controller:v1.5.0',
    },
    {
      name: 'one trailing / of the repository is trimmed',
      overrides: { all: { repository: 'myorg.io/mirror/' } },
      expected: 'myorg.io/mirror/cluster-api-controller:v1.12.0',
    },
    {
      name: 'the per-image key uses the original name, not an overridden one',
      overrides: { all: { name: 'other' }, 'cluster-api/other': { tag: 'x' } },
      expected: 'registry.k8s.io/cluster-api/other:v1.12.0',
    },
    {
      name: 'a digest is kept next to a new tag',
      image: `${CAPI_IMAGE}@${DIGEST}`,
      overrides: { all: { tag: 'v9' } },
      expected: `registry.k8s.io/cluster-api/cluster-api-controller:v9@${DIGEST}`,
    },
    {
      name: 'a digest-only image gains a tag before its digest',
      image: `registry.k8s.io/cluster-api/cluster-api-controller@${DIGEST}`,
      overrides: { all: { tag: 'v9' } },
      expected: `registry.k8s.io/cluster-api/cluster-api-controller:v9@${DIGEST}`,
    },
    {
      name: 'an untagged image gains a tag',
      image: 'registry.k8s.io/cluster-api/cluster-api-controller',
      overrides: { all: { tag: 'v9' } },
      expected: 'registry.k8s.io/cluster-api/cluster-api-controller:v9',
    },
    {
      name: 'a Docker Hub image in canonical form',
      image: 'docker.io/library/nginx:1.0',
      overrides: { all: { repository: 'myorg.io' } },
      expected: 'myorg.io/nginx:1.0',
    },
    {
      name: 'a registry with a port',
      image: 'localhost:5000/foo/bar:1',
      overrides: { all: { repository: 'myorg.io' } },
      expected: 'myorg.io/bar:1',
    },
  ];

  it.each(cases)('$name', ({ image, overrides, expected }) => {
    expect(imageAfter(image ?? CAPI_IMAGE, overrides)).toBe(expected);
  });

  it('an override keyed by the component changes only that provider (CAPD)', () => {
    const overrides = { 'infrastructure-docker/capd-manager': { repository: 'myorg.io' } };
    const [capiOut] = applyImageOverrides([capi], 'cluster-api', overrides, 'strict');
    const capdOut = applyImageOverrides(docker, 'infrastructure-docker', overrides, 'strict');
    expect(capiOut).toBe(capi);
    expect(getIn(findObject(capdOut, 'Deployment', 'capd-controller-manager'), IMAGE)).toBe(
      'myorg.io/capd-manager:v1.12.0',
    );
  });

  it('an images.all.repository of the tolerant pass overrides an imageUrl set earlier by customisation', () => {
    // customizeDeployments put this image in; the operator's second pass still rewrites it.
    expect(imageAfter('quay.io/dev/mydns:v3.4.2', { all: { repository: 'mirror.example.com/capi' } }, 'tolerant')).toBe(
      'mirror.example.com/capi/mydns:v3.4.2',
    );
  });
});

describe('applyImageOverrides: strict and tolerant parsing', () => {
  it.each([
    { name: 'a short Docker Hub name', image: 'nginx:1.0' },
    { name: 'docker.io without library/', image: 'docker.io/nginx:1.0' },
    { name: 'the legacy index.docker.io', image: 'index.docker.io/library/nginx:1.0' },
    { name: 'a user repository on Docker Hub', image: 'bitnami/kubectl:1.30' },
  ])('strict rejects a non-canonical image ($name) even without overrides; tolerant keeps it', ({ image }) => {
    const err = thrownBy(SpecError, () => imageAfter(image, {}, 'strict'));
    expect(err.code).toBe('image');
    expect(err.diagnostics[0]).toMatchObject({
      object: 'Deployment/capi-system/capi-controller-manager',
      field: 'spec.template.spec.containers[0].image',
    });
    expect(imageAfter(image, { all: { repository: 'myorg.io', tag: 'x' } }, 'tolerant')).toBe(image);
  });

  it.each([
    { name: 'two tags', image: 'invalid:invalid:invalid' },
    { name: 'upper case in the path', image: 'registry.k8s.io/Cluster-API/controller:v1' },
    { name: 'an empty image', image: '' },
    { name: 'a bad tag character', image: 'registry.k8s.io/capi/controller:v1+meta' },
    { name: 'a digest of the wrong length', image: `registry.k8s.io/capi/controller@sha256:${'ab'.repeat(20)}` },
    { name: 'an unsupported digest algorithm', image: `registry.k8s.io/capi/controller@md5:${'ab'.repeat(16)}` },
    { name: 'a 64-hex identifier', image: 'ab'.repeat(32) },
  ])('both modes reject an invalid image ($name)', ({ image }) => {
    for (const mode of ['strict', 'tolerant'] as const)
      expect(
        thrownBy(SpecError, () => imageAfter(image, { all: { repository: 'foo-Repository.io' } }, mode)).code,
      ).toBe('image');
  });

  it('names the init container field when an init container image is invalid', () => {
    const withInit = deepFreeze(setIn(capi, INIT, [{ name: 'init', image: 'busybox' }]));
    const err = thrownBy(SpecError, () => applyImageOverrides([withInit], 'cluster-api', {}, 'strict'));
    expect(err.diagnostics[0]).toMatchObject({
      code: 'image',
      object: 'Deployment/capi-system/capi-controller-manager',
      field: 'spec.template.spec.initContainers[0].image',
    });
  });

  it.each([
    {
      name: 'an entry that is not a map',
      overrides: { all: 'invalid' } as unknown as ImageOverrides,
      fields: ['images.all'],
    },
    {
      name: 'an unknown field (clusterctl would drop it silently)',
      overrides: { all: { registry: 'x' } } as unknown as ImageOverrides,
      fields: ['images.all.registry'],
    },
    {
      name: 'a non-string field',
      overrides: { 'cluster-api': { tag: 1 } } as unknown as ImageOverrides,
      fields: ['images.cluster-api.tag'],
    },
  ])('rejects a malformed override: $name', ({ overrides, fields }) => {
    const err = thrownBy(SpecError, () => applyImageOverrides(core, 'cluster-api', overrides, 'strict'));
    expect(err.code).toBe('image');
    expect(err.diagnostics.map((d) => d.field)).toEqual(fields);
  });
});

describe('applyImageOverrides: which objects and containers', () => {
  const init = { name: 'init', image: 'registry.k8s.io/busybox:1.36' };
  const withInit = deepFreeze(setIn(capi, INIT, [init]));

  it('rewrites containers and initContainers of Deployments', () => {
    const [out] = applyImageOverrides([withInit], 'cluster-api', { all: { repository: 'myorg.io' } }, 'strict');
    expect(getIn(out, IMAGE)).toBe('myorg.io/cluster-api-controller:v1.12.0');
    expect(getIn(out, [...INIT, 0, 'image'])).toBe('myorg.io/busybox:1.36');
  });

  it('rewrites DaemonSets', () => {
    const daemonSet = deepFreeze({ ...withInit, kind: 'DaemonSet' });
    const [out] = applyImageOverrides([daemonSet], 'cluster-api', { all: { tag: 'v2' } }, 'strict');
    expect(out?.kind).toBe('DaemonSet');
    expect(getIn(out, IMAGE)).toBe('registry.k8s.io/cluster-api/cluster-api-controller:v2');
    expect(getIn(out, [...INIT, 0, 'image'])).toBe('registry.k8s.io/busybox:v2');
  });

  it('never touches other kinds, even with an image clusterctl could not parse', () => {
    const job = deepFreeze({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const sts = deepFreeze({ ...capi, kind: 'StatefulSet' });
    const input = [job, sts];
    const out = applyImageOverrides(input, 'cluster-api', { all: { repository: 'myorg.io' } }, 'strict');
    out.forEach((o, i) => expect(o).toBe(input[i]));
  });

  it('returns the same objects when nothing changes, and new ones only for changed workloads; inputs are not mutated', () => {
    const before = structuredClone(core);
    const same = applyImageOverrides(core, 'cluster-api', {}, 'strict');
    same.forEach((o, i) => expect(o).toBe(core[i]));
    const changed = applyImageOverrides(core, 'cluster-api', { all: { tag: 'v9' } }, 'strict');
    changed.forEach((o, i) => (o.kind === 'Deployment' ? expect(o).not.toBe(core[i]) : expect(o).toBe(core[i])));
    expect(core).toEqual(before);
  });
});

describe('listImages', () => {
  it('lists every Deployment and DaemonSet image of the real artifacts, sorted and unique', () => {
    const daemonSet = deepFreeze({
      ...setIn(capi, INIT, [{ name: 'init', image: 'registry.k8s.io/busybox:1.36' }]),
      kind: 'DaemonSet',
    });
    const job = deepFreeze({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'docker.io/library/job:1' }] } } },
    });
    expect(listImages([...core, ...docker, ...certManager, daemonSet, job])).toEqual([
      'gcr.io/k8s-staging-cluster-api/capd-manager:v1.12.0',
      CAINJECTOR,
      CONTROLLER,
      WEBHOOK,
      'registry.k8s.io/busybox:1.36',
      CAPI_IMAGE,
    ]);
  });
});

describe('parseImageReference (distribution/reference ParseNamed + clusterctl ImageFromString)', () => {
  it.each([
    {
      text: CAPI_IMAGE,
      image: { repository: 'registry.k8s.io/cluster-api', name: 'cluster-api-controller', tag: 'v1.12.0', digest: '' },
    },
    { text: 'docker.io/library/nginx', image: { repository: 'docker.io/library', name: 'nginx', tag: '', digest: '' } },
    { text: `gcr.io/a/b/c:1@${DIGEST}`, image: { repository: 'gcr.io/a/b', name: 'c', tag: '1', digest: DIGEST } },
    { text: '[::1]:5000/foo:1', image: { repository: '[::1]:5000', name: 'foo', tag: '1', digest: '' } },
    {
      text: 'Registry.Example.com/a__b/c-d.e:T_1',
      image: { repository: 'Registry.Example.com/a__b', name: 'c-d.e', tag: 'T_1', digest: '' },
    },
    { text: 'UPPER/x', image: { repository: 'UPPER', name: 'x', tag: '', digest: '' } },
  ])('parses $text', ({ text, image }) => {
    expect(parseImageReference(text)).toEqual({ kind: 'ok', image });
  });

  it.each([
    { text: 'nginx:1.0', normalized: 'docker.io/library/nginx:1.0' },
    { text: 'docker.io/nginx', normalized: 'docker.io/library/nginx' },
    { text: 'index.docker.io/library/nginx', normalized: 'docker.io/library/nginx' },
    { text: 'bitnami/kubectl', normalized: 'docker.io/bitnami/kubectl' },
  ])('$text is valid but not canonical', ({ text, normalized }) => {
    expect(parseImageReference(text)).toMatchObject({ kind: 'not-canonical', normalized });
  });

  it.each([
    '',
    'a:b:c',
    'registry.k8s.io/UPPER/x',
    'registry.k8s.io/a//b',
    'registry.k8s.io/a-/b',
    `registry.k8s.io/x@sha256:${'AB'.repeat(32)}`,
    'x'.repeat(256),
  ])('%j is invalid', (text) => {
    expect(parseImageReference(text).kind).toBe('invalid');
  });
});

describe('resolveImageOverride', () => {
  it('unions all, component and component/image field by field', () => {
    expect(
      resolveImageOverride({ all: { repository: 'a', tag: 't' }, c: { name: 'n' }, 'c/img': { tag: 'u' } }, 'c', 'img'),
    ).toEqual({ repository: 'a', name: 'n', tag: 'u' });
  });
});
