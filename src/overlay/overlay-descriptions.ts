/**
 * What each setting of overlay.yaml means, by its path in OVERLAY_SCHEMA (as config-descriptions.ts
 * for capi-render.yaml, whose texts the shared blocks use). Read only by the generated JSON Schema
 * for editors and the reference; the loader validates with OVERLAY_SCHEMA alone.
 */

/** Setting path → text, for overlay.yaml's own settings and where a shared one means something else here. */
export const OVERLAY_DESCRIPTIONS: Record<string, string> = {
  apiVersion: 'Always capi-render/v1alpha1.',
  kind: 'Always Overlay.',
  abstract:
    'This overlay is a base for other overlays, not an environment: nothing is rendered for its folder. Default false.',
  resources:
    "Bases, in kustomize's sense: folders or files of inputs (provider CRs, ConfigMaps, Secrets), or the folders of other overlays, relative to this file. Default [../../providers].",
  patches:
    'Patches on the provider CRs of the bases, applied in order: RFC 6902 JSON patches or strategic-merge patches (maps merge, lists are replaced whole, null deletes; $patch: delete removes the object).',
  'patches[].patch':
    'The patch, inline: a JSON 6902 operation list, or a strategic-merge patch naming its object by apiVersion, kind and name.',
  'patches[].path': 'The patch in a file, relative to this overlay.yaml.',
  'patches[].target':
    'Which objects the patch applies to; without it, a strategic-merge patch names its own object. A patch that matches nothing is an error.',
  'patches[].target.group': 'API group, e.g. operator.cluster.x-k8s.io.',
  'patches[].target.version': 'API version, e.g. v1alpha2.',
  'patches[].target.kind': 'Kind, an anchored regular expression, e.g. CoreProvider|BootstrapProvider.',
  'patches[].target.name': 'Name, an anchored regular expression.',
  'patches[].target.namespace': 'Namespace, an anchored regular expression.',
  'patches[].target.labelSelector': 'A Kubernetes label selector, e.g. tier=infra,env!=dev.',
  'patches[].target.annotationSelector': 'A Kubernetes selector over annotations.',
  variables:
    "Values for ${VAR} substitution in this environment, the highest precedence (the innermost overlay first); override the bases' key by key.",
  images:
    "clusterctl image overrides for this environment, keyed all, <component> or <component>/<image>; override the bases' and capi-render.yaml's key by key.",
  imagePolicy: "Image pinning and verification for this environment, overriding capi-render.yaml's field by field.",
  labels:
    "Free metadata about the environment (cluster name, region…) for the templates; override the bases' key by key.",
  certManager: "cert-manager for this environment, overriding capi-render.yaml's key by key.",
  gitops:
    "The GitOps settings of this environment, overriding capi-render.yaml's key by key (e.g. flavour, or Argo CD's destination).",
};
