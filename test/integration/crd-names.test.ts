/**
 * clusterctl's CRD-name rule on build: a provider's CRDs must be named `<plural>.<group>` (flect's
 * plural of the lower-cased kind) unless annotated with
 * clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check. A provider `infrastructure-widget`
 * served from a local repository inside the test repository carries the CRDs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const SKIP = 'clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check';
const META =
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n';
const NAMESPACE = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: widget-system\n';

interface Crd {
  name: string;
  kind: string;
  group?: string;
  apiVersion?: string;
  skip?: boolean;
}

function crdYaml({
  name,
  kind,
  group = 'infrastructure.cluster.x-k8s.io',
  apiVersion = 'apiextensions.k8s.io/v1',
  skip,
}: Crd): string {
  const annotations = skip ? `  annotations:\n    ${SKIP}: ""\n` : '';
  return (
    `apiVersion: ${apiVersion}\nkind: CustomResourceDefinition\nmetadata:\n  name: ${name}\n${annotations}spec:\n  group: ${group}\n` +
    `  names:\n    kind: ${kind}\n    listKind: ${kind}List\n    plural: ${name.split('.')[0]}\n    singular: ${kind.toLowerCase()}\n  scope: Namespaced\n` +
    '  versions:\n  - name: v1beta1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n'
  );
}

const WIDGET = (extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: widget\n  namespace: widget-system\nspec:\n  version: v1.0.0\n${extra}`;

function repoWith(crds: readonly Crd[], providerExtra = ''): string {
  return makeRepo({
    'capi-render.yaml': configYaml('  - path: artifacts\n'),
    'providers/core.yaml': CORE(),
    'providers/widget.yaml': WIDGET(providerExtra),
    'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml': [NAMESPACE, ...crds.map(crdYaml)].join(
      '---\n',
    ),
    'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
  });
}

const build = (repo: string) => runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => /error\[[a-z-]+\]/.test(l));
const invalid = (name: string, expected: string) =>
  `clusterctl: "CRD name "${name}" is invalid for a CRD referenced in a core Cluster API CRD,it should be "${expected}""`;

describe("clusterctl's CRD-name check on build", () => {
  it.each([
    {
      name: 'a CRD named <plural>.<group>',
      crds: [{ name: 'widgetclusters.infrastructure.cluster.x-k8s.io', kind: 'WidgetCluster' }],
      errors: [],
    },
    {
      name: "flect's -y → -ies",
      crds: [{ name: 'widgetclusteridentities.infrastructure.cluster.x-k8s.io', kind: 'WidgetClusterIdentity' }],
      errors: [],
    },
    {
      name: "flect's -ss → -sses (ClusterClass)",
      crds: [{ name: 'clusterclasses.widget.example.com', kind: 'ClusterClass', group: 'widget.example.com' }],
      errors: [],
    },
    {
      name: 'an apiextensions v1beta1 CRD',
      crds: [
        {
          name: 'widgets.widget.example.com',
          kind: 'Widget',
          group: 'widget.example.com',
          apiVersion: 'apiextensions.k8s.io/v1beta1',
        },
      ],
      errors: [],
    },
    {
      name: 'a singular name',
      crds: [{ name: 'clusterclass.widget.example.com', kind: 'ClusterClass', group: 'widget.example.com' }],
      errors: [invalid('clusterclass.widget.example.com', 'clusterclasses.widget.example.com')],
    },
    {
      name: "a plural flect does not make (metal3datas: flect keeps 'data')",
      crds: [{ name: 'metal3datas.infrastructure.cluster.x-k8s.io', kind: 'Metal3Data' }],
      errors: [invalid('metal3datas.infrastructure.cluster.x-k8s.io', 'metal3data.infrastructure.cluster.x-k8s.io')],
    },
    {
      name: 'an invalid name with the skip annotation',
      crds: [{ name: 'metal3datas.infrastructure.cluster.x-k8s.io', kind: 'Metal3Data', skip: true }],
      errors: [],
    },
    {
      name: 'several CRDs: every invalid one is reported, in order',
      crds: [
        { name: 'widgetmachine.infrastructure.cluster.x-k8s.io', kind: 'WidgetMachine' },
        { name: 'widgetclusters.infrastructure.cluster.x-k8s.io', kind: 'WidgetCluster' },
        { name: 'wrongname.infrastructure.cluster.x-k8s.io', kind: 'WidgetMachineTemplate' },
        { name: 'skipped.infrastructure.cluster.x-k8s.io', kind: 'WidgetThing', skip: true },
      ],
      errors: [
        invalid('widgetmachine.infrastructure.cluster.x-k8s.io', 'widgetmachines.infrastructure.cluster.x-k8s.io'),
        invalid('wrongname.infrastructure.cluster.x-k8s.io', 'widgetmachinetemplates.infrastructure.cluster.x-k8s.io'),
      ],
    },
  ])('$name', async ({ crds, errors }) => {
    const repo = repoWith(crds);
    const r = await build(repo);
    if (errors.length === 0) {
      expect(r.code, r.stderr).toBe(0);
      return;
    }
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(errors.length);
    lines.forEach((line, i) => {
      expect(line).toContain(`providers/widget.yaml:1:1: error[crd-name]: ${errors[i]}`);
      expect(line).toContain('InfrastructureProvider/widget-system/widget');
    });
    expect(r.stderr).toContain(`hint: clusterctl init refuses this CRD`);
  });

  it('a spec.patches entry can add the skip annotation, and it is rendered', async () => {
    const patch = `  patches:\n  - target: {kind: CustomResourceDefinition, name: metal3datas.infrastructure.cluster.x-k8s.io}\n    patch: |\n      metadata:\n        annotations:\n          ${SKIP}: ""\n`;
    const repo = repoWith([{ name: 'metal3datas.infrastructure.cluster.x-k8s.io', kind: 'Metal3Data' }], patch);
    const r = await build(repo);
    expect(r.code, r.stderr).toBe(0);
    const rendered = readFileSync(
      path.join(
        repo,
        'rendered/default/infrastructure-widget/customresourcedefinition-metal3datas.infrastructure.cluster.x-k8s.io.yaml',
      ),
      'utf8',
    );
    expect(rendered).toMatch(new RegExp(`${SKIP.replace(/\./g, '\\.')}: (''|"")`));
  });
});
