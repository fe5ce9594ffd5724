import { describe, expect, it } from 'vitest';
import {
  diffRendered,
  formatDiffText,
  formatReportMarkdown,
  type KubeObject,
  type RenderedSide,
  safetyFindings,
} from 'capi-render';
import { deepFreeze } from '../helpers/fixtures.js';

const IMAGE = 'registry.k8s.io/cluster-api/cluster-api-controller';

function deployment(tag: string, gates: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'capi-controller-manager', namespace: 'capi-system' },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'manager', image: `${IMAGE}:${tag}`, args: ['--leader-elect', `--feature-gates=${gates}`] },
          ],
        },
      },
    },
  };
}

function crd(properties: Record<string, unknown>): KubeObject {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', versions: [{ name: 'v1', served: true, storage: true, schema }] },
  } as KubeObject;
}

/** A small upgrade touching each part of the report: a wildcard ClusterRole, a pruned ConfigMap, a CRD schema, an image and a gate. */
const before: RenderedSide = deepFreeze({
  environments: {
    prod: {
      'cluster-api': [
        deployment('v1.11.0', 'MachinePool=true'),
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'old-settings', namespace: 'capi-system' },
          data: { a: '1' },
        },
        crd({ replicas: { type: 'integer' } }),
      ],
    },
  },
});
const after: RenderedSide = deepFreeze({
  environments: {
    prod: {
      'cluster-api': [
        deployment('v1.12.0', 'MachinePool=true,InPlaceUpdates=false'),
        crd({ replicas: { type: 'integer' }, paused: { type: 'boolean' } }),
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'capi-extra' },
          rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }],
        },
      ],
    },
  },
});
const changes = diffRendered(before, after);
const findings = safetyFindings(before, after, {
  contracts: [{ env: 'prod', provider: 'cluster-api', before: 'v1beta1', after: 'v1beta2' }],
});

describe('formatDiffText', () => {
  it('prints findings by severity, then the object changes', () => {
    expect(formatDiffText(changes, findings)).toBe(`Findings: 1 danger, 2 warnings, 2 info
DANGER  prod/cluster-api ClusterRole.rbac.authorization.k8s.io/capi-extra [rbac-permissions-gained]
        ClusterRole capi-extra gains 1 permission cluster-wide
          - dangerous: *.*: get
WARNING prod/cluster-api [contract-changed]
        cluster-api: contract v1beta1 → v1beta2
          - A core implementing v1beta2 still accepts providers implementing v1beta1 (Cluster API: "v1beta1 is temporarily compatible with v1beta2"): those in prod that do not move with it keep working, and each is named in a contract-older-than-core finding.
          - Manifests in git that use Cluster API's v1beta1 API versions (Clusters, MachineDeployments, ClusterClasses, templates) keep working only while v1beta1 is served; plan their move to v1beta2.
WARNING prod/cluster-api ConfigMap/capi-system/old-settings [object-removed]
        ConfigMap/capi-system/old-settings is no longer rendered and will be pruned by Argo CD / Flux
INFO    prod/cluster-api Deployment.apps/capi-system/capi-controller-manager [feature-gates-changed]
        container manager: feature gates changed
          - added InPlaceUpdates=false
INFO    prod/cluster-api Deployment.apps/capi-system/capi-controller-manager [image-changed]
        container manager: ${IMAGE}:v1.11.0 → ${IMAGE}:v1.12.0

Objects: 1 added, 1 removed, 2 changed
prod/cluster-api
  ~ CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com
      ~ spec.versions[name=v1].schema: schema changed (1 field added, 0 removed, 0 changed)
          added spec.paused
  + ClusterRole.rbac.authorization.k8s.io/capi-extra
  - ConfigMap/capi-system/old-settings
  ~ Deployment.apps/capi-system/capi-controller-manager
      ~ spec.template.spec.containers[name=manager].args[--feature-gates]: "--feature-gates=MachinePool=true" → "--feature-gates=MachinePool=true,InPlaceUpdates=false"
      ~ spec.template.spec.containers[name=manager].image: "${IMAGE}:v1.11.0" → "${IMAGE}:v1.12.0"
`);
  });

  it('colours severities and change marks only when asked', () => {
    const lines = formatDiffText(changes, findings, { color: true }).split('\n');
    expect(lines[1]).toBe(
      '\u001b[31mDANGER \u001b[0m prod/cluster-api ClusterRole.rbac.authorization.k8s.io/capi-extra [rbac-permissions-gained]',
    );
    expect(lines).toContain('  \u001b[32m+\u001b[0m ClusterRole.rbac.authorization.k8s.io/capi-extra');
    expect(formatDiffText(changes, findings)).not.toContain('\u001b[');
  });

  it('says so when there is nothing to report', () => {
    expect(formatDiffText([], [])).toBe('No changes.\n');
  });
});

describe('formatReportMarkdown', () => {
  it('writes plain markdown: summary, findings per severity with details, then object changes', () => {
    expect(formatReportMarkdown(changes, findings)).toBe(`## Upgrade safety report

Findings: 1 danger, 2 warnings, 2 info. Objects: 1 added, 1 removed, 2 changed.

### Danger: needs a decision before merging

- **prod/cluster-api** \`ClusterRole.rbac.authorization.k8s.io/capi-extra\`: ClusterRole capi-extra gains 1 permission cluster-wide (\`rbac-permissions-gained\`)
  - dangerous: \\*.\\*: get

### Warnings

- **prod/cluster-api**: cluster-api: contract v1beta1 → v1beta2 (\`contract-changed\`)
  - A core implementing v1beta2 still accepts providers implementing v1beta1 (Cluster API: "v1beta1 is temporarily compatible with v1beta2"): those in prod that do not move with it keep working, and each is named in a contract-older-than-core finding.
  - Manifests in git that use Cluster API's v1beta1 API versions (Clusters, MachineDeployments, ClusterClasses, templates) keep working only while v1beta1 is served; plan their move to v1beta2.
- **prod/cluster-api** \`ConfigMap/capi-system/old-settings\`: ConfigMap/capi-system/old-settings is no longer rendered and will be pruned by Argo CD / Flux (\`object-removed\`)

### Info

- **prod/cluster-api** \`Deployment.apps/capi-system/capi-controller-manager\`: container manager: feature gates changed (\`feature-gates-changed\`)
  - added InPlaceUpdates=false
- **prod/cluster-api** \`Deployment.apps/capi-system/capi-controller-manager\`: container manager: ${IMAGE}:v1.11.0 → ${IMAGE}:v1.12.0 (\`image-changed\`)

### Object changes

#### prod/cluster-api

- changed \`CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com\`
  - changed \`spec.versions[name=v1].schema\`: schema changed (1 field added, 0 removed, 0 changed)
    - added \`spec.paused\`
- added \`ClusterRole.rbac.authorization.k8s.io/capi-extra\`
- removed \`ConfigMap/capi-system/old-settings\`
- changed \`Deployment.apps/capi-system/capi-controller-manager\`
  - changed \`spec.template.spec.containers[name=manager].args[--feature-gates]\`: \`"--feature-gates=MachinePool=true"\` → \`"--feature-gates=MachinePool=true,InPlaceUpdates=false"\`
  - changed \`spec.template.spec.containers[name=manager].image\`: \`"${IMAGE}:v1.11.0"\` → \`"${IMAGE}:v1.12.0"\`
`);
  });

  it('keeps code spans from findings and escapes the rest; values with backticks get a longer fence', () => {
    const text = formatReportMarkdown(
      [
        {
          env: 'prod',
          component: 'c',
          id: 'ConfigMap/n/x',
          change: 'changed',
          fields: [{ path: 'data.script', kind: 'changed', before: 'echo `date`', after: 'echo' }],
        },
      ],
      [
        {
          severity: 'info',
          code: 'object-removed',
          env: 'prod',
          component: 'c',
          object: 'ConfigMap/n/x',
          message: 'run `kubectl get *` for <all>',
          details: ['a_b'],
        },
      ],
    );
    expect(text).toContain('run `kubectl get *` for \\<all\\> (`object-removed`)');
    expect(text).toContain('  - a\\_b');
    expect(text).toContain('`` "echo `date`" `` → `"echo"`');
  });
});
