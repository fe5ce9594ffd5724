/** imagePolicy.verify rules (src/images/verify/verify-rules.ts): globs, first match, ids, and checks. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkRules,
  imageMatches,
  imageName,
  ruleFor,
  ruleId,
  type VerifyRule,
} from '../../src/images/verify/verify-rules.js';
import { tempDir } from '../helpers/tmp.js';

const K8S: VerifyRule = {
  images: 'registry.k8s.io/cluster-api/*',
  keyless: { issuer: 'https://accounts.google.com', identity: 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com' },
};

describe('image globs', () => {
  it.each([
    ['registry.k8s.io/cluster-api/*', 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', true],
    [
      'registry.k8s.io/cluster-api/*',
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@sha256:' + 'a'.repeat(64),
      true,
    ],
    ['registry.k8s.io/cluster-api/*', 'registry.k8s.io/cluster-api/sub/path/image:v1', true],
    ['registry.k8s.io/cluster-api/*', 'registry.k8s.io/cluster-api-evil/image:v1', false],
    ['registry.k8s.io/cluster-api/*', 'registry.k8s.io/cluster-api:v1', false],
    ['quay.io/jetstack/cert-manager-*', 'quay.io/jetstack/cert-manager-controller:v1.19.1', true],
    ['quay.io/jetstack/cert-manager-*', 'quay.io/jetstack/other:v1', false],
    ['quay.io/**', 'quay.io/metal3-io/cluster-api-provider-metal3:v1.12.0', true],
    ['registry.lab:5000/*', 'registry.lab:5000/capi/x:v1', true],
    [
      'registry.k8s.io/cluster-api/cluster-api-controller',
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      true,
    ],
    [
      'registry.k8s.io/cluster-api/cluster-api-controlle?',
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      true,
    ],
    [
      'registry.k8s.io/cluster-api/cluster-api-controller',
      'registry.k8s.io/cluster-api/cluster-api-controller-x:v1',
      false,
    ],
    ['registry.k8s.io/cluster.api/*', 'registry.k8s.io/clusterXapi/x:v1', false],
    ['*', 'docker.io/library/nginx:1.27', true],
  ])('%s matches %s: %s', (glob, image, expected) => {
    expect(imageMatches(glob, image)).toBe(expected);
  });

  it('strips the tag and digest, never a registry port', () => {
    expect(imageName('registry.lab:5000/capi/x:v1@sha256:abc')).toBe('registry.lab:5000/capi/x');
    expect(imageName('registry.lab:5000/capi/x')).toBe('registry.lab:5000/capi/x');
    expect(imageName('registry.lab:5000/capi/x@sha256:abc')).toBe('registry.lab:5000/capi/x');
  });

  it('takes the first rule that matches', () => {
    const key: VerifyRule = { images: 'registry.k8s.io/*', key: 'keys/cosign.pub' };
    expect(ruleFor([K8S, key], 'registry.k8s.io/cluster-api/x:v1')).toEqual({ rule: K8S, index: 0 });
    expect(ruleFor([key, K8S], 'registry.k8s.io/cluster-api/x:v1')).toEqual({ rule: key, index: 0 });
    expect(ruleFor([K8S, key], 'registry.k8s.io/kube-proxy:v1')).toEqual({ rule: key, index: 1 });
    expect(ruleFor([K8S], 'quay.io/x/y:v1')).toBeUndefined();
  });
});

describe('ruleId', () => {
  it('is stable over field order and unknown fields, and changes with the requirement or the key', () => {
    const id = ruleId(K8S);
    expect(id).toMatch(/^sha256:[0-9a-f]{12}$/);
    const reordered = {
      keyless: { identity: K8S.keyless!.identity, issuer: K8S.keyless!.issuer },
      images: K8S.images,
      comment: 'x',
    } as VerifyRule;
    expect(ruleId(reordered)).toBe(id);
    expect(ruleId({ ...K8S, keyless: { ...K8S.keyless, identity: 'someone@else' } })).not.toBe(id);
    const key: VerifyRule = { images: 'x/*', key: 'keys/cosign.pub' };
    expect(ruleId(key, 'PEM A')).not.toBe(ruleId(key, 'PEM B'));
    expect(ruleId(key, 'PEM A')).toBe(ruleId(key, 'PEM A'));
  });
});

describe('checkRules', () => {
  const messages = (value: unknown, options?: Parameters<typeof checkRules>[1]) =>
    checkRules(value, options).map((d) => `${d.severity} ${d.field}: ${d.message}`);

  it('accepts the README rules and nothing at all', () => {
    expect(
      checkRules([
        K8S,
        {
          images: 'quay.io/metal3-io/*',
          keyless: {
            issuer: 'https://token.actions.githubusercontent.com',
            identityRegExp: '^https://github\\.com/metal3-io/.*$',
          },
        },
      ]),
    ).toEqual([]);
    expect(checkRules(undefined)).toEqual([]);
  });

  it('reports every problem with its field', () => {
    expect(
      messages([
        { images: 'registry.k8s.io/x/*', keyless: { issuer: 'a', identity: 'b' }, key: 'k.pub' },
        { images: 'registry.k8s.io/x:v1.*' },
        { images: 'x/*', keyless: { isuer: 'a', identity: 'b' } },
        { images: 'x/*', keyless: { issuer: 'a', identityRegExp: '([' } },
        { images: 'x/*', keyless: { issuer: 'a', identity: 'b', identityRegExp: '^b$' } },
        { images: 'x/*', key: '/etc/cosign.pub', imags: 'y' },
        { images: 'x/*', key: '../outside.pub' },
        'not a rule',
      ]),
    ).toEqual([
      'error imagePolicy.verify[0]: imagePolicy.verify[0] has both keyless and key; a rule requires one kind of signature',
      'error imagePolicy.verify[1].images: imagePolicy.verify[1].images "registry.k8s.io/x:v1.*" names a tag or digest; rules match the image name before its tag',
      'error imagePolicy.verify[1]: imagePolicy.verify[1] has neither keyless nor key',
      'error imagePolicy.verify[2].keyless.isuer: imagePolicy.verify[2].keyless has an unknown field "isuer"; did you mean "issuer"?',
      'error imagePolicy.verify[2].keyless: imagePolicy.verify[2].keyless needs issuer or issuerRegExp',
      'error imagePolicy.verify[3].keyless.identityRegExp: imagePolicy.verify[3].keyless.identityRegExp "([" is not a regular expression: Invalid regular expression: /([/: Unterminated character class',
      'error imagePolicy.verify[4].keyless.identityRegExp: imagePolicy.verify[4].keyless has both identity and identityRegExp; give one',
      'error imagePolicy.verify[5].imags: imagePolicy.verify[5] has an unknown field "imags"; did you mean "images"?',
      'error imagePolicy.verify[5].key: imagePolicy.verify[5].key "/etc/cosign.pub" is an absolute path',
      'error imagePolicy.verify[6].key: imagePolicy.verify[6].key "../outside.pub" leaves the repository',
      'error imagePolicy.verify[7]: imagePolicy.verify[7] must be a rule (an object with images and keyless or key)',
    ]);
    expect(messages({ images: 'x' })).toEqual(['error imagePolicy.verify: imagePolicy.verify must be a list of rules']);
  });

  it('warns about an unanchored regexp', () => {
    expect(
      messages([{ images: 'x/*', keyless: { issuerRegExp: 'https://accounts.google.com', identity: 'b' } }]),
    ).toEqual([
      'warning imagePolicy.verify[0].keyless.issuerRegExp: imagePolicy.verify[0].keyless.issuerRegExp "https://accounts.google.com" is not anchored: it matches any issuer that contains a match',
    ]);
  });

  it('checks the key file when given the repository', () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, 'keys'));
    writeFileSync(
      path.join(repo, 'keys/cosign.pub'),
      generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }),
    );
    writeFileSync(path.join(repo, 'keys/broken.pub'), 'not a key');
    expect(
      messages(
        [
          { images: 'a/*', key: 'keys/cosign.pub' },
          { images: 'b/*', key: 'keys/missing.pub' },
          { images: 'c/*', key: 'keys/broken.pub' },
        ],
        { repoRoot: repo },
      ),
    ).toEqual([
      'error imagePolicy.verify[1].key: imagePolicy.verify[1].key keys/missing.pub does not exist',
      'error imagePolicy.verify[2].key: imagePolicy.verify[2].key keys/broken.pub is not a PEM public key',
    ]);
  });
});
