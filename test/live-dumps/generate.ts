/**
 * Builds the cluster dumps under test/fixtures/live/ from the real release artifacts: each variant's
 * providers are rendered by capi-render from test/fixtures/repository (what clusterctl would apply:
 * same processing, no GitOps annotations), then installed into a model of the API server and its
 * controllers (api-server.ts, controllers.ts, installers.ts) and printed as kubectl prints them
 * (kubectl-output.ts). Deterministic: the same files on every run (test/integration/live-dumps.test.ts
 * checks the committed ones; UPDATE_LIVE_DUMPS=1 rewrites them).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { render } from 'capi-render';
import { FIXTURES } from '../helpers/fixtures.js';
import { fixedClock } from './api-server.js';
import { clusterctlInstall, operatorInstall, type OperatorCr } from './installers.js';
import { listDump, streamDump } from './kubectl-output.js';

type Obj = Record<string, any>;

export interface DumpVariant {
  name: string;
  installer: 'clusterctl' | 'operator';
  version: string;
  certManager?: string;
}

export const VARIANTS: readonly DumpVariant[] = [
  { name: 'clusterctl-v1.11.0', installer: 'clusterctl', version: 'v1.11.0', certManager: 'v1.16.1' },
  { name: 'clusterctl-v1.12.0', installer: 'clusterctl', version: 'v1.12.0', certManager: 'v1.19.4' },
  { name: 'operator-v1.12.0', installer: 'operator', version: 'v1.12.0' },
];

const cr = (kind: string, name: string, namespace: string, spec: Obj): Obj => ({
  apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
  kind,
  metadata: { name, namespace },
  spec,
});

/** The provider CRs of a variant (for the operator variant: as the user declared them). */
function providerCrs(variant: DumpVariant): { cr: Obj; label: string }[] {
  const v = variant.version;
  if (variant.installer === 'clusterctl') {
    return [
      { cr: cr('CoreProvider', 'cluster-api', 'capi-system', { version: v }), label: 'cluster-api' },
      {
        cr: cr('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', { version: v }),
        label: 'bootstrap-kubeadm',
      },
      {
        cr: cr('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', { version: v }),
        label: 'control-plane-kubeadm',
      },
      { cr: cr('InfrastructureProvider', 'docker', 'capd-system', { version: v }), label: 'infrastructure-docker' },
    ];
  }
  // An operator user: no version on the core provider (the operator installs the latest and records
  // it in status), a feature gate through spec.manager, CAPD variables in a configSecret.
  return [
    {
      cr: cr('CoreProvider', 'cluster-api', 'capi-system', { manager: { featureGates: { ClusterTopology: true } } }),
      label: 'cluster-api',
    },
    {
      cr: cr('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', { version: v }),
      label: 'bootstrap-kubeadm',
    },
    {
      cr: cr('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', { version: v }),
      label: 'control-plane-kubeadm',
    },
    {
      cr: cr('InfrastructureProvider', 'docker', 'capd-system', {
        version: v,
        configSecret: { name: 'capd-variables' },
      }),
      label: 'infrastructure-docker',
    },
  ];
}

/** The operator variant's configSecret values (rendered into CAPD's Deployment; booleans are not secret). */
export const OPERATOR_CAPD_VARIABLES = { EXP_MACHINE_POOL: 'false' };

/** Renders what clusterctl (or the operator) would apply for the variant, in install order. */
async function renderedObjects(variant: DumpVariant): Promise<Obj[]> {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'capi-render-live-dump-'));
  try {
    const certManager = variant.certManager ? { version: variant.certManager } : { install: false };
    const config = {
      apiVersion: 'capi-render/v1alpha1',
      kind: 'Config',
      certManager,
      repositories: [{ path: `${FIXTURES}repository` }],
    };
    writeFileSync(path.join(repo, 'capi-render.yaml'), jsYaml.dump(config));
    mkdirSync(path.join(repo, 'providers'));
    providerCrs(variant).forEach(({ cr: c, label }) => {
      const declared = structuredClone(c);
      declared.spec.version ??= variant.version;
      writeFileSync(path.join(repo, 'providers', `${label}.yaml`), jsYaml.dump(declared));
    });
    if (variant.installer === 'operator') {
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'capd-variables', namespace: 'capd-system' },
        stringData: OPERATOR_CAPD_VARIABLES,
      };
      writeFileSync(path.join(repo, 'providers', 'capd-variables.yaml'), jsYaml.dump(secret));
    }
    const result = await render({ repoRoot: repo });
    return result.environments[0]!.environment.components.flatMap((c) =>
      c.objects.map((o) => structuredClone(o) as Obj),
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** The objects a dump of the variant's cluster holds (kubectl's label query: clusterctl's label, plus the operator's CRs and Namespaces). */
export async function liveObjects(variant: DumpVariant): Promise<Obj[]> {
  const rendered = await renderedObjects(variant);
  const clock = fixedClock('2025-06-02T09:00:00Z');
  if (variant.installer === 'clusterctl') return clusterctlInstall(variant.name, rendered, clock);
  const crs: OperatorCr[] = providerCrs(variant).map(({ cr: c, label }) => ({
    declared: c,
    label,
    installedVersion: variant.version,
    contract: 'v1beta2',
  }));
  return operatorInstall(variant.name, rendered, crs, clock);
}

/** File name → text of every dump fixture: `<variant>.list.yaml` and `<variant>.stream.yaml`. */
export async function generateLiveDumps(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const variant of VARIANTS) {
    const objects = await liveObjects(variant);
    out.set(`${variant.name}.list.yaml`, listDump(objects));
    out.set(`${variant.name}.stream.yaml`, streamDump(objects));
  }
  return out;
}
