/**
 * `overlays/<env>/overlay.yaml`: one environment (management cluster), built kustomize-style on top of
 * bases. Field names follow kustomize where the meaning is the same (`resources`, `patches`, `target`);
 * the rest are capi-render's.
 */
import type { CertManagerConfig, ImageOverrideConfig, VariableValue } from '../config/config-types.js';
import type { GitopsConfig } from '../gitops/options.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import type { PatchTarget } from '../declarations/provider-spec.js';

export const OVERLAY_API_VERSION = 'capi-render/v1alpha1';
export const OVERLAY_FILE = 'overlay.yaml';

/**
 * kustomize's patch target: the fields of the operator's patch target (group/version exact; kind,
 * name, namespace here anchored regular expressions) plus an annotation selector.
 */
export interface OverlayPatchTarget extends PatchTarget {
  annotationSelector?: string;
}

export interface OverlayPatch {
  /** Inline patch: a strategic-merge document (a mapping) or an RFC 6902 operation list. */
  patch?: string;
  /** A file holding the patch, relative to the overlay folder. */
  path?: string;
  target?: OverlayPatchTarget;
}

export interface OverlaySpec {
  apiVersion: typeof OVERLAY_API_VERSION;
  kind: 'Overlay';
  /** A base for other overlays only, not an environment of its own. Default false. */
  abstract?: boolean;
  /** Bases: folders or files of inputs, or other overlays' folders. Default: the repository's providers folder. */
  resources?: string[];
  patches?: OverlayPatch[];
  variables?: Record<string, VariableValue>;
  images?: Record<string, ImageOverrideConfig>;
  /** Overrides capi-render.yaml's imagePolicy for this environment (field by field). */
  imagePolicy?: ImagePolicyConfig;
  /** Free metadata about the environment (cluster name, region …) for templates. */
  labels?: Record<string, string>;
  /** Overrides capi-render.yaml's certManager settings for this environment (field by field). */
  certManager?: CertManagerConfig;
  /** Overrides capi-render.yaml's gitops settings for this environment (flavour, Argo CD / Flux options). */
  gitops?: GitopsConfig;
}
