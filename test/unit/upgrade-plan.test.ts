import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMetadata, type ReleaseMetadata } from '../../src/source/metadata.js';
import type { ProviderKind } from 'capi-render';
import { planCertManager } from '../../src/upgrade/cert-manager-plan.js';
import { formatPlanText, planDocument } from '../../src/upgrade/format-plan.js';
import { planEnvironmentUpgrade } from '../../src/upgrade/plan.js';
import { selectTargets, type UpgradeRequest } from '../../src/upgrade/select-targets.js';
import type { PlanProvider } from '../../src/upgrade/upgrade-info.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';

const SUPPORTED = ['v1beta2', 'v1beta1'];

/** The tags of the cluster-api GitHub release train in the fixtures (the union of its labels' folders). */
const CAPI_TAGS = [
  ...new Set(
    ['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm', 'infrastructure-docker'].flatMap((l) =>
      readdirSync(`${FIXTURES}repository/${l}`),
    ),
  ),
];
const CAPI_METADATA = parseMetadata(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml'), 'v1.12.0 metadata');

/** A later release train than the fixtures hold: 1.11–1.15 implement v1beta2 (to reach the skip rule). */
const FUTURE_METADATA: ReleaseMetadata = {
  releaseSeries: [
    { major: 1, minor: 15, contract: 'v1beta2' },
    { major: 1, minor: 14, contract: 'v1beta2' },
    { major: 1, minor: 13, contract: 'v1beta2' },
    { major: 1, minor: 12, contract: 'v1beta2' },
    { major: 1, minor: 11, contract: 'v1beta2' },
    { major: 1, minor: 10, contract: 'v1beta1' },
  ],
};
const FUTURE_TAGS = ['v1.10.4', 'v1.11.0', 'v1.13.2', 'v1.14.0', 'v1.15.0-rc.0'];

const KINDS: Record<string, [ProviderKind, string, string, string]> = {
  core: ['CoreProvider', 'cluster-api', 'capi-system', 'cluster-api'],
  bootstrap: ['BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm'],
  controlPlane: ['ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', 'control-plane-kubeadm'],
  docker: ['InfrastructureProvider', 'docker', 'capd-system', 'infrastructure-docker'],
};

function provider(
  which: keyof typeof KINDS,
  version: string,
  available: readonly string[] = CAPI_TAGS,
  metadata: ReleaseMetadata = CAPI_METADATA,
): PlanProvider {
  const [kind, name, namespace, label] = KINDS[which]!;
  return {
    provider: `${kind}/${namespace}/${name}`,
    kind,
    name,
    namespace,
    label,
    version,
    available,
    metadata,
    sourceDescription: 'fixture releases',
  };
}

const kubeadmSet = (version: string, extra: PlanProvider[] = []) => [
  provider('core', version),
  provider('bootstrap', version),
  provider('controlPlane', version),
  ...extra,
];

describe('planEnvironmentUpgrade (clusterctl upgrade plan rules)', () => {
  it('core and kubeadm on v1.10.4 (v1beta1): nothing newer for v1beta1, v1.12.0 for the v1beta2 contract', () => {
    const { plan, problems } = planEnvironmentUpgrade('dev', kubeadmSet('v1.10.4'), SUPPORTED);
    expect(problems).toEqual([]);
    expect(plan!.core).toEqual({
      provider: 'CoreProvider/capi-system/cluster-api',
      version: 'v1.10.4',
      contract: 'v1beta1',
    });
    expect(plan!.contracts.map((c) => [c.contract, c.current, c.status, c.steps.map((s) => s.to)])).toEqual([
      ['v1beta1', true, 'up-to-date', [null, null, null]],
      ['v1beta2', false, 'available', ['v1.12.0', 'v1.12.0', 'v1.12.0']],
    ]);
    expect(plan!.providers.map((r) => [r.label, r.contract, r.latestPatch, r.sameContract, r.newest])).toEqual([
      ['cluster-api', 'v1beta1', null, null, { version: 'v1.12.0', contract: 'v1beta2', coreFirst: false }],
      ['bootstrap-kubeadm', 'v1beta1', null, null, { version: 'v1.12.0', contract: 'v1beta2', coreFirst: true }],
      ['control-plane-kubeadm', 'v1beta1', null, null, { version: 'v1.12.0', contract: 'v1beta2', coreFirst: true }],
    ]);
  });

  it('v1.11.0 → v1.12.0 stays in the v1beta2 contract: one candidate contract', () => {
    const { plan } = planEnvironmentUpgrade('prod', kubeadmSet('v1.11.0'), SUPPORTED);
    expect(plan!.contracts.map((c) => [c.contract, c.status, c.steps.map((s) => [s.from, s.to, s.contract])])).toEqual([
      [
        'v1beta2',
        'available',
        [
          ['v1.11.0', 'v1.12.0', 'v1beta2'],
          ['v1.11.0', 'v1.12.0', 'v1beta2'],
          ['v1.11.0', 'v1.12.0', 'v1beta2'],
        ],
      ],
    ]);
    expect(plan!.providers.every((r) => r.sameContract === 'v1.12.0' && r.latestPatch === null)).toBe(true);
  });

  it('from v1.7.7 the skip rule does not apply (clusterctl only guards current versions ≥ 1.10.0)', () => {
    const { plan } = planEnvironmentUpgrade('old', kubeadmSet('v1.7.7'), SUPPORTED);
    const byContract = Object.fromEntries(plan!.contracts.map((c) => [c.contract, c]));
    expect(byContract.v1beta1!.steps.map((s) => s.to)).toEqual(['v1.10.4', 'v1.10.4', 'v1.10.4']);
    expect(byContract.v1beta2!.status).toBe('available');
    expect(byContract.v1beta2!.steps.map((s) => s.to)).toEqual(['v1.12.0', 'v1.12.0', 'v1.12.0']);
    expect(plan!.contracts.flatMap((c) => c.blockers)).toEqual([]);
  });

  it('from v1.10.4 to v1.14.0 is blocked by the skip rule for core and kubeadm, with the version to go to first', () => {
    const set = [
      provider('core', 'v1.10.4', FUTURE_TAGS, FUTURE_METADATA),
      provider('bootstrap', 'v1.10.4', FUTURE_TAGS, FUTURE_METADATA),
      provider('docker', 'v1.10.4', FUTURE_TAGS, FUTURE_METADATA),
    ];
    const { plan } = planEnvironmentUpgrade('dev', set, SUPPORTED);
    const v1beta2 = plan!.contracts.find((c) => c.contract === 'v1beta2')!;
    expect(v1beta2.status).toBe('blocked');
    // The pre-release is never a next version; CAPD is not guarded by the rule.
    expect(v1beta2.steps.map((s) => s.to)).toEqual(['v1.14.0', 'v1.14.0', 'v1.14.0']);
    expect(v1beta2.blockers.map((b) => [b.code, b.provider, b.via])).toEqual([
      ['skip-limit', 'CoreProvider/capi-system/cluster-api', 'v1.13.2'],
      ['skip-limit', 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm', 'v1.13.2'],
    ]);
  });

  it('a different-contract plan that one provider cannot follow is blocked and names it', () => {
    // CAPD whose source ends at v1.10.4: no release for v1beta2 beyond its current one.
    const docker = provider('docker', 'v1.10.4', ['v1.10.4']);
    const { plan } = planEnvironmentUpgrade('dev', kubeadmSet('v1.10.4', [docker]), SUPPORTED);
    const v1beta2 = plan!.contracts.find((c) => c.contract === 'v1beta2')!;
    expect(v1beta2.status).toBe('blocked');
    expect(v1beta2.blockers.map((b) => [b.code, b.provider])).toEqual([
      ['no-version', 'InfrastructureProvider/capd-system/docker'],
    ]);
  });

  it('a contract the build cannot render is blocked as unsupported', () => {
    const { plan } = planEnvironmentUpgrade('old', [provider('core', 'v1.7.7')], ['v1beta2']);
    expect(plan!.contracts.find((c) => c.contract === 'v1beta1')!.blockers.map((b) => b.code)).toEqual([
      'unsupported-contract',
    ]);
  });

  it.each([
    {
      name: 'a newer release outside every series',
      available: [...CAPI_TAGS, 'v1.13.0'],
      version: 'v1.12.0',
      expected: 'metadata-invalid',
    },
    {
      name: 'a current version outside every series',
      available: CAPI_TAGS,
      version: 'v0.2.0',
      expected: 'metadata-invalid',
    },
  ])('refuses to plan with $name (clusterctl getUpgradeInfo)', ({ available, version, expected }) => {
    const { plan, problems } = planEnvironmentUpgrade('dev', [provider('core', version, available)], SUPPORTED);
    expect(plan).toBeUndefined();
    expect(problems.map((p) => p.code)).toEqual([expected]);
  });

  it('needs exactly one core provider', () => {
    expect(
      planEnvironmentUpgrade('dev', [provider('docker', 'v1.12.0')], SUPPORTED).problems.map((p) => p.code),
    ).toEqual(['upgrade']);
  });
});

describe('selectTargets (clusterctl custom upgrade plan checks)', () => {
  const select = (set: PlanProvider[], request: UpgradeRequest, providers: string[] = []) => {
    const env = { environment: 'dev', providers: set };
    const { plan } = planEnvironmentUpgrade('dev', set, SUPPORTED);
    return selectTargets(env, plan!, { request, providers }, SUPPORTED);
  };
  const moved = (r: ReturnType<typeof select>) => r.targets.map((t) => [t.label, t.from, t.to, t.toContract]);

  it.each<{ name: string; set: PlanProvider[]; request: UpgradeRequest; providers: string[]; expected: unknown[][] }>([
    {
      name: '--to moves every provider whose source has it',
      set: kubeadmSet('v1.11.0'),
      request: { kind: 'to', version: 'v1.12.0' },
      providers: [],
      expected: [
        ['cluster-api', 'v1.11.0', 'v1.12.0', 'v1beta2'],
        ['bootstrap-kubeadm', 'v1.11.0', 'v1.12.0', 'v1beta2'],
        ['control-plane-kubeadm', 'v1.11.0', 'v1.12.0', 'v1beta2'],
      ],
    },
    {
      name: '--to without the v prefix',
      set: kubeadmSet('v1.11.0'),
      request: { kind: 'to', version: '1.12.0' },
      providers: ['cluster-api'],
      expected: [['cluster-api', 'v1.11.0', 'v1.12.0', 'v1beta2']],
    },
    {
      name: '--contract moves the whole set',
      set: kubeadmSet('v1.10.4'),
      request: { kind: 'contract', contract: 'v1beta2' },
      providers: [],
      expected: [
        ['cluster-api', 'v1.10.4', 'v1.12.0', 'v1beta2'],
        ['bootstrap-kubeadm', 'v1.10.4', 'v1.12.0', 'v1beta2'],
        ['control-plane-kubeadm', 'v1.10.4', 'v1.12.0', 'v1beta2'],
      ],
    },
    {
      name: 'the core alone may move to v1beta2 (v1beta1 providers stay compatible)',
      set: kubeadmSet('v1.10.4'),
      request: { kind: 'to', version: 'v1.11.0' },
      providers: ['CoreProvider/cluster-api'],
      expected: [['cluster-api', 'v1.10.4', 'v1.11.0', 'v1beta2']],
    },
    {
      name: '--latest-patch on the newest patch moves nothing',
      set: kubeadmSet('v1.12.0'),
      request: { kind: 'latest-patch' },
      providers: [],
      expected: [],
    },
    {
      name: '--latest-patch within the series',
      set: [provider('core', 'v1.4.2')],
      request: { kind: 'latest-patch' },
      providers: [],
      expected: [['cluster-api', 'v1.4.2', 'v1.4.3', 'v1beta1']],
    },
  ])('$name', ({ set, request, providers, expected }) => {
    const r = select(set, request, providers);
    expect(r.problems).toEqual([]);
    expect(moved(r)).toEqual(expected);
  });

  it.each<{ name: string; set: PlanProvider[]; request: UpgradeRequest; providers: string[]; objects: unknown[] }>([
    {
      name: 'kubeadm to v1beta2 under a v1beta1 core: the core must move first',
      set: kubeadmSet('v1.10.4'),
      request: { kind: 'to', version: 'v1.12.0' },
      providers: ['bootstrap-kubeadm'],
      objects: ['BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'],
    },
    {
      name: 'a downgrade',
      set: kubeadmSet('v1.12.0'),
      request: { kind: 'to', version: 'v1.11.0' },
      providers: ['cluster-api'],
      objects: ['CoreProvider/capi-system/cluster-api'],
    },
    {
      name: 'a release the source does not have',
      set: kubeadmSet('v1.11.0'),
      request: { kind: 'to', version: 'v1.11.9' },
      providers: ['cluster-api'],
      objects: ['CoreProvider/capi-system/cluster-api'],
    },
    {
      name: 'a contract that is no candidate',
      set: kubeadmSet('v1.11.0'),
      request: { kind: 'contract', contract: 'v1beta1' },
      providers: [],
      objects: [undefined],
    },
    {
      name: 'the skip rule, naming the version to go to first',
      set: [
        provider('core', 'v1.10.4', FUTURE_TAGS, FUTURE_METADATA),
        provider('bootstrap', 'v1.10.4', FUTURE_TAGS, FUTURE_METADATA),
      ],
      request: { kind: 'to', version: 'v1.14.0' },
      providers: [],
      objects: ['CoreProvider/capi-system/cluster-api', 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'],
    },
  ])('refuses $name', ({ set, request, providers, objects }) => {
    const r = select(set, request, providers);
    expect(r.targets).toEqual([]);
    expect(r.problems.map((p) => [p.code, p.object])).toEqual(objects.map((o) => ['upgrade', o]));
  });

  it('refuses to leave a provider on a contract the new core does not accept, naming it', () => {
    // A hypothetical v1beta3 core: kubeadm v1.12.0 (v1beta2) is not compatible with it.
    const metadata: ReleaseMetadata = {
      releaseSeries: [...CAPI_METADATA.releaseSeries, { major: 1, minor: 13, contract: 'v1beta3' }],
    };
    const tags = [...CAPI_TAGS, 'v1.13.0'];
    const set = [provider('core', 'v1.12.0', tags, metadata), provider('bootstrap', 'v1.12.0', tags, metadata)];
    const r = select(set, { kind: 'to', version: 'v1.13.0' }, ['cluster-api']);
    // v1beta3 is not rendered at all: that is the first reason.
    expect(r.problems.map((p) => [p.code, p.object])).toEqual([['upgrade', 'CoreProvider/capi-system/cluster-api']]);
    const allowAll = selectTargets(
      { environment: 'dev', providers: set },
      planEnvironmentUpgrade('dev', set, ['v1beta3', 'v1beta2']).plan!,
      { request: { kind: 'to', version: 'v1.13.0' }, providers: ['cluster-api'] },
      ['v1beta3', 'v1beta2'],
    );
    expect(allowAll.problems.map((p) => [p.code, p.object])).toEqual([
      ['upgrade', 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm'],
    ]);
  });
});

describe('planCertManager: cert-manager in the plan (no contract)', () => {
  /** The cert-manager releases the fixtures hold. */
  const TAGS = readdirSync(`${FIXTURES}repository/cert-manager`);
  const cases: {
    name: string;
    version: string;
    available: readonly string[];
    latestPatch: string | null;
    newest: string | null;
  }[] = [
    {
      name: 'the newest fixture release: nothing newer',
      version: 'v1.19.4',
      available: TAGS,
      latestPatch: null,
      newest: null,
    },
    {
      name: 'an older minor: the newest release, no patch of its own',
      version: 'v1.16.1',
      available: TAGS,
      latestPatch: null,
      newest: 'v1.19.4',
    },
    {
      name: 'a newer patch and minor; pre-releases never',
      version: 'v1.16.1',
      available: [...TAGS, 'v1.16.3', 'v1.16.4-alpha.0', 'v1.20.0-rc.1'],
      latestPatch: 'v1.16.3',
      newest: 'v1.19.4',
    },
  ];
  it.each(cases)('$name', ({ version, available, latestPatch, newest }) => {
    const row = planCertManager({
      version,
      requested: version,
      clusterctlDefault: 'v1.21.1',
      available,
      listing: { kind: 'live' },
    });
    expect([row.latestPatch, row.newest, row.versions.source]).toEqual([latestPatch, newest, 'live']);
  });

  it('is the first row of the plan table, with a note on how it moves', () => {
    const { plan } = planEnvironmentUpgrade('prod', kubeadmSet('v1.11.0'), SUPPORTED);
    const certManager = planCertManager({
      version: 'v1.16.1',
      requested: 'v1.16.1',
      clusterctlDefault: 'v1.21.1',
      available: TAGS,
      listing: { kind: 'live' },
    });
    const text = formatPlanText([{ ...plan!, certManager }]);
    const lines = text.split('\n');
    expect(lines[3]).toMatch(/^cert-manager +cert-manager +v1\.16\.1 +- +- +- +v1\.19\.4$/);
    expect(lines[4]).toMatch(/^cluster-api /);
    expect(text).toContain(
      "note: cert-manager v1.16.1 (certManager.version v1.16.1; clusterctl's default is v1.21.1) has no contract: move it by setting certManager.version in capi-render.yaml or an overlay, then capi-render build",
    );
    expect(planDocument([{ ...plan!, certManager }]).environments[0]!.certManager).toEqual(certManager);
  });
});
