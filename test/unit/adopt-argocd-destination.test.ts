/** When `import --env` must write an Argo CD destination, what it reads from the dump, and what it warns about. */
import { describe, expect, it } from 'vitest';
import {
  clusterServer,
  destinationMessages,
  destinationSetting,
  planDestination,
  type FleetEnvironment,
} from '../../src/adopt/import/argocd-destination.js';
import type { LiveDump } from '../../src/adopt/live-dump.js';
import type { GitopsConfig } from '../../src/gitops/options.js';
import { commentedYaml } from '../../src/adopt/import/commented-yaml.js';

const dumpWith = (kubeconfig?: string): LiveDump => ({
  file: 'cluster.yaml',
  hasManagedFields: false,
  objects:
    kubeconfig === undefined
      ? []
      : [
          {
            document: 1,
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'cluster-info', namespace: 'kube-public' },
              data: { kubeconfig },
            },
          },
        ],
});
const kubeconfig = (...servers: string[]) =>
  `apiVersion: v1\nclusters:\n${servers.map((s, i) => `- name: c${i}\n  cluster:\n    server: ${s}\n`).join('')}`;
const ARGOCD: GitopsConfig = { flavour: 'argocd', argocd: { application: true } };
const peer = (
  name: string,
  argocd: GitopsConfig['argocd'] = {},
  flavour: GitopsConfig['flavour'] = 'argocd',
): FleetEnvironment => ({
  name,
  settings: { flavour, argocd: { application: true, ...argocd } },
  file: `overlays/${name}/overlay.yaml`,
});

describe('planDestination', () => {
  it.each([
    ['not Argo CD itself', { flavour: 'flux' }, [peer('prod', { destination: { name: 'p' } })], false],
    ['Argo CD without Applications', { flavour: 'argocd' }, [peer('prod', { destination: { name: 'p' } })], false],
    ['the only Argo CD environment (others are Flux)', ARGOCD, [peer('dev', {}, 'flux')], false],
    ['one of two Argo CD environments', ARGOCD, [peer('prod', { destination: { name: 'p' } })], true],
    [
      'beside an ApplicationSet member',
      ARGOCD,
      [
        {
          ...peer('prod', { destination: { name: 'p' } }),
          settings: { flavour: 'argocd', argocd: { applicationSet: true, destination: { name: 'p' } } },
        },
      ],
      true,
    ],
  ] as [string, GitopsConfig, FleetEnvironment[], boolean][])('%s: needed %s', (_name, own, others, needed) => {
    expect(planDestination(own, others, dumpWith()).needed).toBe(needed);
  });

  it("names the peers without a destination and those already aimed at the dump's server", () => {
    const plan = planDestination(
      ARGOCD,
      [peer('prod', { destinationServer: 'https://10.0.0.7:6443' }), peer('staging')],
      dumpWith(kubeconfig('https://10.0.0.7:6443')),
    );
    expect(plan).toEqual({
      needed: true,
      server: { url: 'https://10.0.0.7:6443', from: 'the kubeconfig in ConfigMap kube-public/cluster-info' },
      peers: ['prod', 'staging'],
      peersWithout: [{ name: 'staging', file: 'overlays/staging/overlay.yaml' }],
      sameServer: ['prod'],
    });
    const text = commentedYaml({ value: { gitops: destinationSetting(plan, 'mgmt')!.gitops } });
    const said = destinationMessages(plan, 'mgmt', 'overlays/mgmt/overlay.yaml', text);
    expect(said.notes).toEqual([
      'overlays/mgmt/overlay.yaml:4: set gitops.argocd.destination.server to https://10.0.0.7:6443 (from the kubeconfig in ConfigMap kube-public/cluster-info); Argo CD must know the cluster by that URL',
    ]);
    expect(said.warnings.map((w) => [w.file, w.message])).toEqual([
      [
        'overlays/staging/overlay.yaml',
        'environment staging has no Argo CD destination either: beside mgmt, the build refuses it',
      ],
      [
        'overlays/mgmt/overlay.yaml',
        "https://10.0.0.7:6443, the dump's cluster, is already the destination of prod: the build refuses two environments in one cluster",
      ],
    ]);
    expect(said.fillIn).toBeUndefined();
  });
});

describe('clusterServer reads the API server from kube-public/cluster-info, or nothing', () => {
  it.each([
    ['one cluster', kubeconfig('https://api.example.com:6443'), 'https://api.example.com:6443'],
    ['no ConfigMap', undefined, undefined],
    ['two different servers: ambiguous', kubeconfig('https://a:6443', 'https://b:6443'), undefined],
    ['not a URL', kubeconfig('api.example.com'), undefined],
    ['not YAML', 'clusters: [', undefined],
  ])('%s', (_name, text, url) => {
    expect(clusterServer(dumpWith(text))?.url).toBe(url);
  });
});
