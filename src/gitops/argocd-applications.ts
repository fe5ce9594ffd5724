/**
 * The Argo CD consumer kit: one Application per environment (`argocd.application: true`) and one
 * ApplicationSet over every Argo CD environment that asks for it (`argocd.applicationSet: true`).
 *
 * Design notes: docs/internals.md "gitops/argocd-applications.ts".
 */
import { SpecError, error, throwIfErrors, warning, type Diagnostic, type Location } from '../errors.js';
import type { JsonObject } from '../manifest/object.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import { ARGOCD_WAVES, argocdApplicationName } from './argocd.js';
import { applicationPath, applicationSetPath, joinRepoPath } from './layout.js';
import { IN_CLUSTER, componentRole, type ResolvedGitopsOptions } from './options.js';
import { renderTemplate, type TemplateSource } from './templates.js';

/** The plugin environment variable that names the environment (`ARGOCD_ENV_CAPI_ENV` in the sidecar). */
export const PLUGIN_ENV_VARIABLE = 'CAPI_ENV';

const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'capi-render' };

type ResolvedArgocd = ResolvedGitopsOptions['argocd'];

/**
 * `spec.source` or `spec.sourceHydrator` of an environment's Application (the other is null).
 * `ociRevision` replaces the OCI source's targetRevision (the ApplicationSet's per-element template).
 */
export function argocdSource(
  env: string,
  a: ResolvedArgocd,
  ociRevision?: string,
): { source: JsonObject | null; sourceHydrator: JsonObject | null } {
  if (a.source === 'oci')
    return {
      source: {
        repoURL: `oci://${a.oci?.repository ?? ''}/${env}`,
        targetRevision: ociRevision ?? argocdOciRevision(a),
        path: '.',
      },
      sourceHydrator: null,
    };
  const plugin: JsonObject = { name: a.plugin.name, env: [{ name: PLUGIN_ENV_VARIABLE, value: env }] };
  const git = { repoURL: a.repoURL ?? '', targetRevision: a.targetRevision };
  if (a.source === 'plugin') return { source: { ...git, path: a.repoPath, plugin }, sourceHydrator: null };
  if (a.source === 'hydrator') {
    const hydrator: JsonObject = {
      drySource: { ...git, path: a.repoPath, plugin },
      syncSource: { targetBranch: a.hydrator.targetBranch, path: joinRepoPath(a.hydrator.pathPrefix, env) },
    };
    if (a.hydrator.hydrateToBranch !== undefined) hydrator.hydrateTo = { targetBranch: a.hydrator.hydrateToBranch };
    return { source: null, sourceHydrator: hydrator };
  }
  return { source: { ...git, path: joinRepoPath(a.pathPrefix, env) }, sourceHydrator: null };
}

/** The OCI source's targetRevision: the pinned digest, else the tag (default `latest`). */
export function argocdOciRevision(a: ResolvedArgocd): string {
  return a.oci?.digest ?? a.oci?.tag ?? 'latest';
}

function templateArgocd(a: ResolvedArgocd): JsonObject {
  return {
    namespace: a.namespace,
    project: a.project,
    repoURL: a.repoURL ?? '',
    targetRevision: a.targetRevision,
    destinationServer: a.destinationServer,
    pathPrefix: a.pathPrefix,
    source: a.source,
  };
}

/**
 * The Application of one environment (`argocd/application.yaml.hbs`), when asked for; and, for an
 * environment of the ApplicationSet too, the warning when its OCI source is not pinned by digest.
 */
export function argocdApplicationFiles(
  env: RenderedEnvironment,
  options: ResolvedGitopsOptions,
  templates: TemplateSource,
): { files: [string, string][]; warnings: Diagnostic[] } {
  const a = options.argocd;
  if (!a.application) return { files: [], warnings: a.applicationSet ? unpinnedOciWarnings(env.name, a, {}) : [] };
  requireSource(a, {});
  throwIfErrors(oneClusterProblems(env.name, a, {}));
  const context: JsonObject = {
    argocd: templateArgocd(a),
    environment: { name: env.name, path: joinRepoPath(a.pathPrefix, env.name), labels: { ...options.labels } },
    application: {
      name: argocdApplicationName(env.name),
      labels: MANAGED_BY,
      destination: { ...a.destination },
      ...argocdSource(env.name, a),
    },
    components: env.components.map((c) => ({
      name: c.name,
      role: componentRole(c.name),
      wave: ARGOCD_WAVES[componentRole(c.name)],
    })),
  };
  const warnings: Diagnostic[] = [...unpinnedOciWarnings(env.name, a, {})];
  if (a.applicationSet) {
    warnings.push(
      warning(
        'gitops',
        `both an Application and an ApplicationSet manage environment ${env.name} (both create Application ${argocdApplicationName(env.name)})`,
        {
          field: 'gitops.argocd',
          hint: 'apply only one of gitops/argocd/applicationset.yaml and gitops/argocd/applications/, or enable only one',
        },
      ),
    );
  }
  return {
    files: [[applicationPath(env.name), renderTemplate('argocd/application.yaml.hbs', context, templates).text]],
    warnings,
  };
}

/** An environment's effective Argo CD settings, for the checks and the ApplicationSet across environments. */
export interface ArgocdEnvironment {
  name: string;
  options: ResolvedGitopsOptions;
  /** Where its settings come from (its overlay.yaml), for messages. */
  file?: string;
}

/** Settings that live on the ApplicationSet itself, so every environment in it must agree on them. */
const SET_LEVEL: readonly (keyof ResolvedArgocd)[] = [
  'namespace',
  'repoURL',
  'targetRevision',
  'source',
  'plugin',
  'hydrator',
  'repoPath',
  'pathPrefix',
];

/**
 * Checks the destinations of every environment that gets an Argo CD Application (directly or from
 * the ApplicationSet) and renders the ApplicationSet over those that asked for it. Throws one
 * SpecError listing every problem: `destination` for an environment without a destination when
 * several environments get Applications, or two environments aimed at the same cluster; `config`
 * for a missing repoURL or ApplicationSet settings that differ between its environments.
 */
export function argocdFleetFiles(
  environments: readonly ArgocdEnvironment[],
  templates: TemplateSource,
): [string, string][] {
  const managed = environments.filter(
    (e) => e.options.flavour === 'argocd' && (e.options.argocd.application || e.options.argocd.applicationSet),
  );
  throwIfErrors(destinationProblems(managed));
  const members = managed.filter((e) => e.options.argocd.applicationSet);
  if (members.length === 0) return [];
  const first = members[0]!;
  for (const m of members)
    requireSource(
      m.options.argocd,
      at(m, m.options.argocd.source === 'oci' ? 'gitops.argocd.oci.repository' : 'gitops.argocd.repoURL'),
    );
  throwIfErrors(members.slice(1).flatMap((m) => settingProblems(first, m)));
  const a = first.options.argocd;
  const oci = a.source === 'oci';
  // An OCI source's revision is each environment's own pinned digest: an element value, reviewed in the ApplicationSet.
  const elements = members.map((m): JsonObject => ({
    env: m.name,
    name: argocdApplicationName(m.name),
    project: m.options.argocd.project,
    ...(oci ? { targetRevision: argocdOciRevision(m.options.argocd) } : {}),
    destination: { ...m.options.argocd.destination },
  }));
  const context: JsonObject = {
    argocd: templateArgocd(a),
    applicationSet: {
      name: 'capi',
      labels: MANAGED_BY,
      elements,
      // Argo CD fills these per element (Go templates; goTemplate: true).
      applicationName: '{{.name}}',
      project: '{{.project}}',
      ...argocdSource('{{.env}}', a, oci ? '{{.targetRevision}}' : undefined),
      templatePatch: 'spec:\n  destination: {{ toJson .destination }}\n',
    },
  };
  return [[applicationSetPath(), renderTemplate('argocd/applicationset.yaml.hbs', context, templates).text]];
}

/** An OCI source that follows a tag: Argo CD syncs whatever is pushed under it next. */
function unpinnedOciWarnings(env: string, a: ResolvedArgocd, where: Location): Diagnostic[] {
  if (a.source !== 'oci' || a.oci?.digest !== undefined) return [];
  return [
    warning(
      'gitops',
      `environment ${env}: the Argo CD OCI source follows the tag ${argocdOciRevision(a)}, not a digest; whatever is pushed under it next is synced`,
      {
        ...where,
        field: 'gitops.argocd.oci.digest',
        hint: `run capi-render publish --for argocd --env ${env} --oci ${a.oci?.repository ?? '<repository>'}/${env}:<tag> and set gitops.argocd.oci.digest to the digest it prints`,
      },
    ),
  ];
}

function destinationProblems(managed: readonly ArgocdEnvironment[]): Diagnostic[] {
  if (managed.length < 2)
    return managed.flatMap((e) => oneClusterProblems(e.name, e.options.argocd, at(e, 'gitops.argocd.destination')));
  const names = managed.map((e) => e.name).join(', ');
  const problems: Diagnostic[] = managed.flatMap((e) =>
    oneClusterProblems(e.name, e.options.argocd, at(e, 'gitops.argocd.destination')),
  );
  if (problems.length > 0) return problems;
  const byCluster = new Map<string, string[]>();
  for (const e of managed) {
    const a = e.options.argocd;
    if (!a.destinationSet) {
      problems.push(
        error(
          'destination',
          `environment ${e.name} has no Argo CD destination; Argo CD deploys several environments (${names}), and each is its own management cluster`,
          {
            ...at(e, 'gitops.argocd.destination'),
            hint: `set gitops.argocd.destination in ${e.file ?? 'its overlay'}: {name: <the cluster's name in Argo CD>} or {server: <its API server URL>}`,
          },
        ),
      );
      continue;
    }
    const key = clusterKey(a.destination);
    byCluster.set(key, [...(byCluster.get(key) ?? []), e.name]);
  }
  for (const [cluster, envs] of byCluster) {
    if (envs.length < 2) continue;
    const e = managed.find((m) => m.name === envs[1])!;
    problems.push(
      error(
        'destination',
        `environments ${envs.join(' and ')} both install Cluster API into ${cluster}; their objects would clash`,
        {
          ...at(e, 'gitops.argocd.destination'),
          hint: 'give each environment the destination of its own management cluster',
        },
      ),
    );
  }
  return problems;
}

/** A destination names one cluster: `server` or `name`, never both (Argo CD refuses the Application). */
function oneClusterProblems(env: string, a: ResolvedArgocd, where: Location): Diagnostic[] {
  const d = a.destination;
  if ((d.server === undefined) !== (d.name === undefined)) return [];
  return [
    error('destination', `environment ${env}: gitops.argocd.destination must have exactly one of server and name`, {
      field: 'gitops.argocd.destination',
      ...where,
      hint: "server is the cluster's API URL, name its name in Argo CD; Argo CD refuses a destination with both",
    }),
  ];
}

/** One key per cluster: Argo CD's local cluster is both `in-cluster` by name and the in-cluster URL. */
function clusterKey(d: ResolvedArgocd['destination']): string {
  if (d.name === 'in-cluster' || d.server === IN_CLUSTER) return `the cluster Argo CD runs in (${IN_CLUSTER})`;
  return d.server !== undefined ? `server ${d.server}` : `cluster ${d.name}`;
}

function settingProblems(first: ArgocdEnvironment, other: ArgocdEnvironment): Diagnostic[] {
  const differing: string[] = SET_LEVEL.filter(
    (k) => canonicalJson(first.options.argocd[k] ?? null) !== canonicalJson(other.options.argocd[k] ?? null),
  );
  // The registry is the ApplicationSet's; the digest (or tag) each environment's own element.
  if ((first.options.argocd.oci?.repository ?? null) !== (other.options.argocd.oci?.repository ?? null))
    differing.push('oci.repository');
  return differing.map((k) =>
    error(
      'config',
      `the ApplicationSet lists environments ${first.name} and ${other.name}, which set gitops.argocd.${k} differently`,
      {
        ...at(other, `gitops.argocd.${k}`),
        hint: `gitops.argocd.${k} applies to the whole ApplicationSet: set it once in capi-render.yaml, or give ${other.name} an Application of its own (application: true)`,
      },
    ),
  );
}

/**
 * The Git repoURL, or for an OCI source the registry repository. A missing setting is pointed at
 * capi-render.yaml (where a repository-wide setting goes) unless `where` names the overlay.
 */
function requireSource(a: ResolvedArgocd, at: Location): void {
  // CONFIG_FILE's value, spelled out: config/ imports gitops/ types, so gitops/ does not import config/.
  const where: Location = { file: 'capi-render.yaml', ...at };
  if (a.source === 'oci') {
    if (a.oci?.repository !== undefined) return;
    throw new SpecError(
      error(
        'config',
        'gitops.argocd.oci.repository is required to take an Argo CD Application from an OCI artifact (gitops.argocd.source: oci)',
        {
          field: 'gitops.argocd.oci.repository',
          ...where,
          hint: "set it to the registry and repository prefix publish pushes to, e.g. ghcr.io/acme/capi-render (the environment's artifact is <repository>/<env>)",
        },
      ),
    );
  }
  if (a.repoURL !== undefined && a.repoURL !== '') return;
  throw new SpecError(
    error('config', 'gitops.argocd.repoURL is required to generate an Argo CD Application or ApplicationSet', {
      field: 'gitops.argocd.repoURL',
      ...where,
      hint: 'set it to the Git URL of this repository, e.g. https://github.com/acme/management-clusters.git',
    }),
  );
}

function at(e: ArgocdEnvironment, field: string): Location {
  return e.file ? { file: e.file, field } : { field };
}
