/**
 * One row per upstream change capi-render tracks (clusterctl v1.11–v1.14, cluster-api-operator v0.25–v0.28):
 * where it comes from, which baseline shows it (`emulate: clusterctl-v1.14` and/or
 * `operator-v0.28`), what capi-render does, and a check of that behaviour on the real fixtures.
 * Rows capi-render does not reproduce check that docs/fidelity.md lists them with their source.
 * The end-to-end half (a build under each baseline) is test/integration/baseline.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { BaselineId, JsonValue, KubeObject, ProviderCR, ProviderKind } from 'capi-render';
import { BASELINE_IDS, baselineOf } from '../../src/baseline/baseline.js';
import { parseConfig } from '../../src/config/load-config.js';
import { builtinProvidersOf } from '../../src/source/github/builtin-providers.js';
import { createDefaultCatalog } from '../../src/source/catalog.js';
import { applyImageOverrides, imageNameProblems } from '../../src/process/image-overrides.js';
import { inventoryCrd } from '../../src/process/inventory.js';
import { lockEmulates, parseLock, serializeLock } from '../../src/lock/lock-file.js';
import { emptyLock } from '../../src/lock/lock-types.js';
import { removedVersionSteps } from '../../src/diff/findings/crd-migration-steps.js';
import { findCrdFindings } from '../../src/diff/findings/crd-findings.js';
import { checkContracts } from '../../src/resolve/contracts.js';
import { compatibleContracts, parseMetadata } from '../../src/source/metadata.js';
import { exceedsSkipLimit } from '../../src/upgrade/upgrade-info.js';
import { applySpecPatches } from '../../src/customize/patches/index.js';
import { customizeDeployments } from '../../src/customize/customize-deployments.js';
import { getIn } from '../../src/manifest/object.js';
import {
  CERT_MANAGER,
  CORE_COMPONENTS,
  REPO_ROOT,
  deepFreeze,
  findObject,
  fixtureObjects,
  fixtureText,
} from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';

const core = deepFreeze(fixtureObjects(CORE_COMPONENTS));
const certManager = deepFreeze(fixtureObjects(CERT_MANAGER));
const CORE_METADATA = fixtureText('repository/cluster-api/v1.12.0/metadata.yaml');
const FIDELITY = readFileSync(path.join(REPO_ROOT, 'docs/fidelity.md'), 'utf8');
const CONTAINERS = ['spec', 'template', 'spec', 'containers'];
const capi = findObject(core, 'Deployment', 'capi-controller-manager');

const cr = (kind: ProviderKind, name: string, spec: ProviderCR['spec'] = {}): ProviderCR => ({
  kind,
  name,
  namespace: `${name}-system`,
  spec,
  file: 'providers/p.yaml',
  line: 1,
});
const at = { file: 'providers/p.yaml', line: 1, col: 1 };
const messages = (e: SpecError) => e.diagnostics.map((d) => d.message).join('\n');
const managerArgs = (objects: KubeObject[]) =>
  (
    getIn(findObject(objects, 'Deployment', 'capi-controller-manager'), CONTAINERS) as {
      name: string;
      args: string[];
    }[]
  ).find((c) => c.name === 'manager')!.args;
const imagesOf = (objects: readonly KubeObject[], kind: string, name: string) =>
  (getIn(findObject(objects, kind, name), CONTAINERS) as { image: string }[]).map((c) => c.image);

interface Row {
  item: string;
  upstream: string;
  /** Where the behaviour shows: both baselines, or the one it belongs to. */
  baselines: readonly BaselineId[];
  capiRender: string;
  check: () => void;
}

const BOTH = BASELINE_IDS;

const rows: Row[] = [
  {
    item: 'the baseline setting: emulate, default the newest clusterctl, a wrong value answered with the closest one',
    upstream: 'cluster-api-operator go.mod (sigs.k8s.io/cluster-api v1.12.10); cluster-api v1.14.0',
    baselines: BOTH,
    capiRender: 'capi-render.yaml emulate: clusterctl-v1.14 (default) | operator-v0.28',
    check: () => {
      expect(
        parseConfig('apiVersion: capi-render/v1alpha1\nkind: Config\n', 'capi-render.yaml').emulate,
      ).toBeUndefined();
      expect(baselineOf(undefined).id).toBe('clusterctl-v1.14');
      expect(
        parseConfig('apiVersion: capi-render/v1alpha1\nkind: Config\nemulate: operator-v0.28\n', 'capi-render.yaml')
          .emulate,
      ).toBe('operator-v0.28');
      const e = thrownBy(SpecError, () =>
        parseConfig('apiVersion: capi-render/v1alpha1\nkind: Config\nemulate: operator-v0.27\n', 'capi-render.yaml'),
      );
      expect(e.diagnostics).toHaveLength(1);
      expect(e.diagnostics[0]).toMatchObject({ file: 'capi-render.yaml', line: 3, field: 'emulate' });
      expect(e.diagnostics[0]!.message).toBe(
        'emulate must be one of "clusterctl-v1.14", "operator-v0.28"; did you mean "operator-v0.28"?',
      );
    },
  },
  {
    item: "the built-in provider list: clusterctl v1.14.0's 64 entries, v1.12.10's 61 (no cloudscale-ch-cloudscale, oxide, kubeswift-io)",
    upstream:
      'cmd/clusterctl/client/config/providers_client.go defaults() at v1.14.0 and v1.12.10 (#13544, #13920, #13946)',
    baselines: BOTH,
    capiRender: 'builtin-providers.json / builtin-providers-v1.12.10.json; the catalog of a build uses the baseline’s',
    check: () => {
      const v14 = builtinProvidersOf(baselineOf('clusterctl-v1.14').clusterctl);
      const v12 = builtinProvidersOf(baselineOf('operator-v0.28').clusterctl);
      expect([v14.length, v12.length]).toEqual([64, 61]);
      const key = (p: { type: string; name: string; url: string }) => `${p.type}/${p.name} ${p.url}`;
      const older = new Set(v12.map(key));
      expect(v14.filter((p) => !older.has(key(p))).map((p) => p.name)).toEqual([
        'cloudscale-ch-cloudscale',
        'oxide',
        'kubeswift-io',
      ]);
      // Otherwise the same entries in the same order.
      expect(v14.filter((p) => older.has(key(p))).map(key)).toEqual(v12.map(key));
      const oxide = cr('InfrastructureProvider', 'oxide');
      const catalog = (emulate: BaselineId) => createDefaultCatalog({ config: { emulate, github: {}, providers: [] } });
      expect([
        catalog('clusterctl-v1.14').isPredefined!(oxide),
        catalog('operator-v0.28').isPredefined!(oxide),
      ]).toEqual([true, false]);
    },
  },
  {
    item: "cert-manager's default version",
    upstream:
      'cmd/clusterctl/client/config/cert_manager_client.go CertManagerDefaultVersion (v1.21.1 at v1.14.0, v1.20.3 at v1.12.10)',
    baselines: BOTH,
    capiRender: 'certManager.version unset renders the baseline’s default (build: test/integration/baseline.test.ts)',
    check: () => {
      expect([
        baselineOf('clusterctl-v1.14').certManagerDefaultVersion,
        baselineOf('operator-v0.28').certManagerDefaultVersion,
      ]).toEqual(['v1.21.1', 'v1.20.3']);
    },
  },
  {
    item: "the inventory CRD as the emulated clusterctl's copy",
    upstream:
      'cmd/clusterctl/config/manifest/clusterctl-api.yaml (controller-gen v0.21.0 at v1.14.0, v0.19.0 at v1.12.10; nothing else differs)',
    baselines: BOTH,
    capiRender: 'rendered with the baseline’s controller-gen annotation',
    check: () => {
      const annotation = (o: KubeObject) =>
        (o.metadata as { annotations: Record<string, string> }).annotations['controller-gen.kubebuilder.io/version'];
      expect(annotation(inventoryCrd())).toBe('v0.21.0');
      expect(annotation(inventoryCrd(baselineOf('operator-v0.28').inventoryCrdGenerator))).toBe('v0.19.0');
      expect(inventoryCrd(baselineOf('clusterctl-v1.14').inventoryCrdGenerator)).toEqual(inventoryCrd());
    },
  },
  {
    item: "the lock's emulates: records the baseline",
    upstream: 'capi-render.lock',
    baselines: BOTH,
    capiRender: 'emulates: {clusterctl, operator (operator baseline only), contract, operatorApi}',
    check: () => {
      const operator = serializeLock({ ...emptyLock(), emulates: lockEmulates(baselineOf('operator-v0.28')) });
      expect(operator).toContain(
        'emulates:\n  contract: v1beta2\n  clusterctl: v1.12.10\n  operator: v0.28.0\n  operatorApi: operator.cluster.x-k8s.io/v1alpha2\n',
      );
      expect(parseLock(operator).emulates).toEqual({
        clusterctl: 'v1.12.10',
        operator: 'v0.28.0',
        contract: 'v1beta2',
        operatorApi: 'operator.cluster.x-k8s.io/v1alpha2',
      });
      // A lock without the record is written as the default baseline's, as every lock before emulate: was.
      expect(serializeLock(emptyLock())).toContain(
        'emulates:\n  contract: v1beta2\n  clusterctl: v1.14.0\n  operatorApi: operator.cluster.x-k8s.io/v1alpha2\n',
      );
    },
  },
  {
    item: 'images.<x>.name renames an image',
    upstream: 'cluster-api #13014 (v1.13), cmd/clusterctl/client/config/imagemeta_client.go',
    baselines: ['clusterctl-v1.14'],
    capiRender:
      'clusterctl-v1.14: renamed; operator-v0.28: an error (its clusterctl v1.12.10 drops the field, so the operator would pull the old name)',
    check: () => {
      const overrides = {
        all: { repository: 'myorg.io/local-repo' },
        'cluster-api': { name: 'mirrored-cluster-api-controller' },
      };
      const renamed = applyImageOverrides(core, 'cluster-api', overrides, 'strict');
      expect(imagesOf(renamed, 'Deployment', 'capi-controller-manager')).toEqual([
        'myorg.io/local-repo/mirrored-cluster-api-controller:v1.12.0',
      ]);
      expect(imageNameProblems(overrides, { file: 'capi-render.yaml' }, baselineOf('operator-v0.28').title)).toEqual([
        expect.objectContaining({
          code: 'image',
          file: 'capi-render.yaml',
          field: 'images.cluster-api.name',
          message: expect.stringContaining('cluster-api-operator v0.28.0 (clusterctl v1.12.10) does not do'),
        }),
      ]);
      expect(
        imageNameProblems(
          { all: { repository: 'myorg.io/local-repo', tag: 'v1' } },
          { file: 'capi-render.yaml' },
          baselineOf('operator-v0.28').title,
        ),
      ).toEqual([]);
    },
  },
  {
    item: 'provider CRD storage migration removed from clusterctl upgrade',
    upstream:
      'cluster-api #13290 (v1.13), cmd/clusterctl/client/cluster/upgrader.go; opt-in and deprecated since v1.10 (#11889); operator v0.28 internal/controller/phase_lifecycle.go ApplyCustomPlan(UpgradeOptions{})',
    baselines: BOTH,
    capiRender:
      'no peer migrates provider CRs on upgrade, and neither does a GitOps sync: the upgrade report gives the manual steps',
    check: () => {
      const steps = removedVersionSteps({
        crd: 'machines.cluster.x-k8s.io',
        versions: ['v1alpha4'],
        keep: 'v1beta1',
        next: 'v1beta2',
      });
      expect(steps.join('\n')).toContain('dropped it in v1.13 (cluster-api #13290); Argo CD and Flux never do');
      expect(steps[0]).toContain("kubectl get crd machines.cluster.x-k8s.io -o jsonpath='{.status.storedVersions}'");
    },
  },
  {
    item: 'v1alpha3 and v1alpha4 types removed',
    upstream: 'cluster-api #13199 (v1.13)',
    baselines: BOTH,
    capiRender:
      'a provider of the v1alpha3/v1alpha4 contract is refused (both peers accept only v1beta1 and v1beta2), in the emulated peer’s words; the upgrade report flags the versions v1.13 drops from the core CRDs',
    check: () => {
      // v1.12.0's Machine CRD still lists v1alpha3 and v1alpha4 (unserved); v1.13 removes them from spec.versions.
      const machines = findObject(core, 'CustomResourceDefinition', 'machines.cluster.x-k8s.io');
      const versions = getIn(machines, ['spec', 'versions']) as { name: string }[];
      expect(versions.map((v) => v.name)).toEqual(['v1alpha3', 'v1alpha4', 'v1beta1', 'v1beta2']);
      const v113 = {
        ...machines,
        spec: { ...(machines.spec as object), versions: versions.filter((v) => v.name.startsWith('v1beta')) },
      } as KubeObject;
      const removed = findCrdFindings({
        env: 'prod',
        component: 'cluster-api',
        id: 'machines',
        before: machines,
        after: v113,
      }).find((f) => f.code === 'crd-version-removed');
      expect([removed?.severity, removed?.subjects]).toEqual(['danger', ['v1alpha3', 'v1alpha4']]);
      const pair = [
        { cr: cr('CoreProvider', 'cluster-api'), contract: 'v1beta2', version: 'v1.12.0', at },
        { cr: cr('InfrastructureProvider', 'legacy'), contract: 'v1alpha4', version: 'v0.4.0', at },
      ];
      // Refused under both baselines, each in its peer's words.
      const [clusterctl, operator] = BOTH.map((id) => checkContracts(pair, baselineOf(id)));
      expect([clusterctl!.map((d) => d.code), operator!.map((d) => d.code)]).toEqual([['contract'], ['contract']]);
      expect(clusterctl![0]!.message).toContain(
        'clusterctl: "current version of clusterctl is only compatible with providers implementing the v1beta2, v1beta1 contract versions, detected contract version v1alpha4 for provider infrastructure-legacy"',
      );
      expect(operator![0]!.message).toContain(
        'cluster-api-operator: "CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider legacy."',
      );
    },
  },
  {
    item: 'cert-manager.externallyProvisioned',
    upstream: 'cluster-api #13739 (v1.14), cmd/clusterctl/client/config/cert_manager_client.go',
    baselines: ['clusterctl-v1.14'],
    capiRender:
      'certManager.externallyProvisioned: true renders no cert-manager (as install: false); an error under operator-v0.28 (build: test/integration/baseline.test.ts)',
    check: () => {
      expect([
        baselineOf('clusterctl-v1.14').certManagerExternallyProvisioned,
        baselineOf('operator-v0.28').certManagerExternallyProvisioned,
      ]).toEqual([true, false]);
      expect(
        parseConfig(
          'apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  externallyProvisioned: true\n',
          'capi-render.yaml',
        ).certManager,
      ).toEqual({ externallyProvisioned: true });
    },
  },
  {
    item: 'cert-manager re-installed when only its images change',
    upstream:
      'cluster-api #13850 (v1.14), cmd/clusterctl/client/cluster/cert_manager.go shouldUpgrade / certManagerImagesDiffer',
    baselines: ['clusterctl-v1.14'],
    capiRender:
      'the rendered cert-manager always carries the images its overrides give, at any version, so a sync applies them (also under operator-v0.28; listed in docs/fidelity.md)',
    check: () => {
      const before = imagesOf(certManager, 'Deployment', 'cert-manager');
      const after = imagesOf(
        applyImageOverrides(
          certManager,
          'cert-manager',
          { 'cert-manager': { repository: 'registry.internal/jetstack' } },
          'strict',
        ),
        'Deployment',
        'cert-manager',
      );
      expect(before).toEqual(['quay.io/jetstack/cert-manager-controller:v1.19.4']);
      expect(after).toEqual(['registry.internal/jetstack/cert-manager-controller:v1.19.4']);
      expect(FIDELITY).toContain('#13850');
    },
  },
  {
    item: 'management-cluster client QPS and Burst raised',
    upstream: 'cluster-api #13875 (v1.14), cmd/clusterctl/client/cluster/proxy.go (QPS 20/Burst 100 → 500/1000)',
    baselines: ['clusterctl-v1.14'],
    capiRender:
      'not applicable: rendering talks to no management cluster (check --live and import read a dump); documented',
    check: () => expect(FIDELITY).toContain('#13875'),
  },
  {
    item: 'experimental clusterctl convert',
    upstream: 'cluster-api #12843 (v1.14), cmd/clusterctl/cmd/convert.go',
    baselines: ['clusterctl-v1.14'],
    capiRender: 'out of scope: it converts Cluster objects, which capi-render does not render; documented',
    check: () => expect(FIDELITY).toContain('#12843'),
  },
  {
    item: 'metadata.yaml validated: apiVersion, kind Metadata, at least one release series',
    upstream: 'cluster-api #12242 (v1.11), cmd/clusterctl/client/repository/metadata_client.go validateMetadata',
    baselines: BOTH,
    capiRender: 'the same three rules, each an error naming the file',
    check: () => {
      expect(parseMetadata(CORE_METADATA, 'cluster-api v1.12.0/metadata.yaml').releaseSeries.length).toBeGreaterThan(0);
      const bad = (text: string) =>
        messages(thrownBy(SpecError, () => parseMetadata(text, 'cluster-api v1.12.0/metadata.yaml')));
      expect(
        bad(
          CORE_METADATA.replace(
            'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3',
            'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha2',
          ),
        ),
      ).toContain('apiVersion');
      expect(bad(CORE_METADATA.replace('kind: Metadata', 'kind: Other'))).toContain('kind "Other"');
      expect(bad(CORE_METADATA.replace(/releaseSeries:[\s\S]*$/, 'releaseSeries: []\n'))).toMatch(/releaseSeries/);
    },
  },
  {
    item: 'metadata.yaml with an empty kind accepted again',
    upstream: 'cluster-api #12714 (v1.11.1), metadata_client.go validateMetadata',
    baselines: BOTH,
    capiRender: 'kind absent or empty is accepted',
    check: () => {
      expect(parseMetadata(CORE_METADATA.replace('kind: Metadata\n', ''), 'm').releaseSeries).toEqual(
        parseMetadata(CORE_METADATA, 'm').releaseSeries,
      );
      expect(parseMetadata(CORE_METADATA.replace('kind: Metadata', 'kind: ""'), 'm').releaseSeries).toEqual(
        parseMetadata(CORE_METADATA, 'm').releaseSeries,
      );
    },
  },
  {
    item: 'a v1beta2 core accepts v1beta1 providers',
    upstream: 'cluster-api #12018 (v1.11), cmd/clusterctl/api/v1alpha3/metadata_type.go GetCompatibleVersions',
    baselines: BOTH,
    capiRender: 'the same compatible set at build time (resolve/contracts.ts) and in plan/upgrade',
    check: () => {
      expect(compatibleContracts('v1beta2')).toEqual(['v1beta2', 'v1beta1']);
      const pair = (coreContract: string, infraContract: string) =>
        checkContracts([
          { cr: cr('CoreProvider', 'cluster-api'), contract: coreContract, version: 'v1.12.0', at },
          { cr: cr('InfrastructureProvider', 'docker'), contract: infraContract, version: 'v1.12.0', at },
        ]).map((d) => d.message);
      expect(pair('v1beta2', 'v1beta1')).toEqual([]);
      expect(pair('v1beta1', 'v1beta2')[0]).toContain(
        'while the core provider is compatible with v1beta1 contract versions',
      );
    },
  },
  {
    item: 'the v1beta1 contract on track to be dropped in v1.16',
    upstream:
      'cluster-api docs/book/src/developer/providers/migrations/v1.13-to-v1.14.md, docs/book/src/reference/versions.md',
    baselines: BOTH,
    capiRender: 'still accepted, as by both peers today; no warning (it would repeat on every build), documented',
    check: () => {
      expect(compatibleContracts('v1beta2')).toContain('v1beta1');
      expect(FIDELITY).toContain('v1beta1 contract is on track to be dropped in Cluster API v1.16');
    },
  },
  {
    item: 'core and kubeadm upgrades may not skip more than 3 minors',
    upstream: 'cluster-api #12017 (v1.11), cmd/clusterctl/client/cluster/upgrader.go',
    baselines: BOTH,
    capiRender: 'plan and upgrade apply the same rule (from 1.10.0 on, core and kubeadm only)',
    check: () => {
      const v = (s: string) => new semver.SemVer(s);
      const core = { kind: 'CoreProvider' as const, name: 'cluster-api' };
      expect(exceedsSkipLimit(core, v('1.10.0'), v('1.13.5'))).toBe(false);
      expect(exceedsSkipLimit(core, v('1.10.0'), v('1.14.0'))).toBe(true);
      expect(exceedsSkipLimit({ kind: 'ControlPlaneProvider', name: 'kubeadm' }, v('1.10.4'), v('1.14.0'))).toBe(true);
      expect(exceedsSkipLimit(core, v('1.9.0'), v('1.14.0'))).toBe(false);
      expect(exceedsSkipLimit({ kind: 'InfrastructureProvider', name: 'docker' }, v('1.10.0'), v('1.14.0'))).toBe(
        false,
      );
    },
  },
  {
    item: 'operator spec.patches: RFC 7396 objects and RFC 6902 lists with targets, exclusive with manifestPatches',
    upstream: 'cluster-api-operator #937 (v0.25), api/v1alpha2/provider_types.go Patches, internal/patch',
    baselines: BOTH,
    capiRender: 'applied as the operator applies them; both fields at once is an error with the operator’s wording',
    check: () => {
      const target = { group: 'apps', version: 'v1', kind: 'Deployment', name: 'capi-controller-manager' };
      const out = applySpecPatches(
        core,
        {
          patches: [
            { patch: 'spec:\n  replicas: 2\n', target },
            { patch: '- op: add\n  path: /metadata/labels/tier\n  value: control\n', target },
          ],
        },
        { providerRef: 'CoreProvider/capi-system/cluster-api' },
      );
      const patched = findObject(out, 'Deployment', 'capi-controller-manager');
      expect([getIn(patched, ['spec', 'replicas']), getIn(patched, ['metadata', 'labels', 'tier'])]).toEqual([
        2,
        'control',
      ]);
      const both = thrownBy(SpecError, () =>
        applySpecPatches(
          core,
          { patches: [], manifestPatches: [] },
          { providerRef: 'CoreProvider/capi-system/cluster-api' },
        ),
      );
      expect(messages(both)).toContain("cannot use both 'patches' and 'manifestPatches'; please choose one");
    },
  },
  {
    item: 'operator deployment.tolerations as a pointer: an explicit empty list clears them',
    upstream: 'cluster-api-operator #1034 (v0.28), internal/controller/component_customizer.go customizeDeploymentSpec',
    baselines: BOTH,
    capiRender: 'tolerations: [] removes the manifest’s tolerations; absent keeps them',
    check: () => {
      const pod = (objects: KubeObject[]) =>
        getIn(findObject(objects, 'Deployment', 'capi-controller-manager'), ['spec', 'template', 'spec']) as Record<
          string,
          JsonValue
        >;
      expect(pod([capi]).tolerations).toHaveLength(2);
      expect(
        pod(
          customizeDeployments([capi], {
            providerRef: 'CoreProvider/capi-system/cluster-api',
            deployment: { replicas: 1 },
          }),
        ).tolerations,
      ).toHaveLength(2);
      expect(
        pod(
          customizeDeployments([capi], {
            providerRef: 'CoreProvider/capi-system/cluster-api',
            deployment: { tolerations: [] },
          }),
        ).tolerations,
      ).toBeUndefined();
    },
  },
  {
    item: "operator manager.featureGates added to the provider's own gates",
    upstream: 'cluster-api-operator #987 (v0.26), component_customizer.go parseFeatureGates',
    baselines: BOTH,
    capiRender: 'merged with the manifest’s --feature-gates (the spec wins), sorted',
    check: () => {
      const args = managerArgs(
        customizeDeployments([capi], {
          providerRef: 'CoreProvider/capi-system/cluster-api',
          manager: { featureGates: { ClusterTopology: true, NewGate: true } },
        }),
      );
      expect(args.find((a) => a.startsWith('--feature-gates='))).toBe(
        '--feature-gates=ClusterTopology=true,InPlaceUpdates=false,MachinePool=true,MachineSetPreflightChecks=true,MachineTaintPropagation=false,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,NewGate=true,PriorityQueue=false,ReconcilerRateLimiting=false,RuntimeSDK=false',
      );
    },
  },
  {
    item: 'operator manager.additionalArgs: added, never overriding an argument',
    upstream:
      'cluster-api-operator #782 (v0.19), api/v1alpha2/provider_types.go AdditionalArgs, component_customizer.go ("arg %q already exists")',
    baselines: BOTH,
    capiRender: 'appended in key order; a key the container already has is an error',
    check: () => {
      const args = managerArgs(
        customizeDeployments([capi], {
          providerRef: 'CoreProvider/capi-system/cluster-api',
          manager: { additionalArgs: { '--zeta': '1', '--alpha': '2' } },
        }),
      );
      expect(args.slice(-2)).toEqual(['--alpha=2', '--zeta=1']);
      const e = thrownBy(SpecError, () =>
        customizeDeployments([capi], {
          providerRef: 'CoreProvider/capi-system/cluster-api',
          manager: { additionalArgs: { '--diagnostics-address': ':9443' } },
        }),
      );
      expect(messages(e)).toContain('already exists');
    },
  },
  {
    item: 'provider manifests as OCI artifacts and the oci:// provider URL (proposal, not merged)',
    upstream: 'cluster-api #13729, PR #14033 docs/proposals/20260804-provider-manifests-as-oci-artifacts.md',
    baselines: BOTH,
    capiRender:
      'oci:// in fetchConfig.url and providers:, both artifact layouts read, mirror --oci-layout cluster-api (test/integration/oci-capi-layout.test.ts)',
    check: () => {
      const url = 'oci://registry.k8s.io/cluster-api/manifests/core-cluster-api';
      const source = createDefaultCatalog().remoteSource!(
        cr('CoreProvider', 'cluster-api', { version: 'v1.12.0', fetchConfig: { url } }),
        { configSecret: () => ({}) },
      )!;
      expect(source.source.id).toBe('oci:registry.k8s.io/cluster-api/manifests/core-cluster-api#core-cluster-api');
      expect(source.componentsFile).toBe('core-components.yaml');
      const bad = thrownBy(SpecError, () =>
        createDefaultCatalog().remoteSource!(
          cr('CoreProvider', 'cluster-api', { fetchConfig: { url: `${url}@sha256:abc` } }),
          { configSecret: () => ({}) },
        ),
      );
      expect(messages(bad)).toContain('is not a sha256 or sha512 digest');
      expect(FIDELITY).toContain('#14033');
    },
  },
];

describe('upstream changes of clusterctl v1.11–v1.14 and cluster-api-operator v0.25–v0.28, per baseline', () => {
  it.each(rows.map((r) => [r.item, r]))('%s', (_item, row) => {
    expect(row.upstream).not.toBe('');
    expect(row.baselines.length).toBeGreaterThan(0);
    row.check();
  });

  it('docs/fidelity.md names the upstream source of each difference between the baselines', () => {
    for (const source of [
      '#13014',
      '#13739',
      '#13850',
      '#13290',
      'builtin-providers-v1.12.10.json',
      'CertManagerDefaultVersion',
      'clusterctl-api.yaml',
    ])
      expect(FIDELITY).toContain(source);
  });
});
