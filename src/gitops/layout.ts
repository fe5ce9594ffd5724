/**
 * Where the consumer files go, relative to the output folder (`rendered/` by default):
 *
 *   ../gitops/argocd/applicationset.yaml               one ApplicationSet over the Argo CD environments
 *   ../gitops/argocd/applications/<env>.yaml           one Application per environment
 *   ../gitops/flux/<env>/kustomization.yaml            resources: [flux-kustomizations.yaml]
 *   ../gitops/flux/<env>/flux-kustomizations.yaml      the Flux Kustomizations, one per component
 *   ../gitops/flux/<env>/oci-repository.yaml           the OCIRepository, with gitops.flux.oci
 *
 * Design notes: docs/internals.md "gitops/layout.ts".
 */

/** The folder of the consumer files, relative to the output folder. */
export const GITOPS_ROOT = '../gitops';

/** `../gitops/argocd/applicationset.yaml` — one ApplicationSet listing every Argo CD environment. */
export function applicationSetPath(): string {
  return `${GITOPS_ROOT}/argocd/applicationset.yaml`;
}

/** `../gitops/argocd/applications/<env>.yaml`. */
export function applicationPath(env: string): string {
  return `${GITOPS_ROOT}/argocd/applications/${env}.yaml`;
}

/** `../gitops/flux/<env>/` — a self-contained kustomize root holding the environment's Flux Kustomizations. */
export function fluxFolder(env: string): string {
  return `${GITOPS_ROOT}/flux/${env}`;
}

/** The multi-document file of Flux Kustomizations inside {@link fluxFolder}. */
export const FLUX_KUSTOMIZATIONS_FILE = 'flux-kustomizations.yaml';

/** The environment's OCIRepository inside {@link fluxFolder}, when its output comes from an OCI artifact. */
export const FLUX_OCI_REPOSITORY_FILE = 'oci-repository.yaml';

/** Joins repository-relative path parts with `/`, dropping empty and `.` parts. */
export function joinRepoPath(...parts: string[]): string {
  return parts
    .flatMap((p) => p.split('/'))
    .filter((p) => p !== '' && p !== '.')
    .join('/');
}

/**
 * A Kubernetes object name derived from an environment or component folder name: lower case,
 * characters outside `[a-z0-9-]` replaced by `-`, no leading or trailing `-`. Folder names are
 * already `[A-Za-z0-9._-]` (plan/file-names.ts), so this only changes case, `.` and `_`.
 */
export function objectNameFrom(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Whether an existing gitops file belongs to environment `env` (replaced or removed when that
 * environment is built). The ApplicationSet lists every Argo CD environment and is recomputed by
 * every build, so it belongs to all of them.
 */
export function isGitopsFileOf(relative: string, env: string): boolean {
  return (
    relative === `argocd/applications/${env}.yaml` ||
    relative.startsWith(`flux/${env}/`) ||
    relative === 'argocd/applicationset.yaml' ||
    relative === `secrets/${env}.required.yaml`
  );
}
