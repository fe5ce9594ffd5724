/**
 * Options of the GitOps flavour stage and their defaults. The stage runs after provider processing
 * and before file planning; it annotates objects for the chosen consumer (Argo CD, Flux, or plain
 * kustomize) and may add consumer files (Applications, Flux Kustomizations) beside the output.
 */
import type { Diagnostic } from '../errors.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';

/** Which consumer the output is prepared for; `kustomize` applies only the rules every consumer needs. */
export type GitopsFlavour = 'kustomize' | 'argocd' | 'flux';

/** Argo CD settings; only the Application/ApplicationSet use the fields other than the two switches. */
export interface ArgocdOptions {
  /** Emit one Application for the environment (`../gitops/argocd/applications/<env>.yaml`). Default false. */
  application?: boolean;
  /** Emit one ApplicationSet over every environment (`../gitops/argocd/applicationset.yaml`). Default false. */
  applicationSet?: boolean;
  /** Git URL of the repository holding the output. Required when an Application or ApplicationSet is emitted. */
  repoURL?: string;
  /** Default `HEAD`. */
  targetRevision?: string;
  /** Argo CD project. Default `default`. */
  project?: string;
  /**
   * Cluster the providers are installed into (this environment's management cluster): the API
   * server URL or the cluster's name in Argo CD, never both. Default: the cluster Argo CD runs in
   * (`https://kubernetes.default.svc`) — for one environment only: an ApplicationSet over several
   * environments needs each one's destination set explicitly (an environment is a cluster).
   */
  destination?: ArgocdDestination;
  /** Shorthand for `destination: {server: …}` (the setting of earlier releases). */
  destinationServer?: string;
  /**
   * Where the Applications take the manifests from: `path` (default) the committed
   * `<pathPrefix>/<env>` folder; `plugin` capi-render itself as a Config Management Plugin
   * (`spec.source.plugin`), rendering from the inputs and the lock at sync time; `hydrator` Argo CD's
   * Source Hydrator (`spec.sourceHydrator`, beta since Argo CD 3.5) running the plugin and committing
   * the result to `hydrator.targetBranch`; `oci` the artifact `capi-render publish --for argocd`
   * pushed to `<oci.repository>/<env>` (an OCI Application source, Argo CD 3.1+), pinned by `oci.digest`.
   */
  source?: ArgocdSourceMode;
  /** The OCI artifact settings (source: oci). */
  oci?: ArgocdOciOptions;
  /** The Config Management Plugin's name (plugin.yaml metadata.name). Default `capi-render`. */
  plugin?: { name?: string };
  /** Source Hydrator settings (source: hydrator). */
  hydrator?: ArgocdHydratorOptions;
  /** Folder of capi-render.yaml inside the Git repository (the plugin's source path). Default `.`. */
  repoPath?: string;
  /** Namespace of Argo CD, where Applications live. Default `argocd`. */
  namespace?: string;
  /** Path of the output folder inside the repository. Default `rendered`. */
  pathPrefix?: string;
}

/** An Argo CD destination: `server` (API URL) or `name` (the cluster's name in Argo CD); `namespace` optional. */
export interface ArgocdDestination {
  server?: string;
  name?: string;
  namespace?: string;
}

export type ArgocdSourceMode = 'path' | 'plugin' | 'hydrator' | 'oci';

/**
 * The OCI source of an Application (`source: oci`): `oci://<repository>/<env>` at path `.`, the
 * artifact `capi-render publish --for argocd --env <env> --oci <repository>/<env>:<tag>` pushed.
 * `targetRevision` is `digest` when set (Argo CD uses a digest as it is: the source never moves until
 * this line changes in a reviewed commit), else `tag`. Registry credentials are an Argo CD repository
 * credential of type `oci`, outside the Application.
 */
export interface ArgocdOciOptions {
  /** Registry and repository prefix, e.g. `ghcr.io/acme/capi-render`; the environment's artifact is `<repository>/<env>`. Required. */
  repository?: string;
  /** `sha256:…` as `publish --for argocd` printed it. Default: follow `tag` (with a warning). */
  digest?: string;
  /** Tag to follow when no digest is pinned. Default `latest`. */
  tag?: string;
}

/** Where the Source Hydrator commits: `syncSource` (and an optional staging branch, `hydrateTo`). */
export interface ArgocdHydratorOptions {
  /** Branch Argo CD commits the hydrated manifests to and syncs from. Default `capi-render-hydrated`. */
  targetBranch?: string;
  /** Folder on that branch; the environment's is `<pathPrefix>/<env>`. Default `rendered`. */
  pathPrefix?: string;
  /** Staging branch Argo CD pushes to instead (promotion by pull request). Default none. */
  hydrateToBranch?: string;
}

/** The Flux source (`spec.sourceRef`) holding the repository with the output. */
export interface FluxSourceRef {
  kind: 'GitRepository' | 'OCIRepository';
  name: string;
  /** Omitted: the Kustomizations' own namespace. */
  namespace?: string;
}

/** Flux settings for the generated Kustomizations. */
export interface FluxOptions {
  /** Source the Kustomizations read. Default `GitRepository/flux-system` (what `flux bootstrap` creates). */
  sourceRef?: FluxSourceRef;
  /** Namespace of the Kustomization objects. Default `flux-system`. */
  namespace?: string;
  /** Reconcile interval. Default `10m`. */
  interval?: string;
  /** Apply + health-check timeout. Default `10m`. */
  timeout?: string;
  /** Path of the output folder inside the source. Default `rendered`. */
  pathPrefix?: string;
  /**
   * Extra dependencies of the first Kustomization of the chain (cert-manager, or core when
   * cert-manager is not rendered) — e.g. the user's own cert-manager Kustomization. Default none.
   */
  dependsOn?: { name: string; namespace?: string }[];
  /**
   * Hub-and-spoke Flux: the Secret (in the Kustomizations' namespace) holding the kubeconfig of
   * this environment's management cluster; every Kustomization applies there. Default: the cluster
   * Flux runs in.
   */
  kubeConfig?: { secretRef: { name: string; key?: string } };
  /** Kustomizations apply (and health-check) as this ServiceAccount (see `capi-render rbac --applier`). Default: the controller's. */
  serviceAccountName?: string;
  /** Take the output from an OCI artifact `capi-render publish` pushed instead of `sourceRef`. */
  oci?: FluxOciOptions;
}

/**
 * The OCIRepository the flux flavour generates (gitless GitOps): the artifact `capi-render
 * publish --env <env> --oci <repository>/<env>:<tag>` pushed, pinned by `digest` when set.
 */
export interface FluxOciOptions {
  /** Registry and repository prefix, e.g. `ghcr.io/acme/capi-render`; the environment's artifact is `<repository>/<env>`. Required. */
  repository?: string;
  /** `sha256:…` as `publish` printed it: the source never moves until this changes. Default: follow `tag`. */
  digest?: string;
  /** Tag to follow when no digest is pinned. Default `latest`. */
  tag?: string;
  /** Plain-HTTP registry. Default false. */
  insecure?: boolean;
  /** `kubernetes.io/dockerconfigjson` Secret with pull credentials. */
  secretRef?: { name: string };
  /** How often source-controller checks the tag. Default the Kustomizations' interval. */
  interval?: string;
  /**
   * The artifact is signed (`capi-render publish --sign-key` or `--sign-keyless`): the OCIRepository
   * gets `spec.verify` (provider cosign) and Flux applies only what verifies. Default: no verification.
   */
  verify?: FluxOciVerifyOptions;
}

/**
 * How Flux verifies the artifact's cosign signature: exactly one of `key` (the public key in a
 * Secret, keys ending `.pub`) and `keyless` (the signer's OIDC issuer and identity in its Fulcio
 * certificate). Exact values are matched whole; the `…RegExp` forms are Go regular expressions
 * passed to Flux as they are (anchor them: Flux matches substrings).
 */
export interface FluxOciVerifyOptions {
  key?: { secretRef: { name: string } };
  keyless?: {
    issuer?: string;
    issuerRegExp?: string;
    identity?: string;
    identityRegExp?: string;
    /** A Secret with `trusted_root.json`, for a private Sigstore. Default: Sigstore's public-good instance. */
    trustedRootSecretRef?: { name: string };
  };
}

/** How the output is prepared for its GitOps consumer (see docs/rendering.md "Prepared for a GitOps consumer", docs/argocd.md and docs/flux.md). */
export interface GitopsConfig {
  flavour?: GitopsFlavour;
  protect?: { crds?: boolean; namespaces?: boolean };
  argocd?: ArgocdOptions;
  flux?: FluxOptions;
}

/** Options of {@link applyGitopsFlavour}; everything but `flavour` has a default. */
export interface GitopsOptions {
  flavour: GitopsFlavour;
  /** Argo CD: also emit Application(s)/ApplicationSet (default none). */
  argocd?: ArgocdOptions;
  /** Flux: the source the Kustomizations reference, their namespace, interval and timeout. */
  flux?: FluxOptions;
  /**
   * Keep CRDs and Namespaces from being pruned/deleted (default true for both): `clusterctl delete`
   * keeps them unless `--include-crd` / `--include-namespace` (cluster/components.go Delete), since
   * deleting a CRD deletes every object of it. Applies to every Namespace rendered, cert-manager's too.
   */
  protect?: { crds?: boolean; namespaces?: boolean };
  /** Extra template folder (the repository's `templates/`) overriding bundled templates by file name. */
  templatesDir?: string;
  /** Free metadata about the environment (cluster name, region…) available to templates. */
  labels?: Record<string, string>;
}

/** What the stage returns: the annotated environment, consumer files and warnings. */
export interface GitopsResult {
  /** The environment with its objects annotated; unchanged objects keep their identity. */
  environment: RenderedEnvironment;
  /**
   * Consumer files, paths relative to the output folder and `/`-separated. They live outside it,
   * under `../gitops/`, so no kustomization, Argo CD directory generator or Flux path ever
   * includes them by accident (see gitops/layout.ts).
   */
  extraFiles: Map<string, string>;
  warnings: Diagnostic[];
}

/** What a component folder is, for ordering: cert-manager first, then core, then every other provider. */
export type ComponentRole = 'cert-manager' | 'core' | 'provider';

/** Folder name of cert-manager when the render pipeline renders it. */
export const CERT_MANAGER_COMPONENT = 'cert-manager';
/** Folder name of the core provider: clusterctl's manifest label for core. */
export const CORE_COMPONENT = 'cluster-api';

/** The role of a component folder, from its name. */
export function componentRole(name: string): ComponentRole {
  if (name === CERT_MANAGER_COMPONENT) return 'cert-manager';
  if (name === CORE_COMPONENT) return 'core';
  return 'provider';
}

/** The cluster Argo CD runs in, as Argo CD names its API server. */
export const IN_CLUSTER = 'https://kubernetes.default.svc';

/** Options with every default filled in. */
export interface ResolvedGitopsOptions {
  flavour: GitopsFlavour;
  argocd: Required<Omit<ArgocdOptions, 'repoURL' | 'destination' | 'plugin' | 'hydrator' | 'oci'>> & {
    repoURL: string | undefined;
    destination: ArgocdDestination;
    /** Whether an overlay or capi-render.yaml named the destination (else it is the in-cluster default). */
    destinationSet: boolean;
    plugin: { name: string };
    hydrator: Required<Omit<ArgocdHydratorOptions, 'hydrateToBranch'>> & { hydrateToBranch: string | undefined };
    oci: ArgocdOciOptions | undefined;
  };
  flux: Required<Omit<FluxOptions, 'sourceRef' | 'kubeConfig' | 'serviceAccountName' | 'oci'>> & {
    sourceRef: FluxSourceRef;
    kubeConfig: FluxOptions['kubeConfig'];
    serviceAccountName: string | undefined;
    oci: FluxOciOptions | undefined;
  };
  protect: { crds: boolean; namespaces: boolean };
  templatesDir: string | undefined;
  labels: Record<string, string>;
}

/** Fills in the defaults documented on each option. Never mutates `options`. */
export function resolveGitopsOptions(options: GitopsOptions): ResolvedGitopsOptions {
  const a = options.argocd ?? {};
  const f = options.flux ?? {};
  return {
    flavour: options.flavour,
    argocd: {
      application: a.application ?? false,
      applicationSet: a.applicationSet ?? false,
      repoURL: a.repoURL,
      targetRevision: a.targetRevision ?? 'HEAD',
      project: a.project ?? 'default',
      destination:
        a.destination ?? (a.destinationServer !== undefined ? { server: a.destinationServer } : { server: IN_CLUSTER }),
      destinationSet: a.destination !== undefined || a.destinationServer !== undefined,
      destinationServer: a.destination?.server ?? a.destinationServer ?? (a.destination ? '' : IN_CLUSTER),
      source: a.source ?? 'path',
      plugin: { name: a.plugin?.name ?? 'capi-render' },
      hydrator: {
        targetBranch: a.hydrator?.targetBranch ?? 'capi-render-hydrated',
        pathPrefix: trimSlashes(a.hydrator?.pathPrefix ?? 'rendered'),
        hydrateToBranch: a.hydrator?.hydrateToBranch,
      },
      oci: a.oci,
      repoPath: trimSlashes(a.repoPath ?? '.'),
      namespace: a.namespace ?? 'argocd',
      pathPrefix: trimSlashes(a.pathPrefix ?? 'rendered'),
    },
    flux: {
      sourceRef: f.sourceRef ?? { kind: 'GitRepository', name: 'flux-system' },
      namespace: f.namespace ?? 'flux-system',
      interval: f.interval ?? '10m',
      timeout: f.timeout ?? '10m',
      pathPrefix: trimSlashes(f.pathPrefix ?? 'rendered'),
      dependsOn: f.dependsOn ?? [],
      kubeConfig: f.kubeConfig,
      serviceAccountName: f.serviceAccountName,
      oci: f.oci,
    },
    protect: { crds: options.protect?.crds ?? true, namespaces: options.protect?.namespaces ?? true },
    templatesDir: options.templatesDir,
    labels: { ...(options.labels ?? {}) },
  };
}

// `./rendered/` and `rendered` must give the same paths in Applications and Kustomizations.
function trimSlashes(p: string): string {
  return p.replace(/^(\.\/)+/, '').replace(/^\/+|\/+$/g, '') || '.';
}
