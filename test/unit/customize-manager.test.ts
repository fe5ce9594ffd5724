import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { customizeDeployments } from '../../src/customize/customize-deployments.js';
import { parseGoDuration, roundToWholeSeconds } from '../../src/customize/go-duration.js';
import type { DeploymentSpec, JsonValue, KubeObject, ManagerSpec } from 'capi-render';
import { getIn, setIn } from '../../src/manifest/object.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { CORE_COMPONENTS, findObject, fixtureObjects } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';

const core = deepFreeze(fixtureObjects(CORE_COMPONENTS));
const capi = findObject(core, 'Deployment', 'capi-controller-manager');
const REF = 'CoreProvider/capi-system/cluster-api';
const CONTAINERS = ['spec', 'template', 'spec', 'containers'];

const [LEADER, DIAG, INSECURE, GATES] = [
  '--leader-elect',
  '--diagnostics-address=:8443',
  '--insecure-diagnostics=false',
  '--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,ReconcilerRateLimiting=false,InPlaceUpdates=false,MachineTaintPropagation=false',
] as const;
const CORE_ARGS = [LEADER, DIAG, INSECURE, GATES];

/** The core Deployment with its manager container's args replaced (for feature-gate parsing cases). */
function withManagerArgs(args: string[]): KubeObject {
  return deepFreeze(setIn(capi, [...CONTAINERS, 0, 'args'], args));
}

function managerOf(
  manager: ManagerSpec,
  deployment: KubeObject = capi,
  spec?: DeploymentSpec,
): Record<string, JsonValue> {
  const out = customizeDeployments([deployment], {
    providerRef: REF,
    manager,
    ...(spec === undefined ? {} : { deployment: spec }),
  });
  const containers = getIn(out[0], CONTAINERS) as Record<string, JsonValue>[];
  return containers.find((c) => c.name === 'manager') ?? containers[0]!;
}

const leaseOf = (overrides: Partial<NonNullable<ManagerSpec['leaderElection']>>): ManagerSpec['leaderElection'] => ({
  leaderElect: true,
  leaseDuration: '0s',
  renewDeadline: '0s',
  retryPeriod: '0s',
  resourceLock: 'leases',
  resourceName: '',
  resourceNamespace: '',
  ...overrides,
});

describe('customizeDeployments: spec.manager → manager args on the v1.12.0 core Deployment', () => {
  const cases: { name: string; manager: ManagerSpec; args: string[] }[] = [
    {
      name: 'groupKindConcurrency → --<lowercase kind>-concurrency, in key order',
      manager: { controller: { groupKindConcurrency: { Machine: 3, 'ReplicaSet.apps': 2, AWSCluster: 5 } } },
      args: [...CORE_ARGS, '--awscluster-concurrency=5', '--machine-concurrency=3', '--replicaset.apps-concurrency=2'],
    },
    {
      name: 'maxConcurrentReconciles',
      manager: { maxConcurrentReconciles: 10 },
      args: [...CORE_ARGS, '--max-concurrent-reconciles=10'],
    },
    {
      name: 'cacheNamespace → --namespace',
      manager: { cacheNamespace: 'testNS' },
      args: [...CORE_ARGS, '--namespace=testNS'],
    },
    {
      name: 'health.healthProbeBindAddress → --health-addr',
      manager: { health: { healthProbeBindAddress: ':6789' } },
      args: [...CORE_ARGS, '--health-addr=:6789'],
    },
    {
      name: 'metrics.bindAddress → --metrics-bind-addr',
      manager: { metrics: { bindAddress: ':4567' } },
      args: [...CORE_ARGS, '--metrics-bind-addr=:4567'],
    },
    {
      name: 'metrics.diagnosticsAddress replaces the manifest flag in place',
      manager: { metrics: { diagnosticsAddress: ':9443' } },
      args: [LEADER, '--diagnostics-address=:9443', INSECURE, GATES],
    },
    {
      name: 'webhook.host → --webhook-host',
      manager: { webhook: { host: '0.0.0.0' } },
      args: [...CORE_ARGS, '--webhook-host=0.0.0.0'],
    },
    {
      name: 'webhook.certDir → --webhook-cert-dir',
      manager: { webhook: { certDir: '/tmp/certs' } },
      args: [...CORE_ARGS, '--webhook-cert-dir=/tmp/certs'],
    },
    {
      name: 'webhook.port → --webhook-port',
      manager: { webhook: { port: 3579 } },
      args: [...CORE_ARGS, '--webhook-port=3579'],
    },
    {
      name: 'webhook.port 0 is still written',
      manager: { webhook: { port: 0 } },
      args: [...CORE_ARGS, '--webhook-port=0'],
    },
    {
      name: 'profilerAddress → --profiler-address',
      manager: { profilerAddress: 'localhost:6060' },
      args: [...CORE_ARGS, '--profiler-address=localhost:6060'],
    },
    {
      name: 'empty strings write nothing',
      manager: { cacheNamespace: '', profilerAddress: '', metrics: { bindAddress: '' } },
      args: CORE_ARGS,
    },
    {
      name: 'leaderElect true: --leader-elect=true (next to the bare flag), the id, then the durations',
      manager: {
        leaderElection: leaseOf({
          resourceName: 'foo',
          resourceNamespace: 'here',
          leaseDuration: '15s',
          renewDeadline: '10s',
          retryPeriod: '2s',
        }),
      },
      args: [
        ...CORE_ARGS,
        '--leader-elect=true',
        '--leader-election-id=here/foo',
        '--leader-elect-lease-duration=15s',
        '--leader-elect-renew-deadline=10s',
        '--leader-elect-retry-period=2s',
      ],
    },
    {
      name: 'leader-election durations round to whole seconds, halves away from zero; below half a second writes nothing',
      manager: { leaderElection: leaseOf({ leaseDuration: '7h', renewDeadline: '1.5s', retryPeriod: '400ms' }) },
      args: [
        ...CORE_ARGS,
        '--leader-elect=true',
        '--leader-elect-lease-duration=25200s',
        '--leader-elect-renew-deadline=2s',
      ],
    },
    {
      name: 'leaderElect true without a resource name and namespace writes no id',
      manager: { leaderElection: leaseOf({ retryPeriod: '1499ms' }) },
      args: [...CORE_ARGS, '--leader-elect=true', '--leader-elect-retry-period=1s'],
    },
    {
      name: 'leaderElect false writes only --leader-elect=false',
      manager: {
        leaderElection: leaseOf({
          leaderElect: false,
          resourceName: 'foo',
          resourceNamespace: 'here',
          leaseDuration: '15s',
        }),
      },
      args: [...CORE_ARGS, '--leader-elect=false'],
    },
    {
      name: 'insecureDiagnostics true replaces the manifest flag',
      manager: { metrics: { insecureDiagnostics: true } },
      args: [LEADER, DIAG, '--insecure-diagnostics=true', GATES],
    },
    {
      name: 'insecureDiagnostics false writes nothing',
      manager: { metrics: { insecureDiagnostics: false } },
      args: CORE_ARGS,
    },
    {
      name: 'syncPeriod → --sync-period in seconds',
      manager: { syncPeriod: '7h' },
      args: [...CORE_ARGS, '--sync-period=25200s'],
    },
    {
      name: 'syncPeriod with mixed units and a fraction rounds',
      manager: { syncPeriod: '1m30.5s' },
      args: [...CORE_ARGS, '--sync-period=91s'],
    },
    { name: 'verbosity absent defaults to 1 and writes nothing', manager: {}, args: CORE_ARGS },
    { name: 'verbosity 1 writes nothing', manager: { verbosity: 1 }, args: CORE_ARGS },
    { name: 'verbosity 0 → --v=0', manager: { verbosity: 0 }, args: [...CORE_ARGS, '--v=0'] },
    { name: 'verbosity 5 → --v=5', manager: { verbosity: 5 }, args: [...CORE_ARGS, '--v=5'] },
    {
      name: 'featureGates merge into the manifest --feature-gates (user wins) and are sorted',
      manager: { featureGates: { ClusterTopology: true, MachineSetPreflightChecks: false, NewGate: true } },
      args: [
        LEADER,
        DIAG,
        INSECURE,
        '--feature-gates=ClusterTopology=true,InPlaceUpdates=false,MachinePool=true,MachineSetPreflightChecks=false,MachineTaintPropagation=false,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,NewGate=true,PriorityQueue=false,ReconcilerRateLimiting=false,RuntimeSDK=false',
      ],
    },
    { name: 'empty featureGates leave the manifest flag alone', manager: { featureGates: {} }, args: CORE_ARGS },
    {
      name: 'additionalArgs are appended in key order',
      manager: { additionalArgs: { '--test-option': 'test-value', '--another-option': 'another-value' } },
      args: [...CORE_ARGS, '--another-option=another-value', '--test-option=test-value'],
    },
    {
      name: 'additionalArgs may add --leader-elect=false next to the bare --leader-elect (only K= collides)',
      manager: { additionalArgs: { '--leader-elect': 'false' } },
      args: [...CORE_ARGS, '--leader-elect=false'],
    },
    {
      name: 'all manager options at once, in the operator code order',
      manager: {
        featureGates: { TEST: true, ANOTHER: false },
        profilerAddress: 'localhost:1234',
        verbosity: 5,
        cacheNamespace: 'testNS',
        syncPeriod: '7h',
        controller: { groupKindConcurrency: { machine: 3 } },
        metrics: { bindAddress: ':4567' },
        health: { healthProbeBindAddress: ':6789', readinessEndpointName: 'readyish', livenessEndpointName: 'mostly' },
        webhook: { port: 3579, certDir: '/tmp/certs' },
        leaderElection: leaseOf({
          resourceName: 'foo',
          resourceNamespace: 'here',
          leaseDuration: '7h',
          renewDeadline: '7h',
          retryPeriod: '7h',
        }),
        additionalArgs: { '--test-option': 'test-value', '--another-option': 'another-value' },
      },
      args: [
        LEADER,
        DIAG,
        INSECURE,
        '--feature-gates=ANOTHER=false,ClusterTopology=false,InPlaceUpdates=false,MachinePool=true,MachineSetPreflightChecks=true,MachineTaintPropagation=false,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,ReconcilerRateLimiting=false,RuntimeSDK=false,TEST=true',
        '--machine-concurrency=3',
        '--namespace=testNS',
        '--health-addr=:6789',
        '--metrics-bind-addr=:4567',
        '--webhook-cert-dir=/tmp/certs',
        '--profiler-address=localhost:1234',
        '--leader-elect=true',
        '--leader-election-id=here/foo',
        '--leader-elect-lease-duration=25200s',
        '--leader-elect-renew-deadline=25200s',
        '--leader-elect-retry-period=25200s',
        '--webhook-port=3579',
        '--sync-period=25200s',
        '--v=5',
        '--another-option=another-value',
        '--test-option=test-value',
      ],
    },
  ];

  it.each(cases)('$name', ({ manager, args }) => {
    expect(managerOf(manager).args).toEqual(args);
  });

  it.each<{ name: string; args: string[]; gates: Record<string, boolean>; expected: string }>([
    {
      name: 'one gate',
      args: ['--feature-gates=MachinePool=true'],
      gates: { ClusterTopology: true },
      expected: '--feature-gates=ClusterTopology=true,MachinePool=true',
    },
    {
      name: 'only the first --feature-gates is read and replaced',
      args: ['--feature-gates=A=true', '--feature-gates=B=true'],
      gates: { C: false },
      expected: '--feature-gates=A=true,C=false',
    },
    {
      name: 'an entry without = is dropped',
      args: ['--feature-gates=Bare,A=true'],
      gates: { C: true },
      expected: '--feature-gates=A=true,C=true',
    },
    {
      name: 'only the text true is true',
      args: ['--feature-gates=A=True,B=1'],
      gates: { C: true },
      expected: '--feature-gates=A=false,B=false,C=true',
    },
    {
      name: 'sorted as whole strings, so A-b= comes before A=',
      args: [],
      gates: { A: true, 'A-b': false },
      expected: '--feature-gates=A-b=false,A=true',
    },
  ])('featureGates: $name', ({ args, gates, expected }) => {
    const result = managerOf({ featureGates: gates }, withManagerArgs(['--v=2', ...args])).args as string[];
    expect(result.filter((a) => a.startsWith('--feature-gates='))[0]).toBe(expected);
    expect(result[0]).toBe('--v=2');
  });

  it('liveness and readiness endpoint names become the probe paths', () => {
    const manager = managerOf({ health: { livenessEndpointName: 'mostly', readinessEndpointName: 'readyish' } });
    expect(manager.livenessProbe).toEqual({ httpGet: { path: '/mostly', port: 'healthz' } });
    expect(manager.readinessProbe).toEqual({ httpGet: { path: '/readyish', port: 'healthz' } });
    expect(manager.args).toEqual(CORE_ARGS);
  });

  it('spec.manager wins over spec.deployment.containers[].args for the same flag', () => {
    const manager = managerOf({ verbosity: 5, syncPeriod: '2h' }, capi, {
      containers: [{ name: 'manager', args: { '--v': '3', '--sync-period': '1h' } }],
    });
    expect(manager.args).toEqual([...CORE_ARGS, '--sync-period=7200s', '--v=5']);
  });

  it('the manager container is the one named manager, not the first', () => {
    const proxy = { name: 'kube-rbac-proxy', image: 'registry.k8s.io/kube-rbac-proxy:v0.13.1' };
    const containers = getIn(capi, CONTAINERS) as JsonValue[];
    const withSidecar = deepFreeze(setIn(capi, CONTAINERS, [proxy, ...containers]));
    const out = customizeDeployments([withSidecar], { providerRef: REF, manager: { verbosity: 4 } });
    const [first, second] = getIn(out[0], CONTAINERS) as Record<string, JsonValue>[];
    expect(first).toEqual(proxy);
    expect(second?.args).toEqual([...CORE_ARGS, '--v=4']);
  });

  it('without a container named manager, the first container is used (cluster-api-operator#787)', () => {
    const renamed = deepFreeze(setIn(capi, [...CONTAINERS, 0, 'name'], 'controller'));
    expect(managerOf({ verbosity: 4 }, renamed).args).toEqual([...CORE_ARGS, '--v=4']);
  });

  it('a container without args gets an args list only when a flag is written', () => {
    const bare = deepFreeze(setIn(capi, [...CONTAINERS, 0, 'args'], undefined));
    expect(managerOf({ verbosity: 1 }, bare).args).toBeUndefined();
    expect(managerOf({ verbosity: 2 }, bare).args).toEqual(['--v=2']);
  });
});

describe('customizeDeployments: spec.manager errors (code customize)', () => {
  const noProbe = deepFreeze(setIn(capi, [...CONTAINERS, 0, 'livenessProbe'], undefined));
  const noContainers = deepFreeze(setIn(capi, CONTAINERS, []));
  const cases: { name: string; manager: ManagerSpec; deployment?: KubeObject; fields: string[] }[] = [
    {
      name: 'additionalArgs naming a flag the manifest already has',
      manager: { additionalArgs: { '--test-option': 'x', '--diagnostics-address': ':9443' } },
      fields: ['spec.manager.additionalArgs.--diagnostics-address'],
    },
    {
      name: 'additionalArgs naming a flag an earlier field wrote, with a different value',
      manager: { webhook: { port: 3579 }, additionalArgs: { '--webhook-port': '0000' } },
      fields: ['spec.manager.additionalArgs.--webhook-port'],
    },
    {
      name: 'additionalArgs naming a flag an earlier field wrote, even with the same value',
      manager: { webhook: { port: 3579 }, additionalArgs: { '--webhook-port': '3579' } },
      fields: ['spec.manager.additionalArgs.--webhook-port'],
    },
    {
      name: 'a Deployment without containers',
      manager: { verbosity: 2 },
      deployment: noContainers,
      fields: ['spec.manager'],
    },
    {
      name: 'livenessEndpointName without a liveness probe',
      manager: { health: { livenessEndpointName: 'alive' } },
      deployment: noProbe,
      fields: ['spec.manager.health.livenessEndpointName'],
    },
    {
      name: 'gracefulShutDown (the operator ignores it)',
      manager: { gracefulShutDown: '30s' },
      fields: ['spec.manager.gracefulShutDown'],
    },
    {
      name: 'controller.cacheSyncTimeout (the operator ignores it)',
      manager: { controller: { cacheSyncTimeout: 120 } },
      fields: ['spec.manager.controller.cacheSyncTimeout'],
    },
    {
      name: 'controller.recoverPanic, even false (the operator ignores it)',
      manager: { controller: { recoverPanic: false } },
      fields: ['spec.manager.controller.recoverPanic'],
    },
    {
      name: 'a resourceLock other than leases',
      manager: { leaderElection: leaseOf({ resourceLock: 'configmaps' }) },
      fields: ['spec.manager.leaderElection.resourceLock'],
    },
    {
      name: 'a syncPeriod Go cannot parse',
      manager: { syncPeriod: '10 minutes' },
      fields: ['spec.manager.syncPeriod'],
    },
    {
      name: 'a syncPeriod that rounds to no flag',
      manager: { syncPeriod: '400ms' },
      fields: ['spec.manager.syncPeriod'],
    },
    {
      name: 'a leaseDuration Go cannot parse',
      manager: { leaderElection: leaseOf({ leaseDuration: 'soon' }) },
      fields: ['spec.manager.leaderElection.leaseDuration'],
    },
    {
      name: 'a resourceName without resourceNamespace',
      manager: { leaderElection: leaseOf({ resourceName: 'foo' }) },
      fields: ['spec.manager.leaderElection.resourceNamespace'],
    },
    {
      name: 'every unsupported field at once, collected',
      manager: { gracefulShutDown: '30s', controller: { recoverPanic: true, cacheSyncTimeout: 5 }, syncPeriod: 'x' },
      fields: [
        'spec.manager.gracefulShutDown',
        'spec.manager.controller.cacheSyncTimeout',
        'spec.manager.controller.recoverPanic',
        'spec.manager.syncPeriod',
      ],
    },
  ];

  it.each(cases)('$name', ({ manager, deployment, fields }) => {
    const err = thrownBy(SpecError, () => customizeDeployments([deployment ?? capi], { providerRef: REF, manager }));
    expect(err.code).toBe('customize');
    expect(err.diagnostics.map((d) => d.field)).toEqual(fields);
    for (const d of err.diagnostics) expect(d.object).toBe(REF);
  });

  it('unsupported fields of an additionalDeployments manager are named under that entry', () => {
    const helper = deepFreeze(setIn(capi, ['metadata', 'name'], 'helper'));
    const err = thrownBy(SpecError, () =>
      customizeDeployments([capi, helper], {
        providerRef: REF,
        additionalDeployments: { helper: { manager: { gracefulShutDown: '1s' } } },
      }),
    );
    expect(err.diagnostics.map((d) => d.field)).toEqual(['spec.additionalDeployments.helper.manager.gracefulShutDown']);
  });

  it.each([{ lock: 'leases' }, { lock: '' }])(
    'resourceLock $lock is accepted (what the providers use anyway)',
    ({ lock }) => {
      expect(managerOf({ leaderElection: leaseOf({ resourceLock: lock }) }).args).toEqual([
        ...CORE_ARGS,
        '--leader-elect=true',
      ]);
    },
  );
});

describe('Go durations (time.ParseDuration, Duration.Round(time.Second)); the last two rows saturate like Go', () => {
  it.each([
    { text: '0', nanos: 0n, seconds: 0n },
    { text: '7h', nanos: 25_200_000_000_000n, seconds: 25_200n },
    { text: '1h30m', nanos: 5_400_000_000_000n, seconds: 5_400n },
    { text: '1.5s', nanos: 1_500_000_000n, seconds: 2n },
    { text: '1499ms', nanos: 1_499_000_000n, seconds: 1n },
    { text: '.5s', nanos: 500_000_000n, seconds: 1n },
    { text: '1.s', nanos: 1_000_000_000n, seconds: 1n },
    { text: '-1.5s', nanos: -1_500_000_000n, seconds: -2n },
    { text: '+2m', nanos: 120_000_000_000n, seconds: 120n },
    { text: '3µs', nanos: 3_000n, seconds: 0n },
    { text: '3μs', nanos: 3_000n, seconds: 0n },
    { text: '100us', nanos: 100_000n, seconds: 0n },
    { text: '2562047h47m16.854775807s', nanos: 9_223_372_036_854_775_807n, seconds: 9_223_372_036n },
    { text: '-9223372036854775808ns', nanos: -9_223_372_036_854_775_808n, seconds: -9_223_372_036n },
  ])('$text', ({ text, nanos, seconds }) => {
    const parsed = parseGoDuration(text);
    expect(parsed).toEqual({ ok: true, nanos });
    expect(roundToWholeSeconds(nanos)).toBe(seconds);
  });

  it.each(['', '-', '10', 's', '.s', '1x', '1 s', '9223372036854775808ns', '2562048h'])('%j is rejected', (text) => {
    expect(parseGoDuration(text).ok).toBe(false);
  });
});
