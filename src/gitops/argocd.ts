/**
 * The Argo CD flavour: sync waves so cert-manager, core and the other
 * providers install in clusterctl's order, ServerSideApply where client-side apply cannot work,
 * prune/delete protection for CRDs and Namespaces. The optional Application/ApplicationSet are in
 * argocd-applications.ts.
 */
import { warning, type Diagnostic } from '../errors.js';
import { annotationsOf, describeObject, type KubeObject } from '../manifest/object.js';
import { ARGOCD_SYNC_OPTIONS, ARGOCD_SYNC_WAVE, mergeSyncOptions, withAnnotation } from './annotations.js';
import { lastAppliedSize, SSA_SIZE_THRESHOLD } from './last-applied-size.js';
import { objectNameFrom } from './layout.js';
import type { ComponentRole, ResolvedGitopsOptions } from './options.js';

/**
 * Waves per component role, as strings (Argo CD reads the annotation as a string). Gaps leave
 * room for users' own waves; user content (ClusterClasses, Clusters) belongs at 0 or later. Every
 * non-core provider shares one wave, so they install in parallel as `clusterctl init` does.
 * Objects a provider's `spec.additionalManifests` added sit in that provider's folder with its
 * labels, so they get its wave: after processing they cannot be told apart from the artifact's.
 */
export const ARGOCD_WAVES: Readonly<Record<ComponentRole, string>> = {
  'cert-manager': '-30',
  core: '-20',
  provider: '-10',
};

const SERVER_SIDE_APPLY = 'ServerSideApply=true';
const PROTECTED = ['Prune=false', 'Delete=false'];

/**
 * Annotates one object for Argo CD. Keeps an existing sync-wave (a user patch put it there); merges
 * sync options into an existing list. The wave depends only on the component's role, so an object
 * shared by several environments is annotated identically in all of them.
 */
export function annotateForArgocd(
  obj: KubeObject,
  role: ComponentRole,
  protect: ResolvedGitopsOptions['protect'],
): { object: KubeObject; warnings: Diagnostic[] } {
  let out = obj;
  if (typeof annotationsOf(out)[ARGOCD_SYNC_WAVE] !== 'string')
    out = withAnnotation(out, ARGOCD_SYNC_WAVE, ARGOCD_WAVES[role]);
  const add: string[] = [];
  if (obj.kind === 'CustomResourceDefinition') {
    // Every CRD, not only the big ones: CRDs grow between releases, and SSA also avoids the
    // three-way-merge surprises client-side apply has with schema lists.
    add.push(SERVER_SIDE_APPLY);
    if (protect.crds) add.push(...PROTECTED);
  } else {
    if (obj.kind === 'Namespace' && protect.namespaces) add.push(...PROTECTED);
    if (lastAppliedSize(out) >= SSA_SIZE_THRESHOLD) add.push(SERVER_SIDE_APPLY);
  }
  if (add.length === 0) return { object: out, warnings: [] };
  const existing = annotationsOf(out)[ARGOCD_SYNC_OPTIONS];
  const merged = mergeSyncOptions(typeof existing === 'string' ? existing : undefined, add);
  const warnings = merged.conflicts.map((c) =>
    warning(
      'gitops',
      `${describeObject(obj)} already sets ${ARGOCD_SYNC_OPTIONS}: ${existing}; kept it instead of ${c}`,
      {
        object: describeObject(obj),
        field: `metadata.annotations["${ARGOCD_SYNC_OPTIONS}"]`,
        hint: 'remove the conflicting option from the patch that adds it if the default is wanted',
      },
    ),
  );
  return { object: withAnnotation(out, ARGOCD_SYNC_OPTIONS, merged.value), warnings };
}

/** The application name for an environment: `capi-<env>` in object-name form. */
export function argocdApplicationName(env: string): string {
  return `capi-${objectNameFrom(env)}`;
}
