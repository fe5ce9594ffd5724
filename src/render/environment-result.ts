/**
 * The shapes an environment's render takes and returns: its composed inputs, what was resolved for
 * each provider, and the rendered environment with everything the lock and the reports read.
 */
import type { Diagnostic } from '../errors.js';
import type { InputSet } from '../declarations/inputs.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import type { CertManagerConfig, VariableValue } from '../config/config-types.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import type { ImageOverrides } from '../process/image-overrides.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import type { ReleaseSource } from '../source/release-source.js';
import type { LockedVerification } from '../lock/lock-types.js';
import type { RegistryPolicy } from '../images/image-resolver.js';
import type { GitopsFlavour } from '../gitops/options.js';
import type { RequiredSecret } from '../secrets/secret-guard.js';
import type { RenderedCertManager } from './cert-manager.js';
import type { CommittedEnvironment } from '../plan/committed-output.js';

/** One environment's composed inputs and effective settings, as renderEnvironment takes them. */
export interface EnvironmentInputs {
  name: string;
  inputs: InputSet;
  /** The overlay's `variables:` (empty without overlays). */
  variables: Record<string, VariableValue>;
  /** Effective cert-manager settings (capi-render.yaml, then the overlays). */
  certManager: CertManagerConfig;
  /** The overlay's `images:` on top of capi-render.yaml's. */
  images: ImageOverrides;
  /** Effective imagePolicy (capi-render.yaml, then the overlays, field by field). */
  imagePolicy: ImagePolicyConfig;
  /** Free metadata about the environment (overlay `labels:`), for templates. */
  labels?: Record<string, string>;
  /** The overlay file, for messages. */
  file?: string;
  /** The overlay chain, base first (where a setting such as imagePolicy.verify may come from). */
  overlays?: readonly string[];
  /** Its committed output, what Argo CD / Flux applies (the guards read it); undefined when it has none. */
  committed?: CommittedEnvironment | undefined;
}

/** What was resolved for one provider: the lock and reports are built from this. */
export interface ResolvedProvider {
  cr: ProviderCR;
  label: string;
  version: string;
  contract: string;
  sourceId: string;
  /**
   * The source the provider was resolved from, wrapped by the build's lock, cache and offline rules
   * (so `plan` lists versions and reads metadata the way the build fetched).
   */
  source: ReleaseSource;
  artifacts: { file: string; url: string; sha256: string }[];
  /** The release files as fetched (shared with the build's artifact store), for `mirror`. */
  files: { componentsFile: string; components: string; metadata: string };
  variables: string[];
  secretVariables: string[];
}

/** One rendered environment: its objects by component, the resolved providers, pins and warnings. */
export interface EnvironmentResult {
  environment: RenderedEnvironment;
  /** The GitOps flavour its output is prepared for (set by render() after the GitOps stage). */
  gitopsFlavour?: GitopsFlavour;
  /** Its overlay's free `labels:` metadata (set by render()). */
  labels?: Record<string, string>;
  providers: ResolvedProvider[];
  /** Present unless certManager.install is false. */
  certManager?: RenderedCertManager;
  /** Its committed output as the render read it (EnvironmentInputs.committed), for the guards of a printed stream. */
  committed?: CommittedEnvironment | undefined;
  /** Secrets the secret guard left out (mode omit), to be created out-of-band. */
  requiredSecrets: RequiredSecret[];
  /** Images pinned to a digest (imagePolicy.pinDigests), sorted by reference: [image, digest]. Empty when pinning is off. */
  pinnedImages: [string, string][];
  /** What each pinned image's signature passed (imagePolicy.verify), by image reference. */
  imageVerifications: Record<string, LockedVerification>;
  /**
   * Pinned image reference → what capi-render.lock knows it by (the reference its provider releases,
   * before `images:` overrides), where that differs; absent ones are their own key ({@link lockKeyOf}).
   */
  imageKeys?: Record<string, string>;
  /** How its registries are reached, when it pins (for `plan`'s moved-tag check). Holds credentials: never printed. */
  imageRegistries?: RegistryPolicy;
  warnings: Diagnostic[];
}

/** The lock key of an image `r` pinned (as rendered, without its digest). */
export function lockKeyOf(r: Pick<EnvironmentResult, 'imageKeys'>, image: string): string {
  return r.imageKeys?.[image] ?? image;
}
