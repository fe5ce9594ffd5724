/**
 * Where an environment is delivered, for its section of the report: the controller (Argo CD, Flux or
 * none), the destination cluster, where the controller takes the manifests from (a committed path,
 * capi-render as a Config Management Plugin, Argo CD's Source Hydrator, or an OCI artifact) and, for
 * an artifact, the digest it is pinned to. Read from the environment's effective gitops settings
 * (capi-render.yaml, then its overlays), resolved as the build resolves them (gitops/options.ts), so
 * the page says what the generated Applications and Kustomizations say.
 */
import type { RenderConfig } from '../config/config-types.js';
import { argocdApplicationName } from '../gitops/argocd.js';
import { fluxOciRepositoryName } from '../gitops/flux.js';
import { joinRepoPath } from '../gitops/layout.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import { IN_CLUSTER, resolveGitopsOptions, type ResolvedGitopsOptions } from '../gitops/options.js';
import { composeGitopsSettings } from '../overlay/compose-environment.js';
import { discoverEnvironments } from '../overlay/discover-environments.js';
import type { DeliveryModel } from './report-model.js';
import { toRichText } from './util-report.js';

/** What {@link buildDelivery} needs of an environment besides its name. */
export interface DeliverySettings {
  /** Its gitops settings with every default filled in. */
  options: ResolvedGitopsOptions;
  /** The repository's output folder (`rendered`), where the kustomize flavour's output lies. */
  outputDir: string;
}

/**
 * The effective gitops settings of `environments`, read from capi-render.yaml and each one's
 * overlay chain (the overlays were validated by the render that came first). The controllers'
 * path prefix defaults to the output folder, as the build's GitOps stage sets it.
 */
export async function readDeliverySettings(
  repoRoot: string,
  config: Pick<RenderConfig, 'overlaysDir' | 'gitops' | 'outputDir'>,
  environments: readonly string[],
): Promise<Map<string, DeliverySettings>> {
  const wanted = new Set(environments);
  const out = new Map<string, DeliverySettings>();
  for (const entry of await discoverEnvironments(repoRoot, config.overlaysDir)) {
    if (!wanted.has(entry.name)) continue;
    const own =
      entry.overlayDir === undefined ? {} : (await composeGitopsSettings(entry.overlayDir, { repoRoot })).gitops;
    const settings = mergeGitopsConfig(config.gitops, own);
    const options = resolveGitopsOptions({
      flavour: settings.flavour ?? 'kustomize',
      argocd: { pathPrefix: config.outputDir, ...settings.argocd },
      flux: { pathPrefix: config.outputDir, ...settings.flux },
    });
    out.set(entry.name, { options, outputDir: config.outputDir });
  }
  return out;
}

type Fact = DeliveryModel['facts'][number];

const fact = (label: string, value: string, note = '', code = true): Fact => ({ label, value, code, note });

/** The delivery of environment `env` under `settings`. Pure. */
export function buildDelivery(env: string, settings: DeliverySettings): DeliveryModel {
  const { options } = settings;
  if (options.flavour === 'argocd') return argocdDelivery(env, options.argocd);
  if (options.flavour === 'flux') return fluxDelivery(env, options.flux);
  const folder = joinRepoPath(settings.outputDir, env);
  return {
    controller: 'none',
    mode: 'none',
    destination: '',
    digest: '',
    facts: [
      fact('controller', 'none', 'the kustomize flavour has no Argo CD or Flux wrapper', false),
      fact('path', folder, 'apply it with your own tooling'),
    ],
    note: [],
  };
}

function argocdDelivery(env: string, a: ResolvedGitopsOptions['argocd']): DeliveryModel {
  const destination = a.destination.server ?? a.destination.name ?? IN_CLUSTER;
  const where = a.destination.namespace ? `, namespace ${a.destination.namespace}` : '';
  const facts: Fact[] = [
    fact('controller', 'Argo CD', '', false),
    a.destinationSet
      ? fact(
          'destination',
          destination,
          `${a.destination.server !== undefined ? 'API server' : "the cluster's name in Argo CD"}${where}`,
        )
      : fact('destination', destination, 'the cluster Argo CD runs in (gitops.argocd.destination is not set)'),
    fact('source', a.source, SOURCE_NOTES[a.source] ?? ''),
  ];
  let digest = '';
  let note: DeliveryModel['note'] = [];
  if (a.source === 'oci') {
    // What argocdSource writes: oci://<repository>/<env>, path `.`, targetRevision the digest (or the tag).
    const repository = a.oci?.repository ?? '(gitops.argocd.oci.repository is not set)';
    digest = a.oci?.digest ?? '';
    facts.push(
      fact(
        'artifact',
        `oci://${repository}/${env}`,
        'path . of the artifact `capi-render publish --for argocd` pushes',
      ),
    );
    if (digest !== '')
      facts.push(
        fact('pinned digest', digest, "the Application's targetRevision: Argo CD syncs exactly this artifact"),
      );
    else {
      facts.push(fact('pinned digest', 'none', `follows the tag ${a.oci?.tag ?? 'latest'}`, false));
      note = toRichText(
        'The source moves whenever the tag does: set `gitops.argocd.oci.digest` to the digest `capi-render publish --for argocd` printed to pin it.',
      );
    }
  } else {
    facts.push(
      fact(
        'repository',
        a.repoURL ?? 'not set',
        a.repoURL === undefined ? 'gitops.argocd.repoURL' : `at ${a.targetRevision}`,
        a.repoURL !== undefined,
      ),
    );
  }
  if (a.source === 'plugin' || a.source === 'hydrator')
    facts.push(
      fact(
        'plugin',
        a.plugin.name,
        `run in ${a.repoPath === '.' ? 'the repository root' : a.repoPath} with CAPI_ENV=${env}`,
      ),
    );
  if (a.source === 'hydrator') {
    facts.push(
      fact(
        'hydrated to',
        `${a.hydrator.targetBranch}:${joinRepoPath(a.hydrator.pathPrefix, env)}`,
        a.hydrator.hydrateToBranch === undefined
          ? 'Argo CD commits there and syncs from it'
          : `through the staging branch ${a.hydrator.hydrateToBranch}`,
      ),
    );
  } else if (a.source === 'path') facts.push(fact('path', joinRepoPath(a.pathPrefix, env)));
  const name = argocdApplicationName(env);
  if (a.application) facts.push(fact('Application', name, `namespace ${a.namespace}, project ${a.project}`));
  else if (a.applicationSet)
    facts.push(fact('Application', name, `from the ApplicationSet, namespace ${a.namespace}, project ${a.project}`));
  else
    facts.push(
      fact(
        'Application',
        'not generated',
        'point your own at the source above (gitops.argocd.application or applicationSet writes one)',
        false,
      ),
    );
  return { controller: 'Argo CD', mode: a.source, destination, digest, facts, note };
}

/** What each Argo CD source mode means, in a few words. */
const SOURCE_NOTES: Readonly<Record<string, string>> = {
  path: 'the committed output, as a directory of manifests',
  plugin: 'capi-render renders at sync time, as a Config Management Plugin, from the inputs and the lock',
  hydrator: "Argo CD's Source Hydrator runs the plugin and commits the result",
  oci: 'an OCI artifact (Argo CD 3.1+ OCI source)',
};

function fluxDelivery(env: string, f: ResolvedGitopsOptions['flux']): DeliveryModel {
  const facts: Fact[] = [fact('controller', 'Flux', '', false)];
  const destination = f.kubeConfig
    ? `Secret ${f.namespace}/${f.kubeConfig.secretRef.name}`
    : 'the cluster Flux runs in';
  facts.push(
    f.kubeConfig
      ? fact(
          'destination',
          destination,
          `the management cluster's kubeconfig${f.kubeConfig.secretRef.key ? `, key ${f.kubeConfig.secretRef.key}` : ''}`,
        )
      : fact('destination', destination, '(gitops.flux.kubeConfig is not set)', false),
  );
  let note: DeliveryModel['note'] = [];
  let digest = '';
  if (f.oci) {
    const repository = f.oci.repository ?? '(gitops.flux.oci.repository is not set)';
    digest = f.oci.digest ?? '';
    facts.push(fact('source', 'oci', 'an OCI artifact `capi-render publish` pushes'));
    facts.push(
      fact('artifact', `oci://${repository}/${env}`, `OCIRepository ${f.namespace}/${fluxOciRepositoryName(env)}`),
    );
    if (digest !== '') facts.push(fact('pinned digest', digest, 'Flux applies exactly this artifact'));
    else {
      facts.push(fact('pinned digest', 'none', `follows the tag ${f.oci.tag ?? 'latest'}`, false));
      note = toRichText(
        `The source moves whenever the tag does: set \`gitops.flux.oci.digest\` to the digest \`capi-render publish\` printed to pin it.`,
      );
    }
  } else {
    const ref = f.sourceRef;
    facts.push(fact('source', 'path', `the committed output, from a ${ref.kind}`));
    facts.push(fact('repository', `${ref.kind}/${ref.namespace ?? f.namespace}/${ref.name}`));
    facts.push(fact('path', joinRepoPath(f.pathPrefix, env)));
  }
  facts.push(
    fact(
      'Kustomizations',
      f.namespace,
      `one per component, every ${f.interval}${f.serviceAccountName ? `, as ServiceAccount ${f.serviceAccountName}` : ''}`,
    ),
  );
  return { controller: 'Flux', mode: f.oci ? 'oci' : 'path', destination, digest, facts, note };
}
