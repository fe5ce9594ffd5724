/**
 * The plural clusterctl derives for CRD names (gobuffalo/flect v1.0.3 on the lower-cased kind) and
 * the CRD-name check itself. Cases come from flect's own table (flect_test.go), from real provider
 * kinds, and from flect's quirks that clusterctl inherits.
 */
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { checkCrdNames } from '../../src/process/crd-names.js';
import { expectedCrdName, pluralizeWord } from '../../src/process/kind-plural.js';
import type { KubeObject } from 'capi-render';
import { fixtureText } from '../helpers/fixtures.js';

describe('pluralizeWord (flect.Pluralize on a lower-case word)', () => {
  it.each([
    // Regular, and flect's own test table.
    ['machine', 'machines'],
    ['car', 'cars'],
    ['boy', 'boys'],
    ['fleet', 'fleets'],
    ['stack', 'stacks'],
    ['box', 'boxes'],
    ['fox', 'foxes'],
    ['axis', 'axes'],
    ['child', 'children'],
    ['salesperson', 'salespeople'],
    ['mouse', 'mice'],
    ['woman', 'women'],
    ['human', 'humans'],
    ['spokesman', 'spokesmen'],
    ['equipment', 'equipment'],
    ['lan', 'lans'],
    ['ssh', 'sshs'],
    ['eia', 'eias'],
    // Endings real provider kinds have.
    ['clusterclass', 'clusterclasses'],
    ['ipaddress', 'ipaddresses'],
    ['awsclusterroleidentity', 'awsclusterroleidentities'],
    ['helmchartproxy', 'helmchartproxies'],
    ['machinehealthcheck', 'machinehealthchecks'],
    ['kubeadmconfig', 'kubeadmconfigs'],
    ['clusterresourcesetbinding', 'clusterresourcesetbindings'],
    ['extensionconfig', 'extensionconfigs'],
    ['status', 'statuses'],
    ['policy', 'policies'],
    ['gateway', 'gateways'],
    ['matrix', 'matrices'],
    ['analysis', 'analyses'],
    ['index', 'indices'],
    ['quiz', 'quizzes'],
    ['shelf', 'shelves'],
    ['knife', 'knives'],
    ['photo', 'photos'],
    ['hero', 'heroes'],
    ['database', 'databases'],
    // flect's quirks, which clusterctl's check inherits.
    ['metal3data', 'metal3data'],
    ['price', 'price'],
    ['specimen', 'specimen'],
    ['nebula', 'nebulae'],
    ['modula', 'mobulae'],
    ['octopus', 'octupuses'],
    ['repo', 'repoes'],
    ['area', 'area'],
    ['dnsalias', 'dnsalias'],
    ['alias', 'aliases'],
    ['dns', 'dnsDNSes'],
    ['news', 'news'],
    ['series', 'series'],
    ['timeseries', 'timeseries'],
  ])('%s → %s', (word, plural) => {
    expect(pluralizeWord(word)).toBe(plural);
  });

  it('every CRD of the real release fixtures is named as clusterctl expects', () => {
    const files = [
      'repository/cluster-api/v1.12.0/core-components.yaml',
      'repository/bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml',
      'repository/control-plane-kubeadm/v1.12.0/control-plane-components.yaml',
      'repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml',
      'repository/infrastructure-vcd/v1.2.0/infrastructure-components.yaml',
      'repository/infrastructure-harvester/v0.2.8/infrastructure-components.yaml',
      'derived/tanzu-framework/infrastructure-aws/v2.0.2/infrastructure-components.yaml',
      'derived/tanzu-framework/infrastructure-azure/v1.6.3/infrastructure-components.yaml',
      'derived/tanzu-framework/infrastructure-vsphere/v1.5.3/infrastructure-components.yaml',
      'derived/tanzu-framework/ipam-in-cluster/v0.1.0/ipam-components.yaml',
    ];
    let seen = 0;
    for (const file of files) {
      const text = fixtureText(file);
      const objects = (
        jsYaml.loadAll(text.replace(/\$\{[^}]*\}/g, 'x'), undefined, { schema: jsYaml.CORE_SCHEMA }) as KubeObject[]
      ).filter((o) => o?.kind === 'CustomResourceDefinition');
      seen += objects.length;
      expect(checkCrdNames(objects, { providerRef: file, file, line: 1 })).toEqual([]);
    }
    expect(seen).toBeGreaterThan(40);
  });
});

describe('checkCrdNames', () => {
  const crd = (
    name: string,
    kind: string,
    apiVersion = 'apiextensions.k8s.io/v1',
    annotations?: Record<string, string>,
  ): KubeObject => ({
    apiVersion,
    kind: 'CustomResourceDefinition',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { group: 'cluster.x-k8s.io', names: { kind } },
  });
  const ctx = { providerRef: 'CoreProvider/capi-system/cluster-api', file: 'providers/core.yaml', line: 4 };

  it.each([
    { name: 'valid', objects: [crd('clusterclasses.cluster.x-k8s.io', 'ClusterClass')], codes: [] },
    { name: 'invalid', objects: [crd('clusterclass.cluster.x-k8s.io', 'ClusterClass')], codes: ['crd-name'] },
    {
      name: 'invalid but annotated',
      objects: [
        crd('clusterclass.cluster.x-k8s.io', 'ClusterClass', undefined, {
          'clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check': 'true',
        }),
      ],
      codes: [],
    },
    {
      name: 'several',
      objects: [
        crd('a.cluster.x-k8s.io', 'Machine'),
        crd('machines.cluster.x-k8s.io', 'Machine'),
        crd('b.cluster.x-k8s.io', 'Cluster'),
      ],
      codes: ['crd-name', 'crd-name'],
    },
    {
      name: 'an apiextensions version clusterctl cannot read',
      objects: [crd('clusters.cluster.x-k8s.io', 'Cluster', 'apiextensions.k8s.io/v2')],
      codes: ['crd-name'],
    },
    { name: 'not a CRD', objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }], codes: [] },
  ])('$name', ({ objects, codes }) => {
    const problems = checkCrdNames(objects, ctx);
    expect(problems.map((d) => d.code)).toEqual(codes);
    for (const d of problems)
      expect(d).toMatchObject({ file: 'providers/core.yaml', line: 4, col: 1, severity: 'error' });
  });

  it("names the expected CRD name in clusterctl's words", () => {
    const [d] = checkCrdNames([crd('clusterclass.cluster.x-k8s.io', 'ClusterClass')], ctx);
    expect(d!.message).toBe(
      'clusterctl: "CRD name "clusterclass.cluster.x-k8s.io" is invalid for a CRD referenced in a core Cluster API CRD,it should be "clusterclasses.cluster.x-k8s.io""; CoreProvider/capi-system/cluster-api: kind ClusterClass of group cluster.x-k8s.io',
    );
    expect(d!.object).toBe('CustomResourceDefinition/clusterclass.cluster.x-k8s.io');
    expect(expectedCrdName('cluster.x-k8s.io', 'ClusterClass')).toBe('clusterclasses.cluster.x-k8s.io');
  });
});
