/**
 * capi-render.yaml: repository-wide settings. Every field is optional; a repository without the file
 * renders with the defaults below.
 */

import type { GitopsConfig } from '../gitops/options.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import type { SecretsConfig } from '../secrets/secrets-config.js';
import type { BaselineId } from '../baseline/baseline.js';
import type { VariableValue } from '../process/variable-values/precedence.js';

export const CONFIG_API_VERSION = 'capi-render/v1alpha1';
export const CONFIG_FILE = 'capi-render.yaml';

export type { VariableValue };

export interface ImageOverrideConfig {
  repository?: string;
  name?: string;
  tag?: string;
}

/** Software bill of materials (docs/images.md "SBOM"). */
export interface SbomConfig {
  /** `build` writes `<env>/sbom.cdx.json` (CycloneDX 1.6) beside each environment's output; `check` compares it. Default false. */
  write?: boolean;
}

export interface LocalRepositoryConfig {
  /** Root of a clusterctl local repository (`<root>/<provider-label>/<version>/<file>`), relative to the repo. */
  path: string;
}

export interface GitHubConfig {
  /** REST API base URL for github.com. Default `https://api.github.com`. */
  apiUrl?: string;
  /** GitHub Enterprise Server origins accepted in provider URLs. */
  enterpriseHosts?: { origin: string; apiBaseUrl?: string }[];
}

/** GitLab generic-package sources (clusterctl's `gitlab-access-token`). */
export interface GitLabConfig {
  /**
   * The token for every GitLab provider URL, read from an environment variable (a token is never
   * written in a file). A provider's configSecret key `gitlab-access-token` wins over it, as in the
   * operator. Default: none (public projects only).
   */
  accessToken?: { fromEnv: string };
}

/** A provider-list entry, as in clusterctl.yaml `providers:`. */
export interface ProviderListEntry {
  name: string;
  type: string;
  url: string;
}

/** cert-manager, rendered as its own component the way `clusterctl init` installs it. */
export interface CertManagerConfig {
  /** Render cert-manager. `false` = bring your own. Default true. */
  install?: boolean;
  /** Exact version or a semver range. Default clusterctl's default (see CERT_MANAGER_DEFAULT_VERSION). */
  version?: string;
  /** Where releases come from (clusterctl's cert-manager `url`): a GitHub release URL or file:// local repository. */
  url?: string;
  /**
   * clusterctl v1.14's `cert-manager.externallyProvisioned` (#13739): cert-manager is installed by
   * something else, so it is not rendered (as `install: false`). Only with `emulate: clusterctl-v1.14`.
   */
  externallyProvisioned?: boolean;
}

export interface RenderConfig {
  /**
   * Which behaviour is reproduced where clusterctl v1.14 and cluster-api-operator v0.28 (clusterctl
   * v1.12.10) differ (src/baseline/baseline.ts). Default `clusterctl-v1.14`. Repository-wide: the
   * lock records one, and the provider list it selects is the whole build's.
   */
  emulate?: BaselineId;
  /** Local repositories searched, in order, for providers without a fetchConfig. Default: none. */
  repositories: LocalRepositoryConfig[];
  /** Variables for `${VAR}` substitution, lowest precedence (see docs/inputs-and-overlays.md "Variables"). Default: none. */
  variables: Record<string, VariableValue>;
  /** clusterctl `images:` overrides, keyed `all`, `<component>` or `<component>/<image>`. Default: none. */
  images: Record<string, ImageOverrideConfig>;
  /** Image pinning. Default: images are rendered as the providers ship them. */
  imagePolicy: ImagePolicyConfig;
  /** cert-manager settings. Default: installed, clusterctl's default version. */
  certManager: CertManagerConfig;
  /** SBOM settings. Default: no SBOM file in the output (`capi-render sbom` prints one). */
  sbom?: SbomConfig;
  /** GitHub settings. Default: github.com. */
  github: GitHubConfig;
  /** GitLab settings. Default: no token. */
  gitlab: GitLabConfig;
  /** The secret guard. Default: fail when a secret value would be written. */
  secrets: SecretsConfig;
  /** GitOps flavour of the output. Default: plain kustomize. */
  gitops: GitopsConfig;
  /** Folder for GitOps consumer files (Argo CD Applications, Flux Kustomizations). Default `gitops`. */
  gitopsDir: string;
  /** Folder of user templates overriding the bundled ones. Default `templates`. */
  templatesDir: string;
  /** Entries added to (or replacing, by name+type) clusterctl's built-in provider list. Default: none. */
  providers: ProviderListEntry[];
  /** Folder of provider CRs. Default `providers`. */
  providersDir: string;
  /** Folder of environment overlays. Default `overlays`. */
  overlaysDir: string;
  /** Folder the rendered output is written to. Default `rendered`. */
  outputDir: string;
}

export const DEFAULT_CONFIG: RenderConfig = {
  repositories: [],
  variables: {},
  images: {},
  imagePolicy: {},
  certManager: {},
  github: {},
  gitlab: {},
  gitops: {},
  secrets: {},
  gitopsDir: 'gitops',
  templatesDir: 'templates',
  providers: [],
  providersDir: 'providers',
  overlaysDir: 'overlays',
  outputDir: 'rendered',
};
