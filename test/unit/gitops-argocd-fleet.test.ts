import { describe, expect, it } from 'vitest';
import { RenderError } from '../../src/errors.js';
import {
  argocdApplicationFiles,
  argocdFleetFiles,
  type ArgocdEnvironment,
} from '../../src/gitops/argocd-applications.js';
import { resolveGitopsOptions, type GitopsOptions } from '../../src/gitops/options.js';
import { mergeGitopsConfig } from '../../src/gitops/merge-config.js';
import type { GitopsConfig } from '../../src/gitops/options.js';
import { readTextFileSync } from '../../src/gitops/templates.js';
import type { JsonObject } from 'capi-render';
import { parseSourceDocuments } from '../../src/declarations/yaml-document.js';
import { expandApplicationSet } from '../helpers/applicationset.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { thrownBy } from '../helpers/errors.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { fixtureEnvironment } from '../helpers/gitops-environment.js';

const templates = { userDir: undefined, bundledDir: `${REPO_ROOT}bundled-templates`, read: readTextFileSync };
const REPO = 'https://git.example.com/mgmt.git';
const member = (name: string, options: GitopsOptions, file = `overlays/${name}/overlay.yaml`): ArgocdEnvironment => ({
  name,
  options: resolveGitopsOptions(options),
  file,
});
const argocdSet = (argocd: GitopsOptions['argocd'] = {}): GitopsOptions => ({
  flavour: 'argocd',
  argocd: { applicationSet: true, repoURL: REPO, targetRevision: 'main', ...argocd },
});
const parse = (text: string) => parseSourceDocuments(text, 'x.yaml').map((d) => d.value as JsonObject);
const diagnostics = (f: () => unknown) => thrownBy<RenderError>(RenderError, f).diagnostics;

describe('the ApplicationSet over the Argo CD environments', () => {
  // prod and staging are Argo CD environments of their own clusters; dev is Flux-managed.
  const fleet = [
    member('dev', { flavour: 'flux' }),
    member('prod', argocdSet({ destination: { name: 'mgmt-prod' }, project: 'platform' })),
    member('staging', argocdSet({ destination: { server: 'https://staging.example.com:6443' } })),
  ];
  const files = argocdFleetFiles(fleet, templates);
  const [set] = parse(files[0]![1]);

  it('is one file, outside the output folder, and valid against Argo CD v3.5.1’s ApplicationSet CRD', () => {
    expect(files.map(([p]) => p)).toEqual(['../gitops/argocd/applicationset.yaml']);
    expect(consumerSchemaProblems(set)).toEqual([]);
  });

  it('generates exactly the two Argo CD Applications, each with its own destination and project; never the Flux environment', () => {
    const apps = expandApplicationSet(set!);
    expect(apps.map((a) => (a.metadata as JsonObject).name)).toEqual(['capi-prod', 'capi-staging']);
    expect(apps.map((a) => (a.spec as JsonObject).destination)).toEqual([
      { name: 'mgmt-prod' },
      { server: 'https://staging.example.com:6443' },
    ]);
    expect(apps.map((a) => (a.spec as JsonObject).project)).toEqual(['platform', 'default']);
    expect(apps.map((a) => ((a.spec as JsonObject).source as JsonObject).path)).toEqual([
      'rendered/prod',
      'rendered/staging',
    ]);
    for (const app of apps) expect(consumerSchemaProblems(app)).toEqual([]);
    expect(JSON.stringify(set)).not.toContain('dev');
  });

  it('keeps the safe defaults: preserve on deletion, missingkey=error, server-side apply', () => {
    expect(set).toMatchObject({
      spec: { goTemplateOptions: ['missingkey=error'], syncPolicy: { preserveResourcesOnDeletion: true } },
    });
    expect(
      ((((set!.spec as JsonObject).template as JsonObject).spec as JsonObject).syncPolicy as JsonObject).syncOptions,
    ).toContain('ServerSideApply=true');
  });

  it('is not written when no environment asks for it; one environment may keep the in-cluster default', () => {
    expect(
      argocdFleetFiles([member('dev', { flavour: 'flux' }), member('prod', { flavour: 'argocd' })], templates),
    ).toEqual([]);
    const [only] = parse(argocdFleetFiles([member('prod', argocdSet())], templates)[0]![1]);
    expect(expandApplicationSet(only!).map((a) => (a.spec as JsonObject).destination)).toEqual([
      { server: 'https://kubernetes.default.svc' },
    ]);
  });
});

describe('destinations and ApplicationSet settings: errors', () => {
  const cases: { name: string; fleet: ArgocdEnvironment[]; codes: string[]; message: RegExp; file?: string }[] = [
    {
      name: 'an environment without a destination when several are deployed by Argo CD',
      fleet: [member('prod', argocdSet({ destination: { name: 'mgmt-prod' } })), member('staging', argocdSet())],
      codes: ['destination'],
      message: /environment staging has no Argo CD destination/,
      file: 'overlays/staging/overlay.yaml',
    },
    {
      name: 'two environments on one cluster (also through separate Applications)',
      fleet: [
        member('a', {
          flavour: 'argocd',
          argocd: { application: true, repoURL: REPO, destination: { name: 'in-cluster' } },
        }),
        member('b', argocdSet({ destinationServer: 'https://kubernetes.default.svc' })),
      ],
      codes: ['destination'],
      message: /environments a and b both install Cluster API into the cluster Argo CD runs in/,
      file: 'overlays/b/overlay.yaml',
    },
    {
      name: 'environments of one ApplicationSet disagreeing on a set-level setting',
      fleet: [
        member('prod', argocdSet({ destination: { name: 'p' } })),
        member('staging', argocdSet({ destination: { name: 's' }, targetRevision: 'release' })),
      ],
      codes: ['config'],
      message: /set gitops\.argocd\.targetRevision differently/,
      file: 'overlays/staging/overlay.yaml',
    },
    {
      name: 'a destination with both server and name',
      fleet: [member('prod', argocdSet({ destination: { name: 'p', server: 'https://p.example.com' } }))],
      codes: ['destination'],
      message: /exactly one of server and name/,
      file: 'overlays/prod/overlay.yaml',
    },
    {
      name: 'no repoURL',
      fleet: [member('prod', { flavour: 'argocd', argocd: { applicationSet: true } })],
      codes: ['config'],
      message: /gitops\.argocd\.repoURL is required/,
    },
  ];
  it.each(cases)('$name', ({ fleet, codes, message, file }) => {
    const found = diagnostics(() => argocdFleetFiles(fleet, templates));
    expect(found.map((d) => d.code)).toEqual(codes);
    expect(found[0]!.message).toMatch(message);
    if (file) expect(found[0]!.file).toBe(file);
  });
});

describe('Applications from the plugin or the Source Hydrator', () => {
  const env = fixtureEnvironment('prod', { certManager: true });
  const app = (argocd: GitopsOptions['argocd']) =>
    parse(
      argocdApplicationFiles(
        env,
        resolveGitopsOptions({
          flavour: 'argocd',
          argocd: {
            application: true,
            repoURL: REPO,
            targetRevision: 'main',
            destination: { name: 'mgmt-prod' },
            ...argocd,
          },
        }),
        templates,
      ).files[0]![1],
    )[0]!;

  it('plugin: source.plugin names capi-render and passes the environment as CAPI_ENV; the path is the folder of capi-render.yaml', () => {
    const a = app({ source: 'plugin', repoPath: 'infra/capi' });
    expect((a.spec as JsonObject).source).toEqual({
      repoURL: REPO,
      targetRevision: 'main',
      path: 'infra/capi',
      plugin: { name: 'capi-render', env: [{ name: 'CAPI_ENV', value: 'prod' }] },
    });
    expect(consumerSchemaProblems(a)).toEqual([]);
  });

  it('hydrator: drySource runs the plugin, syncSource is a non-root folder of the hydrated branch, hydrateTo stages', () => {
    const a = app({ source: 'hydrator', hydrator: { targetBranch: 'env/prod', hydrateToBranch: 'env/prod-next' } });
    expect((a.spec as JsonObject).source).toBeUndefined();
    expect((a.spec as JsonObject).sourceHydrator).toEqual({
      drySource: {
        repoURL: REPO,
        targetRevision: 'main',
        path: '.',
        plugin: { name: 'capi-render', env: [{ name: 'CAPI_ENV', value: 'prod' }] },
      },
      syncSource: { targetBranch: 'env/prod', path: 'rendered/prod' },
      hydrateTo: { targetBranch: 'env/prod-next' },
    });
    expect(consumerSchemaProblems(a)).toEqual([]);
  });

  it.each(['plugin', 'hydrator'] as const)(
    'an ApplicationSet with source %s expands to schema-valid Applications',
    (source) => {
      const fleet = [
        member('prod', argocdSet({ source, destination: { name: 'p' } })),
        member('staging', argocdSet({ source, destination: { name: 's' } })),
      ];
      const [set] = parse(argocdFleetFiles(fleet, templates)[0]![1]);
      expect(consumerSchemaProblems(set)).toEqual([]);
      const apps = expandApplicationSet(set!);
      for (const a of apps) expect(consumerSchemaProblems(a)).toEqual([]);
      const envOf = (a: JsonObject) =>
        JSON.stringify((a.spec as JsonObject).source ?? (a.spec as JsonObject).sourceHydrator).match(
          /"CAPI_ENV","value":"(\w+)"/,
        )![1];
      expect(apps.map(envOf)).toEqual(['prod', 'staging']);
    },
  );

  it('the schema check catches a broken object (it is not vacuous)', () => {
    const a = app({});
    expect(
      consumerSchemaProblems({ ...a, spec: { ...(a.spec as JsonObject), destination: { server: 1 }, sourcee: {} } })
        .length,
    ).toBeGreaterThan(1);
  });
});

describe('layering destinations and OCI settings (capi-render.yaml, then overlays)', () => {
  it.each<{ name: string; base: GitopsConfig; over: GitopsConfig; expected: GitopsConfig }>([
    {
      name: 'an overlay’s name replaces an inherited server (never both)',
      base: { argocd: { destination: { server: 'https://a.example.com' }, project: 'p' } },
      over: { argocd: { destination: { name: 'b' } } },
      expected: { argocd: { destination: { name: 'b' }, project: 'p' } },
    },
    {
      name: 'destinationServer, the older spelling, replaces an inherited destination too',
      base: { argocd: { destination: { name: 'a' } } },
      over: { argocd: { destinationServer: 'https://b.example.com' } },
      expected: { argocd: { destinationServer: 'https://b.example.com' } },
    },
    {
      name: 'the registry from capi-render.yaml, the digest from the overlay',
      base: { flux: { oci: { repository: 'r.example.com/capi' }, interval: '5m' } },
      over: { flux: { oci: { digest: `sha256:${'a'.repeat(64)}` } } },
      expected: {
        flux: { oci: { repository: 'r.example.com/capi', digest: `sha256:${'a'.repeat(64)}` }, interval: '5m' },
      },
    },
  ])('$name', ({ base, over, expected }) => expect(mergeGitopsConfig(base, over)).toEqual(expected));
});
