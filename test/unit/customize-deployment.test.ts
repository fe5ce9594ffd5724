import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { customizeDeployments, type ProviderCustomization } from '../../src/customize/customize-deployments.js';
import type { DeploymentSpec, JsonValue, KubeObject } from 'capi-render';
import { getIn, setIn } from '../../src/manifest/object.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { CORE_COMPONENTS, DOCKER_COMPONENTS, findObject, fixtureObjects } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';

const core = deepFreeze(fixtureObjects(CORE_COMPONENTS));
const docker = deepFreeze(fixtureObjects(DOCKER_COMPONENTS));
const capi = findObject(core, 'Deployment', 'capi-controller-manager');
const capd = findObject(docker, 'Deployment', 'capd-controller-manager');

const POD = ['spec', 'template', 'spec'];
const MANAGER = [...POD, 'containers', 0];

/** The manager args of the v1.12.0 core Deployment after `${VAR:=default}` defaults. */
const CORE_ARGS = [
  '--leader-elect',
  '--diagnostics-address=:8443',
  '--insecure-diagnostics=false',
  '--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,ReconcilerRateLimiting=false,InPlaceUpdates=false,MachineTaintPropagation=false',
];

const CORE_ENV = [
  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  { name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
];

const toleration = { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' };
const affinity = {
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [] }] } },
};
const resources = { requests: { memory: '16Gi' }, limits: { cpu: '1' } };

function customize(deployment: DeploymentSpec, objects: readonly KubeObject[] = core): KubeObject {
  const out = customizeDeployments(objects, { providerRef: 'CoreProvider/capi-system/cluster-api', deployment });
  return findObject(out, 'Deployment', 'capi-controller-manager');
}

function renamed(deployment: KubeObject, name: string): KubeObject {
  return deepFreeze(setIn(deployment, ['metadata', 'name'], name));
}

describe('customizeDeployments: spec.deployment fields on the v1.12.0 core Deployment', () => {
  const cases: {
    name: string;
    deployment: DeploymentSpec;
    expected: [(string | number)[], JsonValue | undefined][];
  }[] = [
    { name: 'replicas replaces', deployment: { replicas: 3 }, expected: [[['spec', 'replicas'], 3]] },
    {
      name: 'replicas 0 is kept, not treated as unset',
      deployment: { replicas: 0 },
      expected: [[['spec', 'replicas'], 0]],
    },
    {
      name: 'nodeSelector replaces',
      deployment: { nodeSelector: { a: 'b' } },
      expected: [[[...POD, 'nodeSelector'], { a: 'b' }]],
    },
    {
      name: 'tolerations replace the manifest list',
      deployment: { tolerations: [toleration] },
      expected: [[[...POD, 'tolerations'], [toleration]]],
    },
    {
      name: 'an explicit empty tolerations list clears them',
      deployment: { tolerations: [] },
      expected: [[[...POD, 'tolerations'], undefined]],
    },
    { name: 'affinity replaces', deployment: { affinity }, expected: [[[...POD, 'affinity'], affinity]] },
    {
      name: 'serviceAccountName replaces',
      deployment: { serviceAccountName: 'foo-service-account' },
      expected: [[[...POD, 'serviceAccountName'], 'foo-service-account']],
    },
    {
      name: 'an empty serviceAccountName keeps the manifest one',
      deployment: { serviceAccountName: '' },
      expected: [[[...POD, 'serviceAccountName'], 'capi-manager']],
    },
    {
      name: 'imagePullSecrets replace',
      deployment: { imagePullSecrets: [{ name: 'test' }] },
      expected: [[[...POD, 'imagePullSecrets'], [{ name: 'test' }]]],
    },
    {
      name: 'an empty imagePullSecrets list leaves none',
      deployment: { imagePullSecrets: [] },
      expected: [[[...POD, 'imagePullSecrets'], undefined]],
    },
    {
      name: 'containers[].args: an existing flag is replaced in place, new ones appended in key order',
      deployment: {
        containers: [
          {
            name: 'manager',
            args: { '--webhook-port': '3456', '--log_dir': '/var/log', '--diagnostics-address': ':9443' },
          },
        ],
      },
      expected: [
        [
          [...MANAGER, 'args'],
          [
            '--leader-elect',
            '--diagnostics-address=:9443',
            CORE_ARGS[2]!,
            CORE_ARGS[3]!,
            '--log_dir=/var/log',
            '--webhook-port=3456',
          ],
        ],
      ],
    },
    {
      name: 'containers[].args: a bare --leader-elect is not a --leader-elect= arg, so both stay',
      deployment: { containers: [{ name: 'manager', args: { '--leader-elect': 'false' } }] },
      expected: [
        [
          [...MANAGER, 'args'],
          [...CORE_ARGS, '--leader-elect=false'],
        ],
      ],
    },
    {
      name: 'containers[].env: a same-named variable moves to the end with its new value, new ones are appended',
      deployment: {
        containers: [
          {
            name: 'manager',
            env: [
              { name: 'POD_NAME', value: 'fixed' },
              { name: 'NEW', value: 'v' },
            ],
          },
        ],
      },
      expected: [
        [
          [...MANAGER, 'env'],
          [CORE_ENV[0]!, CORE_ENV[2]!, { name: 'POD_NAME', value: 'fixed' }, { name: 'NEW', value: 'v' }],
        ],
      ],
    },
    {
      name: 'containers[].resources replace',
      deployment: { containers: [{ name: 'manager', resources }] },
      expected: [[[...MANAGER, 'resources'], resources]],
    },
    {
      name: 'containers[].imageUrl replaces the image',
      deployment: { containers: [{ name: 'manager', imageUrl: 'quay.io/dev/mydns:v3.4.2' }] },
      expected: [[[...MANAGER, 'image'], 'quay.io/dev/mydns:v3.4.2']],
    },
    {
      name: 'containers[].command replaces',
      deployment: { containers: [{ name: 'manager', command: ['/expected'] }] },
      expected: [[[...MANAGER, 'command'], ['/expected']]],
    },
    {
      name: 'an empty containers[].command clears it',
      deployment: { containers: [{ name: 'manager', command: [] }] },
      expected: [[[...MANAGER, 'command'], undefined]],
    },
    {
      name: 'all deployment options at once',
      deployment: {
        replicas: 3,
        nodeSelector: { a: 'b' },
        tolerations: [toleration],
        affinity,
        serviceAccountName: 'sa',
        imagePullSecrets: [{ name: 'test' }],
        containers: [
          {
            name: 'manager',
            imageUrl: 'quay.io/dev/mydns:v3.4.2',
            env: [{ name: 'test1', value: 'value2' }],
            args: { '--webhook-port': '3456', '--log_dir': '/var/log' },
            resources,
            command: ['/expected'],
          },
        ],
      },
      expected: [
        [['spec', 'replicas'], 3],
        [[...POD, 'nodeSelector'], { a: 'b' }],
        [[...POD, 'tolerations'], [toleration]],
        [[...POD, 'affinity'], affinity],
        [[...POD, 'serviceAccountName'], 'sa'],
        [[...POD, 'imagePullSecrets'], [{ name: 'test' }]],
        [[...MANAGER, 'image'], 'quay.io/dev/mydns:v3.4.2'],
        [
          [...MANAGER, 'env'],
          [...CORE_ENV, { name: 'test1', value: 'value2' }],
        ],
        [
          [...MANAGER, 'args'],
          [...CORE_ARGS, '--log_dir=/var/log', '--webhook-port=3456'],
        ],
        [[...MANAGER, 'resources'], resources],
        [[...MANAGER, 'command'], ['/expected']],
      ],
    },
  ];

  it.each(cases)('$name', ({ deployment, expected }) => {
    const result = customize(deployment);
    for (const [path, value] of expected) expect(getIn(result, path)).toEqual(value);
  });

  it('an empty spec.deployment returns the very same objects', () => {
    const out = customizeDeployments(core, { providerRef: 'CoreProvider/capi-system/cluster-api', deployment: {} });
    expect(out).not.toBe(core);
    out.forEach((object, i) => expect(object).toBe(core[i]));
  });

  it('changes only the Deployment: other objects are the same references, the Deployment is new, inputs stay as they were', () => {
    const before = structuredClone(capi);
    const out = customizeDeployments(core, {
      providerRef: 'CoreProvider/capi-system/cluster-api',
      deployment: { replicas: 2, containers: [{ name: 'manager', args: { '--x': 'y' } }] },
    });
    out.forEach((object, i) =>
      object.kind === 'Deployment' ? expect(object).not.toBe(core[i]) : expect(object).toBe(core[i]),
    );
    expect(capi).toEqual(before);
  });

  it('does not alias the CR values into the output', () => {
    const spec: DeploymentSpec = { tolerations: [{ key: 'k', effect: 'NoSchedule' }] };
    const result = customize(spec);
    expect(getIn(result, [...POD, 'tolerations'])).not.toBe(spec.tolerations);
  });

  it('works on the CAPD Deployment too (single Deployment, env with a literal "" default)', () => {
    const out = customizeDeployments(docker, {
      providerRef: 'InfrastructureProvider/capd-system/docker',
      deployment: {
        containers: [{ name: 'manager', env: [{ name: 'DOCKER_HOST', value: 'unix:///run/docker.sock' }] }],
      },
    });
    const env = getIn(findObject(out, 'Deployment', 'capd-controller-manager'), [...MANAGER, 'env']) as {
      name: string;
      value?: string;
    }[];
    expect(env.map((e) => e.name)).toEqual(['POD_NAMESPACE', 'POD_NAME', 'POD_UID', 'POD_IP', 'DOCKER_HOST']);
    expect(env[4]).toEqual({ name: 'DOCKER_HOST', value: 'unix:///run/docker.sock' });
  });
});

describe('customizeDeployments: which Deployment is customised', () => {
  const ref = 'CoreProvider/capi-system/cluster-api';
  const replicasOf = (objects: KubeObject[], name: string): JsonValue | undefined =>
    getIn(findObject(objects, 'Deployment', name), ['spec', 'replicas']);

  it.each([
    { name: 'no prefix and no suffix', other: 'non-manager' },
    { name: 'the ca prefix only', other: 'ca-non-manager' },
    { name: 'the -controller-manager suffix only', other: 'non-manager-controller-manager' },
    { name: 'an empty name', other: '' },
  ])('with several Deployments, one with $name is left alone', ({ other }) => {
    const input = [capi, renamed(capi, other)];
    const out = customizeDeployments(input, { providerRef: ref, deployment: { replicas: 10 } });
    expect(replicasOf(out, 'capi-controller-manager')).toBe(10);
    expect(out[1]).toBe(input[1]);
    expect(replicasOf(out, other)).toBe(1);
  });

  it('with several Deployments, every ca*-controller-manager takes spec.deployment', () => {
    const out = customizeDeployments([capi, capd], { providerRef: ref, deployment: { replicas: 4 } });
    expect(replicasOf(out, 'capi-controller-manager')).toBe(4);
    expect(replicasOf(out, 'capd-controller-manager')).toBe(4);
  });

  it('another Deployment is customised through additionalDeployments[<its name>] with its own blocks', () => {
    const other = renamed(capi, 'azureserviceoperator-controller-manager');
    const out = customizeDeployments([capi, other], {
      providerRef: ref,
      deployment: { replicas: 10 },
      additionalDeployments: {
        'azureserviceoperator-controller-manager': {
          deployment: { containers: [{ name: 'manager', args: { '--crd-pattern': '.*' } }] },
          manager: { verbosity: 1 },
        },
      },
    });
    expect(replicasOf(out, 'capi-controller-manager')).toBe(10);
    expect(replicasOf(out, 'azureserviceoperator-controller-manager')).toBe(1);
    expect(
      getIn(findObject(out, 'Deployment', 'azureserviceoperator-controller-manager'), [...MANAGER, 'args']),
    ).toEqual([...CORE_ARGS, '--crd-pattern=.*']);
    expect(getIn(findObject(out, 'Deployment', 'capi-controller-manager'), [...MANAGER, 'args'])).toEqual(CORE_ARGS);
  });

  it('a single Deployment takes spec.deployment whatever its name', () => {
    const out = customizeDeployments([renamed(capi, 'my-provider')], { providerRef: ref, deployment: { replicas: 2 } });
    expect(replicasOf(out, 'my-provider')).toBe(2);
  });

  it('objects that are not Deployments are passed through untouched', () => {
    const out = customizeDeployments(core, { providerRef: ref, deployment: { replicas: 2 } });
    expect(out.filter((o, i) => o !== core[i]).map((o) => o.kind)).toEqual(['Deployment']);
  });
});

describe('customizeDeployments: errors (code customize, naming the CR field)', () => {
  const ref = 'CoreProvider/capi-system/cluster-api';
  const cases: {
    name: string;
    objects: readonly KubeObject[];
    provider: Omit<ProviderCustomization, 'providerRef'>;
    fields: string[];
  }[] = [
    {
      name: 'a container name the Deployment does not have',
      objects: core,
      provider: {
        deployment: {
          containers: [
            { name: 'manager', imageUrl: 'registry.k8s.io/x:1' },
            { name: 'NON-EXISTENT', imageUrl: 'quay.io/dev/mydns:v3.4.2' },
          ],
        },
      },
      fields: ['spec.deployment.containers[1].name'],
    },
    {
      name: 'an additionalDeployments key that names no Deployment (stricter than the operator, which skips it)',
      objects: core,
      provider: { additionalDeployments: { 'capi-typo': { deployment: { replicas: 2 } } } },
      fields: ['spec.additionalDeployments.capi-typo'],
    },
    {
      name: 'an additionalDeployments key naming the only Deployment, which takes spec.deployment instead',
      objects: core,
      provider: { additionalDeployments: { 'capi-controller-manager': { deployment: { replicas: 2 } } } },
      fields: ['spec.additionalDeployments.capi-controller-manager'],
    },
    {
      name: 'an additionalDeployments key naming a ca*-controller-manager among several',
      objects: [capi, capd],
      provider: { additionalDeployments: { 'capd-controller-manager': { deployment: { replicas: 2 } } } },
      fields: ['spec.additionalDeployments.capd-controller-manager'],
    },
    {
      name: 'spec.deployment and spec.manager when no Deployment is named ca*-controller-manager',
      objects: [renamed(capi, 'foo'), renamed(capi, 'bar')],
      provider: { deployment: { replicas: 2 }, manager: { verbosity: 3 } },
      fields: ['spec.deployment', 'spec.manager'],
    },
    {
      name: 'spec.manager when the provider has no Deployment at all',
      objects: core.filter((o) => o.kind !== 'Deployment'),
      provider: { manager: { verbosity: 3 } },
      fields: ['spec.manager'],
    },
    {
      name: 'an unknown container inside an additionalDeployments entry',
      objects: [capi, renamed(capi, 'helper')],
      provider: { additionalDeployments: { helper: { deployment: { containers: [{ name: 'sidecar' }] } } } },
      fields: ['spec.additionalDeployments.helper.deployment.containers[0].name'],
    },
  ];

  it.each(cases)('$name', ({ objects, provider, fields }) => {
    const err = thrownBy(SpecError, () => customizeDeployments(objects, { providerRef: ref, ...provider }));
    expect(err.code).toBe('customize');
    expect(err.diagnostics.map((d) => d.field)).toEqual(fields);
    for (const d of err.diagnostics) expect(d.object).toBe(ref);
  });
});
