/**
 * The Argo CD destination a new environment needs before its first build. An environment is a
 * management cluster; as soon as several environments get Argo CD Applications (`application` or
 * `applicationSet`), the build refuses one without `gitops.argocd.destination`
 * (gitops/argocd-applications.ts, `error[destination]`). So `import --env` into such a fleet writes it.
 *
 * Design notes: docs/internals.md "adopt/import/argocd-destination.ts".
 */
import jsYaml from 'js-yaml';
import type { RenderConfig } from '../../config/config-types.js';
import { RenderError, warning, type Diagnostic } from '../../errors.js';
import { parseSourceDocuments } from '../../declarations/yaml-document.js';
import { mergeGitopsConfig } from '../../gitops/merge-config.js';
import type { GitopsConfig } from '../../gitops/options.js';
import { isJsonObject, type JsonObject } from '../../manifest/object.js';
import { composeGitopsSettings } from '../../overlay/compose-environment.js';
import { discoverEnvironments } from '../../overlay/discover-environments.js';
import type { LiveDump } from '../live-dump.js';

/** Another environment of the repository, with its effective gitops settings. */
export interface FleetEnvironment {
  name: string;
  settings: GitopsConfig;
  /** Its overlay.yaml. */
  file: string;
}

export type DestinationPlan =
  /** The new environment is not one of several Argo CD environments: the default (Argo CD's own cluster) stands. */
  | { needed: false }
  | {
      needed: true;
      /** The server read from the dump, and from where; undefined: a placeholder to fill in. */
      server?: { url: string; from: string };
      /** The other Argo CD environments (sorted). */
      peers: string[];
      /** Peers that have no destination either (each fails the build too), with their overlay files. */
      peersWithout: { name: string; file: string }[];
      /** Peers already aimed at the dump's server. */
      sameServer: string[];
    };

/** Whether settings give an environment Argo CD Applications. */
function getsApplications(settings: GitopsConfig): boolean {
  return settings.flavour === 'argocd' && Boolean(settings.argocd?.application || settings.argocd?.applicationSet);
}

function hasDestination(settings: GitopsConfig): boolean {
  return settings.argocd?.destination !== undefined || settings.argocd?.destinationServer !== undefined;
}

function serverOf(settings: GitopsConfig): string | undefined {
  return settings.argocd?.destination?.server ?? settings.argocd?.destinationServer;
}

/**
 * What the new environment `env` needs, given the repository's other environments; `own` is the
 * new environment's settings (capi-render.yaml's: the overlay import writes sets none but this). Pure.
 */
export function planDestination(
  own: GitopsConfig,
  others: readonly FleetEnvironment[],
  dump: LiveDump,
): DestinationPlan {
  const peers = others.filter((o) => getsApplications(o.settings));
  if (!getsApplications(own) || peers.length === 0) return { needed: false };
  const server = clusterServer(dump);
  return {
    needed: true,
    ...(server ? { server } : {}),
    peers: peers.map((p) => p.name).sort(),
    peersWithout: peers.filter((p) => !hasDestination(p.settings)).map((p) => ({ name: p.name, file: p.file })),
    sameServer: server ? peers.filter((p) => serverOf(p.settings) === server.url).map((p) => p.name) : [],
  };
}

/** The repository's environments other than `env`, with capi-render.yaml's gitops settings and their overlays' merged. */
export async function otherEnvironments(
  repoRoot: string,
  config: RenderConfig,
  env: string,
): Promise<FleetEnvironment[]> {
  // An overlay import cannot read is the build's to report, with its own error; it does not block the import.
  const entries = await discoverEnvironments(repoRoot, config.overlaysDir).catch(skipSpecError([]));
  const out: FleetEnvironment[] = [];
  for (const entry of entries) {
    // The implicit `default` stops being rendered once an overlay exists (the one import writes).
    if (entry.name === env || !entry.overlayDir) continue;
    const own = await composeGitopsSettings(entry.overlayDir, { repoRoot }).catch(skipSpecError(undefined));
    if (own) out.push({ name: entry.name, settings: mergeGitopsConfig(config.gitops, own.gitops), file: own.file });
  }
  return out;
}

function skipSpecError<T>(value: T): (e: unknown) => T {
  return (e) => {
    if (e instanceof RenderError) return value;
    throw e;
  };
}

const CLUSTER_INFO = 'ConfigMap kube-public/cluster-info';

/** The API server URL in the dump's `kube-public/cluster-info` kubeconfig, when it names exactly one. */
export function clusterServer(dump: LiveDump): { url: string; from: string } | undefined {
  const cm = dump.objects.find(
    ({ object: o }) =>
      o.kind === 'ConfigMap' &&
      o.apiVersion === 'v1' &&
      isJsonObject(o.metadata) &&
      o.metadata.namespace === 'kube-public' &&
      o.metadata.name === 'cluster-info',
  )?.object;
  const text = cm && isJsonObject(cm.data) ? cm.data.kubeconfig : undefined;
  if (typeof text !== 'string') return undefined;
  let kubeconfig: unknown;
  try {
    kubeconfig = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return undefined;
  }
  const clusters =
    isJsonObject(kubeconfig) && Array.isArray((kubeconfig as { clusters?: unknown }).clusters)
      ? (kubeconfig as { clusters: unknown[] }).clusters
      : [];
  const servers = [
    ...new Set(
      clusters
        .map((c) =>
          c && typeof c === 'object' ? (c as { cluster?: { server?: unknown } }).cluster?.server : undefined,
        )
        .filter((s): s is string => typeof s === 'string' && /^https?:\/\//.test(s)),
    ),
  ];
  return servers.length === 1 ? { url: servers[0]!, from: `the kubeconfig in ${CLUSTER_INFO}` } : undefined;
}

/** The overlay's `gitops:` block and its comment (at `gitops.argocd.destination`), or undefined when none is needed. */
export function destinationSetting(
  plan: DestinationPlan,
  env: string,
): { gitops: JsonObject; comment: string } | undefined {
  if (!plan.needed) return undefined;
  const fleet = [...plan.peers, env].sort().join(', ');
  if (plan.server) {
    return {
      gitops: { argocd: { destination: { server: plan.server.url } } },
      comment: `This cluster in Argo CD, which deploys several environments (${fleet}): its API server, from ${plan.server.from}. Argo CD must know the cluster by this URL (argocd cluster list); else use {name: <the cluster's name in Argo CD>}.`,
    };
  }
  return {
    // An empty name: the build's schema check refuses it at its line, naming the key, until it is filled in.
    gitops: { argocd: { destination: { name: '' } } },
    comment: `FILL IN this cluster's destination in Argo CD, which deploys several environments (${fleet}), each its own management cluster:\nits name in Argo CD (argocd cluster list), or replace name with server: <its API server URL>. The build fails until it is set.`,
  };
}

/**
 * What import says about the destination it wrote to `file` (whose text is `text`): the placeholder
 * to fill in, or the server it read, each at its line; and the other environments the build will refuse.
 */
export function destinationMessages(
  plan: DestinationPlan,
  env: string,
  file: string,
  text: string,
): { warnings: Diagnostic[]; notes: string[]; fillIn?: FillIn } {
  if (!plan.needed) return { warnings: [], notes: [] };
  // The scalar to change: the server read from the dump, or the empty name to fill in (where the build's error points).
  const key = `${KEY}.${plan.server ? 'server' : 'name'}`;
  const at = parseSourceDocuments(text, file)[0]?.locate(key.split('.')) ?? { line: 1, col: 1 };
  const warnings: Diagnostic[] = [];
  const notes: string[] = [];
  if (plan.server)
    notes.push(
      `${file}:${at.line}: set ${key} to ${plan.server.url} (from ${plan.server.from}); Argo CD must know the cluster by that URL`,
    );
  else {
    warnings.push(
      warning(
        'import',
        `${key} is an empty placeholder to fill in: Argo CD deploys several environments (${[...plan.peers, env].sort().join(', ')}), and ${env} must name its own cluster before it builds`,
        {
          file,
          ...at,
          hint: `write the cluster's name in Argo CD there, or replace name with server: <its API server URL>; a dump that includes kube-public/cluster-info gives the server (docs/adoption.md "1. Dump the cluster (read-only)")`,
        },
      ),
    );
  }
  for (const p of plan.peersWithout) {
    warnings.push(
      warning(
        'import',
        `environment ${p.name} has no Argo CD destination either: beside ${env}, the build refuses it`,
        {
          file: p.file,
          field: KEY,
          hint: `set ${KEY} in ${p.file}: {name: <the cluster's name in Argo CD>} or {server: <its API server URL>}`,
        },
      ),
    );
  }
  if (plan.sameServer.length > 0 && plan.server) {
    warnings.push(
      warning(
        'import',
        `${plan.server.url}, the dump's cluster, is already the destination of ${plan.sameServer.join(', ')}: the build refuses two environments in one cluster`,
        {
          file,
          ...at,
          hint: `import into ${plan.sameServer.length === 1 ? `that environment (--env ${plan.sameServer[0]})` : 'one of those environments'} instead, or correct the destinations`,
        },
      ),
    );
  }
  return { warnings, notes, ...(plan.server ? {} : { fillIn: { file, line: at.line, key } }) };
}

/** A setting import wrote as a placeholder the user must fill in before the build. */
export interface FillIn {
  file: string;
  line: number;
  key: string;
}

/** The setting the build reads an environment's Argo CD destination from. */
export const KEY = 'gitops.argocd.destination';
