/**
 * `import` leaves out what the API server and cluster-api-operator's webhook (v0.28) defaulted on a
 * provider CR: every default, one row each, is dropped when the value equals it and kept when not.
 */
import { describe, expect, it } from 'vitest';
import { crdDefaults, WEBHOOK_DEFAULTS, withoutOperatorDefaults } from '../../src/adopt/import/operator-defaults.js';
import { PROVIDER_KINDS } from '../../src/declarations/provider-kinds.js';

type Obj = Record<string, any>;

const NS = 'capd-system';
const container = (valueFrom: Obj) => ({ containers: [{ name: 'manager', env: [{ name: 'X', valueFrom }] }] });

/** [name, spec as the cluster returns it, the field that is the default, a value that is not]. */
const ROWS: [string, Obj, string[], unknown][] = [
  [
    'webhook: configSecret.namespace = the CR namespace',
    { configSecret: { name: 'vars', namespace: NS } },
    ['configSecret', 'namespace'],
    'elsewhere',
  ],
  [
    'webhook: additionalManifests.namespace = the CR namespace',
    { additionalManifests: { name: 'extra', namespace: NS } },
    ['additionalManifests', 'namespace'],
    'elsewhere',
  ],
  [
    'webhook round trip: manager.metrics {}',
    { manager: { featureGates: { A: true }, metrics: {} } },
    ['manager', 'metrics'],
    { bindAddress: ':8443' },
  ],
  [
    'webhook round trip: manager.health {}',
    { manager: { featureGates: { A: true }, health: {} } },
    ['manager', 'health'],
    { healthProbeBindAddress: ':9440' },
  ],
  [
    'webhook round trip: manager.webhook {}',
    { manager: { featureGates: { A: true }, webhook: {} } },
    ['manager', 'webhook'],
    { port: 9443 },
  ],
  [
    'webhook round trip: additionalDeployments.*.manager.metrics {}',
    { additionalDeployments: { extra: { manager: { verbosity: 3, metrics: {} } } } },
    ['additionalDeployments', 'extra', 'manager', 'metrics'],
    { bindAddress: ':8443' },
  ],
  [
    'webhook round trip: additionalDeployments.*.manager.health {}',
    { additionalDeployments: { extra: { manager: { verbosity: 3, health: {} } } } },
    ['additionalDeployments', 'extra', 'manager', 'health'],
    { livenessEndpointName: 'live' },
  ],
  [
    'webhook round trip: additionalDeployments.*.manager.webhook {}',
    { additionalDeployments: { extra: { manager: { verbosity: 3, webhook: {} } } } },
    ['additionalDeployments', 'extra', 'manager', 'webhook'],
    { host: 'h' },
  ],
  [
    'webhook round trip: env resourceFieldRef.divisor "0"',
    { deployment: container({ resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } }) },
    ['deployment', 'containers', '0', 'env', '0', 'valueFrom', 'resourceFieldRef', 'divisor'],
    '1m',
  ],
  [
    'webhook round trip: additionalDeployments env resourceFieldRef.divisor "0"',
    {
      additionalDeployments: {
        extra: { deployment: container({ resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } }) },
      },
    },
    [
      'additionalDeployments',
      'extra',
      'deployment',
      'containers',
      '0',
      'env',
      '0',
      'valueFrom',
      'resourceFieldRef',
      'divisor',
    ],
    '1m',
  ],
  ['CRD: manager.verbosity 1', { manager: { featureGates: { A: true }, verbosity: 1 } }, ['manager', 'verbosity'], 4],
  [
    'CRD: additionalDeployments.*.manager.verbosity 1',
    { additionalDeployments: { extra: { manager: { featureGates: { A: true }, verbosity: 1 } } } },
    ['additionalDeployments', 'extra', 'manager', 'verbosity'],
    4,
  ],
  [
    'CRD: env configMapKeyRef.name ""',
    { deployment: container({ configMapKeyRef: { key: 'k', name: '' } }) },
    ['deployment', 'containers', '0', 'env', '0', 'valueFrom', 'configMapKeyRef', 'name'],
    'cm',
  ],
  [
    'CRD: env secretKeyRef.name ""',
    { deployment: container({ secretKeyRef: { key: 'k', name: '' } }) },
    ['deployment', 'containers', '0', 'env', '0', 'valueFrom', 'secretKeyRef', 'name'],
    's',
  ],
  [
    'CRD: env fileKeyRef.optional false',
    { deployment: container({ fileKeyRef: { key: 'k', path: 'p', volumeName: 'v', optional: false } }) },
    ['deployment', 'containers', '0', 'env', '0', 'valueFrom', 'fileKeyRef', 'optional'],
    true,
  ],
  [
    'CRD: deployment.imagePullSecrets[].name ""',
    { deployment: { imagePullSecrets: [{ name: '' }, { name: 'pull' }] } },
    ['deployment', 'imagePullSecrets', '0', 'name'],
    'regcred',
  ],
  [
    'CRD: additionalDeployments env configMapKeyRef.name ""',
    { additionalDeployments: { extra: { deployment: container({ configMapKeyRef: { key: 'k', name: '' } }) } } },
    [
      'additionalDeployments',
      'extra',
      'deployment',
      'containers',
      '0',
      'env',
      '0',
      'valueFrom',
      'configMapKeyRef',
      'name',
    ],
    'cm',
  ],
  [
    'CRD: additionalDeployments env secretKeyRef.name ""',
    { additionalDeployments: { extra: { deployment: container({ secretKeyRef: { key: 'k', name: '' } }) } } },
    [
      'additionalDeployments',
      'extra',
      'deployment',
      'containers',
      '0',
      'env',
      '0',
      'valueFrom',
      'secretKeyRef',
      'name',
    ],
    's',
  ],
  [
    'CRD: additionalDeployments env fileKeyRef.optional false',
    {
      additionalDeployments: {
        extra: { deployment: container({ fileKeyRef: { key: 'k', path: 'p', volumeName: 'v', optional: false } }) },
      },
    },
    [
      'additionalDeployments',
      'extra',
      'deployment',
      'containers',
      '0',
      'env',
      '0',
      'valueFrom',
      'fileKeyRef',
      'optional',
    ],
    true,
  ],
  [
    'CRD: additionalDeployments imagePullSecrets[].name ""',
    { additionalDeployments: { extra: { deployment: { imagePullSecrets: [{ name: '' }] } } } },
    ['additionalDeployments', 'extra', 'deployment', 'imagePullSecrets', '0', 'name'],
    'regcred',
  ],
];

const get = (o: Obj, path: string[]) => path.reduce<any>((v, k) => (v === undefined ? undefined : v[k]), o);
const set = (o: Obj, path: string[], value: unknown) => {
  const copy = structuredClone(o);
  get(copy, path.slice(0, -1))[path.at(-1)!] = value;
  return copy;
};

describe("import leaves out the operator's and the API server's defaults", () => {
  it.each(ROWS)('%s: dropped when equal, kept when not', (_name, spec, path, other) => {
    const dropped = withoutOperatorDefaults('InfrastructureProvider', NS, spec);
    expect(get(dropped.spec, path)).toBeUndefined();
    expect(dropped.dropped.map((d) => d.path)).toEqual([['spec', ...path].join('.')]);
    // Everything else is kept as it was.
    expect(set(dropped.spec, path, get(spec, path))).toEqual(spec);
    const kept = withoutOperatorDefaults('InfrastructureProvider', NS, set(spec, path, other));
    expect(kept).toEqual({ spec: set(spec, path, other), dropped: [] });
  });

  it('a manager that held only defaults is left out whole; the input is never changed', () => {
    const spec = { version: 'v1.12.0', manager: { verbosity: 1, metrics: {}, health: {}, webhook: {} } };
    const before = structuredClone(spec);
    expect(withoutOperatorDefaults('CoreProvider', 'capi-system', spec).spec).toEqual({ version: 'v1.12.0' });
    expect(spec).toEqual(before);
  });

  it("the rows cover every webhook default and every default of every kind's CRD schema (a new one fails here until it has a row)", () => {
    const covered = new Set(
      ROWS.map(([, , path]) => path.map((p) => (/^\d+$/.test(p) ? '[]' : p === 'extra' ? '*' : p)).join('.')),
    );
    for (const { kind } of PROVIDER_KINDS) {
      for (const d of [...WEBHOOK_DEFAULTS, ...crdDefaults(kind)])
        expect(covered, `${kind} ${d.path.join('.')}`).toContain(d.path.join('.'));
    }
    expect(crdDefaults('CoreProvider').map((d) => `${d.path.join('.')}=${JSON.stringify(d.value)}`)).toEqual([
      'additionalDeployments.*.deployment.containers.[].env.[].valueFrom.configMapKeyRef.name=""',
      'additionalDeployments.*.deployment.containers.[].env.[].valueFrom.fileKeyRef.optional=false',
      'additionalDeployments.*.deployment.containers.[].env.[].valueFrom.secretKeyRef.name=""',
      'additionalDeployments.*.deployment.imagePullSecrets.[].name=""',
      'additionalDeployments.*.manager.verbosity=1',
      'deployment.containers.[].env.[].valueFrom.configMapKeyRef.name=""',
      'deployment.containers.[].env.[].valueFrom.fileKeyRef.optional=false',
      'deployment.containers.[].env.[].valueFrom.secretKeyRef.name=""',
      'deployment.imagePullSecrets.[].name=""',
      'manager.verbosity=1',
    ]);
  });
});
