/**
 * Processing shared between environments: through the stage boundary a build uses (processed
 * components remembered by effective inputs, equal objects shared, part-wise parsing), every provider
 * comes out exactly as the plain pipeline makes it — whatever the spec — and the objects no variable
 * reaches are the same objects in every environment. Errors are the plain pipeline's too.
 */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/bounded-map.js';
import { createSharedObjects } from '../../src/manifest/shared-objects.js';
import type { KubeObject, ProviderSpecFields } from 'capi-render';
import {
  renderProviderComponents,
  type ProviderComponents,
  type ProviderComponentsInput,
} from '../../src/process/provider-components.js';
import { processedComponents } from '../../src/render/processed-components.js';
import { compileTemplate } from '../../src/process/variables/index.js';
import { createDocumentParser } from '../../src/render/document-parser.js';
import { CORE_COMPONENTS, fixtureText } from '../helpers/fixtures.js';

const TEXT = fixtureText(CORE_COMPONENTS);
const SOURCE = 'local repository cluster-api v1.12.0/core-components.yaml';

/** One environment's input; `address` is the distinct value each environment sets. */
function input(
  spec: ProviderSpecFields,
  address: string,
  images: ProviderComponentsInput['images'] = {},
): ProviderComponentsInput {
  return {
    cr: {
      kind: 'CoreProvider',
      name: 'cluster-api',
      namespace: 'capi-system',
      spec: { version: 'v1.12.0', ...spec },
      file: 'providers/core.yaml',
      line: 1,
    },
    version: 'v1.12.0',
    componentsText: TEXT,
    componentsSource: SOURCE,
    lookupVariable: (name) => (name === 'CAPI_DIAGNOSTICS_ADDRESS' ? address : undefined),
    images,
  };
}

/** What a build passes: one template and parser for every environment, through the stage boundary. */
function sharedBuild() {
  const parser = createDocumentParser(undefined);
  const session = { components: new BoundedMap<string, ProviderComponents>(8), sharedObjects: createSharedObjects() };
  const template = compileTemplate(TEXT, SOURCE);
  return (base: ProviderComponentsInput) =>
    processedComponents(session, 'core', {
      ...base,
      compile: () => template,
      parse: (substituted, source) =>
        parser.parseParts(
          'core',
          substituted.parts.map((p, i) => ({
            text: substituted.texts[i]!,
            constant: p.constant !== undefined,
            secret: false,
          })),
          source,
        ),
    });
}

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return { name: (e as Error).name, diagnostics: (e as { diagnostics?: unknown }).diagnostics };
  }
  return undefined;
};

const SPECS: { name: string; spec: ProviderSpecFields; images?: ProviderComponentsInput['images'] }[] = [
  { name: 'no customisation', spec: {} },
  { name: 'deployment and manager', spec: { deployment: { replicas: 3 }, manager: { maxConcurrentReconciles: 7 } } },
  { name: 'images', spec: {}, images: { all: { repository: 'registry.example.com/capi' } } },
  {
    name: 'a merge patch on every object and a JSON patch on the Deployment',
    spec: {
      patches: [
        { patch: 'metadata:\n  labels:\n    team: platform\n' },
        { target: { kind: 'Deployment' }, patch: '- {op: add, path: /spec/revisionHistoryLimit, value: 2}\n' },
      ],
    },
  },
  {
    name: 'manifest patches',
    spec: {
      manifestPatches: [
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: capi-webhook-service\n  labels:\n    patched: "yes"\n',
      ],
    },
  },
];

describe('processing shared between environments', () => {
  it.each(SPECS)(
    '$name: every environment exactly as the plain pipeline renders it, shared objects shared',
    ({ spec, images }) => {
      const build = sharedBuild();
      const a = build(input(spec, ':8001', images));
      const b = build(input(spec, ':8002', images));
      expect(a).toEqual(renderProviderComponents(input(spec, ':8001', images)));
      expect(b).toEqual(renderProviderComponents(input(spec, ':8002', images)));
      const crds = (objects: readonly KubeObject[]) => objects.filter((o) => o.kind === 'CustomResourceDefinition');
      expect(crds(a.objects).length).toBeGreaterThan(10);
      crds(a.objects).forEach((crd, i) => expect(crd).toBe(crds(b.objects)[i]));
      const deployment = (objects: readonly KubeObject[]) => objects.find((o) => o.kind === 'Deployment');
      expect(deployment(a.objects)).not.toEqual(deployment(b.objects));
    },
  );

  it('a second environment with another spec gets its own objects where the spec changes them, and shares the rest', () => {
    const build = sharedBuild();
    const plain = build(input({}, ':8001'));
    const replicas = build(input({ deployment: { replicas: 2 } }, ':8001'));
    expect(replicas).toEqual(renderProviderComponents(input({ deployment: { replicas: 2 } }, ':8001')));
    expect(replicas.objects.find((o) => o.kind === 'Service')).toBe(plain.objects.find((o) => o.kind === 'Service'));
  });

  it.each([
    [
      'a patch whose target matches nothing',
      { patches: [{ target: { kind: 'DaemonSet' }, patch: 'metadata:\n  labels:\n    a: b\n' }] },
    ],
    [
      'a failing JSON patch operation',
      { patches: [{ target: { kind: 'Deployment' }, patch: '- {op: replace, path: /spec/nothing/here, value: 1}\n' }] },
    ],
    [
      'a manifest patch that matches nothing',
      { manifestPatches: ['apiVersion: v1\nkind: Service\nmetadata:\n  name: no-such-service\n'] },
    ],
    [
      'a manager block for an unknown container',
      { deployment: { containers: [{ name: 'sidecar', args: { '--x': '1' } }] } },
    ],
  ] as [string, ProviderSpecFields][])('%s: the error the plain pipeline reports', (_name, spec) => {
    const build = sharedBuild();
    const shared = errorOf(() => build(input(spec, ':8001')));
    expect(shared).toBeDefined();
    expect(shared).toEqual(errorOf(() => renderProviderComponents(input(spec, ':8001'))));
    // Remembered successes never hide a failure: a second environment fails the same way.
    expect(errorOf(() => build(input(spec, ':8002')))).toEqual(
      errorOf(() => renderProviderComponents(input(spec, ':8002'))),
    );
  });
});
