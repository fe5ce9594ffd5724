import { describe, expect, it } from 'vitest';
import { applyGitopsFlavour, type GitopsFlavour } from '../../src/gitops/index.js';
import { isPlaceholderCaBundle } from '../../src/gitops/ca-bundle.js';
import type { KubeObject } from 'capi-render';
import { annotationsOf, getIn, nameOf } from '../../src/manifest/object.js';
import type { RenderedEnvironment } from '../../src/plan/output-plan.js';
import { serializeObject } from '../../src/manifest/serialize.js';
import { substituteVariables } from '../../src/process/variables/index.js';
import { parseManifests } from '../../src/manifest/parse.js';
import { deepFreeze } from '../helpers/core-components.js';
import { componentObjects, fixtureEnvironment } from '../helpers/gitops-environment.js';
import { fixtureText } from '../helpers/fixtures.js';

const SUBSTITUTE = 'kustomize.toolkit.fluxcd.io/substitute';
const FLAVOURS: GitopsFlavour[] = ['kustomize', 'argocd', 'flux'];
const single = (objects: KubeObject[], component = 'cluster-api'): RenderedEnvironment => ({
  name: 'e',
  components: [{ name: component, objects: objects.map(deepFreeze) }],
});
const objectsOf = (env: RenderedEnvironment) => env.components.flatMap((c) => c.objects);
const caBundles = (objects: readonly KubeObject[]) =>
  objects.flatMap((o) => serializeObject(o).match(/^\s*caBundle: .*$/gm) ?? []);

describe('kustomize flavour on the real v1.12.0 providers', () => {
  const input = fixtureEnvironment('mgmt', { certManager: true });
  const result = applyGitopsFlavour(input, { flavour: 'kustomize' });

  it('changes nothing: same components, same objects, no files, no warnings', () => {
    result.environment.components.forEach((c, i) => expect(c).toBe(input.components[i]));
    expect(result.extraFiles.size).toBe(0);
    expect(result.warnings).toEqual([]);
  });

  it('the artifacts ship no caBundle at all, and CAPD descriptions with $IPv6 (no braces) are not flagged', () => {
    expect(caBundles(objectsOf(input))).toEqual([]);
    expect(objectsOf(input).some((o) => JSON.stringify(o).includes('$IPv6'))).toBe(true);
  });
});

describe('placeholder caBundle on the real cluster-api v1.6.0 CRDs (caBundle: Cg==)', () => {
  const objects = componentObjects('repository/cluster-api/v1.6.0/core-components.yaml.gz', 'cluster-api');
  const env = single(objects);

  it.each(FLAVOURS)('%s: every placeholder is removed, the conversion webhook service is kept', (flavour) => {
    expect(caBundles(objects)).toEqual(Array(9).fill('        caBundle: Cg=='));
    const { environment, warnings } = applyGitopsFlavour(env, { flavour });
    const out = objectsOf(environment);
    expect(caBundles(out)).toEqual([]);
    const converted = out.filter((o) => getIn(o, ['spec', 'conversion', 'strategy']) === 'Webhook');
    expect(converted.length).toBe(9);
    for (const crd of converted) {
      expect(getIn(crd, ['spec', 'conversion', 'webhook', 'clientConfig', 'service', 'name'])).toBe(
        'capi-webhook-service',
      );
      expect(annotationsOf(crd)['cert-manager.io/inject-ca-from']).toBe('capi-system/capi-serving-cert');
    }
    // The CRDs carry inject-ca-from, so nothing to warn about.
    expect(warnings).toEqual([]);
  });

  it('kustomize: only the nine CRDs change; the rest keep their identity', () => {
    const out = objectsOf(applyGitopsFlavour(env, { flavour: 'kustomize' }).environment);
    const changed = out.filter((o, i) => o !== objects[i]).map(nameOf);
    expect(changed).toHaveLength(9);
    out.forEach((o, i) => {
      if (o !== objects[i]) expect(o.spec === objects[i]!.spec).toBe(false);
      if (o !== objects[i]) expect(getIn(o, ['spec', 'versions'])).toBe(getIn(objects[i], ['spec', 'versions']));
    });
  });
});

describe('caBundle rules on synthetic objects', () => {
  const webhook = (caBundle: unknown, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'w', ...(annotations ? { annotations } : {}) },
    webhooks: [
      { name: 'a.x', clientConfig: { service: { name: 's', namespace: 'n' }, caBundle } },
      { name: 'b.x', clientConfig: { service: { name: 's', namespace: 'n' } } },
    ] as never,
  });
  const REAL = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64');
  const INJECT = { 'cert-manager.io/inject-ca-from': 'n/cert' };
  const cases: { name: string; object: KubeObject; stripped: boolean; warnings: string[] }[] = [
    { name: 'Cg== with inject-ca-from is removed', object: webhook('Cg==', INJECT), stripped: true, warnings: [] },
    {
      name: 'an empty string with inject-ca-from-secret is removed',
      object: webhook('', { 'cert-manager.io/inject-ca-from-secret': 'n/s' }),
      stripped: true,
      warnings: [],
    },
    { name: 'null is removed', object: webhook(null, INJECT), stripped: true, warnings: [] },
    {
      name: 'a placeholder without injection is removed, with a warning',
      object: webhook('Cg==', undefined),
      stripped: true,
      warnings: ['gitops'],
    },
    { name: 'a real bundle is kept', object: webhook(REAL, INJECT), stripped: false, warnings: [] },
    { name: 'a real bundle without injection is kept silently', object: webhook(REAL), stripped: false, warnings: [] },
  ];
  it.each(cases)('$name', ({ object, stripped, warnings }) => {
    const result = applyGitopsFlavour(single([object]), { flavour: 'kustomize' });
    const out = objectsOf(result.environment)[0]!;
    if (!stripped)
      expect(getIn(out, ['webhooks', 0, 'clientConfig', 'caBundle'])).toBe(
        getIn(object, ['webhooks', 0, 'clientConfig', 'caBundle']),
      );
    expect(Object.keys(getIn(out, ['webhooks', 0, 'clientConfig']) as object).includes('caBundle')).toBe(!stripped);
    expect(getIn(out, ['webhooks', 1])).toBe(getIn(object, ['webhooks', 1]));
    expect(result.warnings.map((w) => w.code)).toEqual(warnings);
  });

  it.each([
    ['Cg==', true],
    ['IAo=', true],
    ['', true],
    ['  ', true],
    [REAL, false],
    ['not base64!', false],
  ] as const)('isPlaceholderCaBundle(%j) is %s', (value, expected) =>
    expect(isPlaceholderCaBundle(value)).toBe(expected),
  );
});

describe('${ literals that survive variable substitution', () => {
  const cm = (data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'scripts', namespace: 'capi-system' },
    data,
  });
  const cases: { name: string; object: KubeObject; field?: string }[] = [
    { name: 'a script with ${HOME}', object: cm({ 'run.sh': 'echo ${HOME}\n' }), field: 'data["run.sh"]' },
    {
      name: 'a map key',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k', annotations: { 'x/${a}': 'b' } } },
      field: 'metadata.annotations["x/${a}"]',
    },
    {
      name: 'inside a list',
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', args: ['--a', '--b=${B}'] }] },
      },
      field: 'spec.containers[0].args[1]',
    },
    { name: 'brace-less $VAR and $(VAR) are fine', object: cm({ a: 'use $IPv6 or $(VAR_NAME) or $$(X)' }) },
  ];
  it.each(cases.flatMap((c) => FLAVOURS.map((flavour) => ({ ...c, flavour }))))(
    '$flavour: $name',
    ({ object, field, flavour }) => {
      const result = applyGitopsFlavour(single([object]), { flavour });
      const out = objectsOf(result.environment)[0]!;
      expect(annotationsOf(out)[SUBSTITUTE]).toBe(field ? 'disabled' : undefined);
      expect(result.warnings.map((w) => [w.code, w.object, w.field])).toEqual(
        field
          ? [
              [
                'gitops',
                `${object.kind}/${(object.metadata as { namespace?: string }).namespace ? 'capi-system/' : ''}${nameOf(object)}`,
                field,
              ],
            ]
          : [],
      );
    },
  );

  it('a real CAPD Deployment whose variable value carries ${…} (values are not substituted again)', () => {
    const text = fixtureText('repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml');
    const substituted = substituteVariables(
      text,
      (name) => (name === 'CAPD_DOCKER_HOST' ? 'tcp://${DOCKER_HOST_IP}:2375' : undefined),
      'capd',
    ).text;
    const objects = parseManifests(substituted, 'capd').map((r) => r.object);
    const result = applyGitopsFlavour(single(objects, 'infrastructure-docker'), { flavour: 'flux' });
    const flagged = objectsOf(result.environment).filter((o) => annotationsOf(o)[SUBSTITUTE] === 'disabled');
    expect(flagged.map((o) => `${o.kind}/${nameOf(o)}`)).toEqual(['Deployment/capd-controller-manager']);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'gitops',
        object: 'Deployment/capd-system/capd-controller-manager',
        field: 'spec.template.spec.containers[0].env[4].value',
      }),
    ]);
  });
});
