/**
 * The Flux flavour (GITOPS-CONSUMERS §2): prune protection for CRDs and Namespaces, and one Flux
 * Kustomization per component chained with dependsOn — cert-manager ← core ← every other provider —
 * each with `wait: true`, so a Certificate is never applied before cert-manager's webhook serves
 * and no provider before core's CRDs and webhooks are ready (Flux cannot order that inside one
 * Kustomization: its server-side dry run of a Certificate needs the webhook, §2.2).
 */
import { warning, type Diagnostic } from '../errors.js';
import type { JsonObject, KubeObject } from '../manifest/object.js';
import type { RenderedEnvironment } from '../output/plan.js';
import { joinDocuments, serializeObject } from '../manifest/serialize.js';
import { kustomizationText } from '../output/plan.js';
import { DISABLED, FLUX_PRUNE, withAnnotation } from './annotations.js';
import { FLUX_KUSTOMIZATIONS_FILE, fluxFolder, joinRepoPath, objectNameFrom } from './layout.js';
import { componentRole, type ResolvedGitopsOptions } from './options.js';

/** The GA Flux Kustomization API (kustomize-controller v1.0+). */
export const FLUX_KUSTOMIZATION_API_VERSION = 'kustomize.toolkit.fluxcd.io/v1';

/** Flux writes the Kustomization name into a label value, which is limited to 63 characters. */
const MAX_NAME_LENGTH = 63;

/** Annotates one object for Flux: `prune: disabled` on CRDs and Namespaces when they are protected. */
export function annotateForFlux(obj: KubeObject, protect: ResolvedGitopsOptions['protect']): KubeObject {
  if ((obj.kind === 'CustomResourceDefinition' && protect.crds) || (obj.kind === 'Namespace' && protect.namespaces)) {
    return withAnnotation(obj, FLUX_PRUNE, DISABLED);
  }
  return obj;
}

/** The Flux Kustomization name of a component: `capi-<env>-<component>` in object-name form. */
export function fluxKustomizationName(env: string, component: string): string {
  return `capi-${objectNameFrom(env)}-${objectNameFrom(component)}`;
}

/**
 * The Kustomization objects of an environment, in the environment's component order. Each depends
 * on the stages before it: core on cert-manager; every other provider on core and on cert-manager
 * (explicitly, not only through core, so removing core from an environment cannot silently drop
 * the cert-manager gate). `flux.dependsOn` is given to every root of the chain (cert-manager, or core without it).
 */
export function fluxKustomizations(env: RenderedEnvironment, options: ResolvedGitopsOptions): { objects: KubeObject[]; warnings: Diagnostic[] } {
  const f = options.flux;
  const names = new Map(env.components.map((c) => [c.name, fluxKustomizationName(env.name, c.name)]));
  const certManager = env.components.find((c) => componentRole(c.name) === 'cert-manager');
  const core = env.components.find((c) => componentRole(c.name) === 'core');
  const extra = f.dependsOn.map((d): JsonObject => (d.namespace ? { name: d.name, namespace: d.namespace } : { name: d.name }));
  const sourceRef: JsonObject = { kind: f.sourceRef.kind, name: f.sourceRef.name };
  if (f.sourceRef.namespace) sourceRef.namespace = f.sourceRef.namespace;
  const warnings: Diagnostic[] = [];
  const objects = env.components.map((component): KubeObject => {
    const role = componentRole(component.name);
    const upstream = role === 'cert-manager' ? [] : role === 'core' ? [certManager] : [certManager, core];
    const dependsOn = upstream.filter((c) => c !== undefined).map((c): JsonObject => ({ name: names.get(c.name)! }));
    const name = names.get(component.name)!;
    if (name.length > MAX_NAME_LENGTH) {
      warnings.push(
        warning('gitops', `Flux Kustomization name ${name} is longer than ${MAX_NAME_LENGTH} characters; Flux cannot label the objects it applies with it`, {
          object: `Kustomization/${f.namespace}/${name}`,
          hint: 'use a shorter environment name',
        }),
      );
    }
    const spec: JsonObject = {
      interval: f.interval,
      path: `./${joinRepoPath(f.pathPrefix, env.name, component.name)}`,
      prune: true,
      sourceRef,
      timeout: f.timeout,
      wait: true,
    };
    // A Kustomization with no upstream inside the environment is a root of the chain.
    const allDeps = dependsOn.length === 0 ? extra : dependsOn;
    if (allDeps.length > 0) spec.dependsOn = allDeps;
    return { apiVersion: FLUX_KUSTOMIZATION_API_VERSION, kind: 'Kustomization', metadata: { name, namespace: f.namespace }, spec };
  });
  return { objects, warnings };
}

/** The files of the Flux kit: the Kustomizations as one multi-document file plus a kustomization.yaml listing it. */
export function fluxExtraFiles(env: RenderedEnvironment, options: ResolvedGitopsOptions): { files: [string, string][]; warnings: Diagnostic[] } {
  const { objects, warnings } = fluxKustomizations(env, options);
  if (objects.length === 0) return { files: [], warnings };
  const folder = fluxFolder(env.name);
  return {
    files: [
      [`${folder}/${FLUX_KUSTOMIZATIONS_FILE}`, joinDocuments(objects.map((o) => serializeObject(o)))],
      [`${folder}/kustomization.yaml`, kustomizationText([FLUX_KUSTOMIZATIONS_FILE])],
    ],
    warnings,
  };
}
