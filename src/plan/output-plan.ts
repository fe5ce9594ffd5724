/**
 * Turns rendered components into the exact bytes of the output tree, without touching the disk:
 * `<env>/<component>/<kind>-<name>.yaml`, a sorted `kustomization.yaml` in every component folder,
 * and one at `<env>/` listing the components in install order.
 */
import type { KubeObject } from '../manifest/object.js';
import { sortObjects } from '../manifest/order.js';
import { createCachedSerializer, serializeObject, type CachedSerializer } from '../manifest/serialize.js';
import { assertSafeSegment, assignFileNames } from './file-names.js';

/** The objects of one deployable folder (cert-manager, cluster-api, bootstrap-kubeadm, …). */
export interface RenderedComponent {
  /** Folder name: clusterctl's manifest label, or `cert-manager`. */
  name: string;
  objects: readonly KubeObject[];
}

export interface RenderedEnvironment {
  name: string;
  /** In install order; the root kustomization lists them in this order. */
  components: readonly RenderedComponent[];
}

/** Path (relative to the output folder, `/`-separated) → file text. Insertion order is path order. */
export type OutputFiles = Map<string, string>;

const KUSTOMIZATION_HEAD = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n';

/** Renders a kustomization.yaml listing `resources` in the given order. */
export function kustomizationText(resources: readonly string[]): string {
  return KUSTOMIZATION_HEAD + resources.map((r) => `- ${r}\n`).join('');
}

/**
 * The files of one environment. Objects inside a component are written in apply order and listed
 * in that order by its kustomization.yaml. Serialisation is cached (by identity, then by content),
 * so objects shared between environments are serialised once.
 */
export function planEnvironment(
  env: RenderedEnvironment,
  serializer: CachedSerializer = createCachedSerializer(),
): OutputFiles {
  assertSafeSegment(env.name, 'environment name');
  const files: [string, string][] = [];
  for (const component of env.components) {
    assertSafeSegment(component.name, 'component name');
    const sorted = sortObjects(component.objects.map((object) => ({ object }))).map((x) => x.object);
    const names = assignFileNames(sorted, `${env.name}/${component.name}`);
    sorted.forEach((obj, i) => {
      files.push([`${env.name}/${component.name}/${names[i]}`, serializer.serialize(obj)]);
    });
    files.push([`${env.name}/${component.name}/kustomization.yaml`, kustomizationText(names)]);
  }
  files.push([`${env.name}/kustomization.yaml`, kustomizationText(env.components.map((c) => c.name))]);
  files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(files);
}

/** Objects of an environment as one multi-document stream, components in order (for --stdout). */
export function environmentStream(env: RenderedEnvironment): string {
  const docs: string[] = [];
  for (const component of env.components) {
    for (const { object } of sortObjects(component.objects.map((object) => ({ object }))))
      docs.push(serializeObject(object));
  }
  return docs.join('---\n');
}
