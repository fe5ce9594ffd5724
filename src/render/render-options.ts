/**
 * What a render is asked (RenderOptions) and what a collected render returns (RenderResult): the
 * library's contract, shared by render.ts and the streaming run (render-run.ts).
 */
import type { Diagnostic } from '../errors.js';
import type { OutputFiles } from '../plan/output-plan.js';
import type { ProviderValidator } from '../declarations/validate-providers.js';
import type { ProviderCatalog } from '../source/provider-source.js';
import type { LockState } from '../lock/lock-state.js';
import type { LockFile } from '../lock/lock-types.js';
import type { LockContradictionRule } from '../lock/lock-evidence.js';
import type { RenderConfig } from '../config/config-types.js';
import type { ArtifactCache } from '../source/artifact-cache.js';
import type { FetchProgressListener } from '../source/fetch-progress.js';
import type { FetchLike } from '../source/gitlab/gitlab-source.js';
import type { EnvironmentResult } from './environment-result.js';

/** What a render reads and how: the repository, which environments, the lock, the cache, the network. */
export interface RenderOptions {
  /** The repository to render (holds capi-render.yaml, providers/, overlays/). */
  repoRoot: string;
  /** Environments to render; default every environment. */
  environments?: readonly string[];
  /** `K/N`: render only the K-th of N deterministic shards of the environments (after `environments`). */
  shard?: string;
  /** The process environment, read only for variables mapped with `fromEnv`. Default: empty. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The lock to start from: versions it pins are reused where the inputs allow them, digests it
   * records are enforced; its text names a contradicted entry by its line. Default: none.
   */
  lock?: LockState;
  /**
   * An entry the inputs contradict (a version the spec does not allow): 'repair' re-resolves it with
   * a warning (build), 'refuse' fails naming the lock line and the input (check, --frozen). Default 'repair'.
   */
  lockContradictions?: LockContradictionRule;
  /**
   * `secrets.mode: sops`: verify the committed encrypted Secrets and keep them, never encrypt one
   * anew for want of a key (check). Default false: a build encrypts anew what it cannot prove
   * unchanged (secrets/sops/seal-environment.ts).
   */
  verifySopsRecords?: boolean;
  /** Content-addressed artifact cache for remote sources. Default: none. */
  cache?: ArtifactCache;
  /** Never open a network connection; fail naming what the cache lacks. Default: false. */
  offline?: boolean;
  /** Accept a lower minor version than the lock's. Default false (the operator's preflight rule). */
  allowDowngrade?: boolean;
  /** GitHub token (never printed). */
  githubToken?: string;
  /**
   * HTTP transport of every network source (GitHub, GitLab, OCI registries); the CLI passes the
   * proxy-aware fetch (source/http/network-fetch.ts). Requests carry the URLs the user wrote; tests
   * route them to a local server. Default: the global fetch.
   */
  fetch?: FetchLike;
  /** The clock saved release lists are stamped with (`plan --offline` reports their age). Default: the system clock. */
  now?: () => Date;
  /** Fetch progress events (the CLI shows them on a TTY). */
  onProgress?: FetchProgressListener;
  /**
   * Skip an environment whose inputs hash equals the lock's when this returns true for it: the
   * caller confirms that the output on disk is still exactly what a build wrote from that hash (see
   * output/output-fingerprint.ts). Skipped environments keep their files and lock entries. For
   * `build`; never for `check`. Default: render everything.
   */
  skipUnchanged?: (env: string, inputsHash: string) => boolean;
  /**
   * An absolute folder this command is about to fill as a local repository (`mirror --to`): a
   * `repositories:` path naming it may not exist yet. Default: none (every such path must exist).
   */
  fillingRepository?: string;
  /**
   * Images whose locked digest is resolved again from the registry (`upgrade --images`, `plan`'s
   * moved-tag check). Default: a locked digest is always used as it is.
   */
  refreshImages?: (image: string) => boolean;
  /** Overrides for tests and embedders. */
  catalog?: ProviderCatalog;
  validator?: ProviderValidator;
}

/** A collected render: every rendered environment's planned files and the lock it leaves, nothing written. */
export interface RenderResult {
  /** The repository's settings (capi-render.yaml with defaults). */
  config: RenderConfig;
  /** Absolute path of the output folder. */
  outputDir: string;
  /** Every environment that exists in the repository, sorted. */
  allEnvironments: string[];
  /** Environments skipped as unchanged (skipUnchanged); their files are not in `files`. */
  skipped: string[];
  /** The rendered environments, in name order. */
  environments: EnvironmentResult[];
  /** Files of the rendered environments, relative to outputDir. */
  files: OutputFiles;
  /** Absolute path of the GitOps consumer folder (Argo CD Applications, Flux Kustomizations). */
  gitopsDir: string;
  /** Consumer files of the rendered environments, relative to gitopsDir (empty for the kustomize flavour). */
  gitopsFiles: OutputFiles;
  /** The lock this build leaves behind (unrendered environments keep their entries). */
  lock: LockFile;
  warnings: Diagnostic[];
}
