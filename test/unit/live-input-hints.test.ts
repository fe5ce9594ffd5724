/** Which input decides a differing live field: one row per kind of field, located by the CR's locator. */
import { describe, expect, it } from 'vitest';
import { inputHint, type ProviderInput } from '../../src/adopt/live/input-hints.js';
import type { FieldDifference } from '../../src/adopt/live/compare-object.js';
import type { KubeObject } from 'capi-render';

const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'capi-system' },
});
const change = (path: string, live: unknown = 'x'): FieldDifference => ({
  path,
  change: 'changed',
  live: live as never,
  rendered: 'y',
  fields: [],
});

/** A CR whose locator answers with the path it was asked for, so each row shows the exact CR path. */
const input: ProviderInput = {
  ref: 'CoreProvider capi-system/cluster-api',
  spec: { deployment: { containers: [{ name: 'sidecar' }, { name: 'manager' }] } },
  locate: (path) => ({ file: `providers/core.yaml#${path.join('.')}`, line: 7 }),
};
const files = { settings: 'capi-render.yaml' };

describe('inputHint', () => {
  it.each([
    [
      'replicas',
      deployment('capi-controller-manager'),
      change('spec.replicas', 2),
      'input: spec.deployment.replicas of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.deployment.replicas:7; 2 keeps the live value',
    ],
    [
      'a node selector entry (part of the setting: no value)',
      deployment('capi-controller-manager'),
      change('spec.template.spec.nodeSelector["zone"]'),
      'input: spec.deployment.nodeSelector of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.deployment.nodeSelector:7',
    ],
    [
      'tolerations',
      deployment('capi-controller-manager'),
      change('spec.template.spec.tolerations', []),
      'input: spec.deployment.tolerations of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.deployment.tolerations:7; [] keeps the live value',
    ],
    [
      "a listed container's image: its index in the CR",
      deployment('capi-controller-manager'),
      change('spec.template.spec.containers[name=manager].image', 'r/m:v1'),
      'input: spec.deployment.containers[name=manager].imageUrl of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.deployment.containers.1.imageUrl:7; "r/m:v1" keeps the live value',
    ],
    [
      "an unlisted container's env: the list to add it to",
      deployment('capi-controller-manager'),
      change('spec.template.spec.containers[name=other].env[name=A].value'),
      'input: spec.deployment.containers[name=other].env of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.deployment.containers:7',
    ],
    [
      'arguments: spec.manager',
      deployment('capi-controller-manager'),
      change('spec.template.spec.containers[name=manager].args', []),
      'input: spec.manager of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.manager:7; its featureGates, verbosity, additionalArgs …, or spec.deployment.containers[].args',
    ],
    [
      'another Deployment of the provider: additionalDeployments',
      deployment('capi-extra'),
      change('spec.replicas', 1),
      'input: spec.additionalDeployments.capi-extra.deployment.replicas of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.additionalDeployments.capi-extra.deployment.replicas:7; 1 keeps the live value',
    ],
    [
      "clusterctl's inventory version: spec.version",
      {
        apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
        kind: 'Provider',
        metadata: { name: 'cluster-api' },
      },
      change('version', 'v1.12.3'),
      'input: spec.version of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.version:7; "v1.12.3" keeps the live value',
    ],
    [
      'another object: manifestPatches',
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } },
      change('spec.type'),
      'input: spec.manifestPatches of CoreProvider capi-system/cluster-api, at providers/core.yaml#spec.manifestPatches:7; no provider setting decides spec.type of Service s; a patch does',
    ],
  ])('%s', (_name, object, d, hint) => {
    expect(inputHint(object, d, input, ['capi-controller-manager', 'capi-extra'], files, false)).toBe(hint);
  });

  it('an environment with its own overlay: a field the base sets also offers a patch there; one the overlay sets does not', () => {
    const overlay = 'overlays/mgmt/overlay.yaml';
    const inOverlay: ProviderInput = { ...input, locate: () => ({ file: overlay, line: 12 }) };
    expect(
      inputHint(
        deployment('capi-controller-manager'),
        change('spec.replicas', 2),
        input,
        [],
        { settings: overlay, overlay },
        false,
      ),
    ).toContain('; or a patch in overlays/mgmt/overlay.yaml, for this environment only; 2 keeps the live value');
    expect(
      inputHint(
        deployment('capi-controller-manager'),
        change('spec.replicas', 2),
        inOverlay,
        [],
        { settings: overlay, overlay },
        false,
      ),
    ).toBe(
      'input: spec.deployment.replicas of CoreProvider capi-system/cluster-api, at overlays/mgmt/overlay.yaml:12; 2 keeps the live value',
    );
  });

  it("cert-manager's objects: certManager in the settings; an object of no provider: none", () => {
    expect(
      inputHint(
        deployment('cert-manager'),
        change('spec.replicas', 2),
        undefined,
        [],
        { settings: 'overlays/mgmt/overlay.yaml' },
        true,
      ),
    ).toBe(
      "input: certManager in overlays/mgmt/overlay.yaml; cert-manager's objects are its release's (its version decides them, or install: false leaves cert-manager to another installer)",
    );
    expect(inputHint(deployment('x'), change('spec.replicas', 2), undefined, [], files, false)).toBeUndefined();
  });
});
