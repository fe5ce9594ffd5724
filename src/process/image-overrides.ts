/**
 * clusterctl's `images:` overrides (cmd/clusterctl/client/config/imagemeta_client.go, applied by
 * cmd/clusterctl/internal/util/objs.go `FixImages`), and the image list clusterctl reports.
 *
 * Design notes: docs/internals.md "process/image-overrides.ts".
 */
import { SpecError, error, peerWording, throwIfErrors, type Diagnostic } from '../errors.js';
import {
  describeObject,
  getIn,
  isJsonObject,
  nameOf,
  setIn,
  type JsonValue,
  type KubeObject,
} from '../manifest/object.js';
import { formatImageReference, parseImageReference } from './image-reference.js';

/** One `images:` value; empty or absent fields leave that part of the image alone. */
export interface ImageOverride {
  /** Registry and path that replace everything before the image's last segment; one trailing `/` is trimmed. */
  repository?: string;
  /** Replaces the image's last path segment (clusterctl v1.13+, #13014; the operator's clusterctl v1.12.10 drops it: see imageNameProblems). */
  name?: string;
  /** Replaces the tag; a digest in the image is kept next to it. */
  tag?: string;
}

/** `images:` keyed by `all`, `<component>` or `<component>/<image name>`. */
export type ImageOverrides = Record<string, ImageOverride>;

/** Which of clusterctl's two passes to reproduce; see the module comment. */
export type ImageOverrideMode = 'strict' | 'tolerant';

const WORKLOAD_KINDS: ReadonlySet<string> = new Set(['Deployment', 'DaemonSet']);
const CONTAINER_LISTS = ['containers', 'initContainers'] as const;
const OVERRIDE_FIELDS: ReadonlySet<string> = new Set(['repository', 'name', 'tag']);

/**
 * The override that applies to image `imageName` (its last path segment) of `component` (a
 * manifest label such as `cluster-api`, `bootstrap-kubeadm`, `infrastructure-docker`, or
 * `cert-manager`): the field-wise union of `all`, then `<component>`, then
 * `<component>/<imageName>`, a later non-empty field winning. clusterctl also caches the
 * component-level union after mutating it with the per-image entry, but under a key no lookup
 * ever reads, so that quirk has no visible effect and is not reproduced. Pure.
 */
export function resolveImageOverride(overrides: ImageOverrides, component: string, imageName: string): ImageOverride {
  const result: ImageOverride = {};
  for (const key of ['all', component, `${component}/${imageName}`]) {
    const entry = overrides[key];
    if (entry === undefined) continue;
    for (const field of ['repository', 'name', 'tag'] as const) {
      const value = entry[field];
      if (value !== undefined && value !== '') result[field] = value;
    }
  }
  return result;
}

/**
 * Rewrites the images of every Deployment and DaemonSet (containers, then initContainers; other
 * kinds are never touched) by {@link resolveImageOverride}. Returns a new array: unchanged objects
 * are the same references, changed workloads are new objects; inputs are never mutated.
 * Throws SpecError `image` naming the workload (`Kind/ns/name`), the container and the image
 * for an image that does not parse (in `tolerant` mode, only for images that are not merely
 * non-canonical), and for a malformed `overrides` entry (all of those collected).
 */
export function applyImageOverrides(
  objects: readonly KubeObject[],
  component: string,
  overrides: ImageOverrides,
  mode: ImageOverrideMode,
): KubeObject[] {
  throwIfErrors(checkOverrides(overrides));
  return objects.map((object) => {
    if (!WORKLOAD_KINDS.has(object.kind)) return object;
    let result = object;
    for (const list of CONTAINER_LISTS) {
      const path = ['spec', 'template', 'spec', list];
      const containers = getIn(object, path);
      if (!Array.isArray(containers)) continue;
      containers.forEach((container, index) => {
        if (!isJsonObject(container)) return;
        const image = typeof container.image === 'string' ? container.image : '';
        const altered = alterImage(image, component, overrides, mode, () => ({
          object,
          field: `${path.join('.')}[${index}].image`,
          container: container.name,
        }));
        if (altered !== image) result = setIn(result, [...path, index, 'image'], altered);
      });
    }
    return result;
  });
}

/**
 * Every image of every Deployment and DaemonSet (containers and initContainers), sorted and
 * unique, for reports; containers without an image are skipped. Pure.
 */
export function listImages(objects: readonly KubeObject[]): string[] {
  const images = new Set<string>();
  for (const object of objects) {
    if (!WORKLOAD_KINDS.has(object.kind)) continue;
    for (const list of CONTAINER_LISTS) {
      const containers = getIn(object, ['spec', 'template', 'spec', list]);
      if (!Array.isArray(containers)) continue;
      for (const container of containers) {
        if (isJsonObject(container) && typeof container.image === 'string' && container.image !== '')
          images.add(container.image);
      }
    }
  }
  return [...images].sort();
}

/**
 * Where `images:` sends each of `released` (the images an artifact itself names): the rendered
 * reference → the released references that became it. An image no override touches maps to itself;
 * one that does not parse is left out (the override steps report it). What a verify rule matches
 * against, so a rule written for the names a provider releases still applies to its mirror, and
 * what the lock keys a pinned image by (images/pin-images.ts lockKey). Pure.
 */
export function imageOrigins(
  released: readonly string[],
  component: string,
  overrides: ImageOverrides,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const image of released) {
    let rendered: string;
    try {
      rendered = alterImage(image, component, overrides, 'tolerant', () => ({
        object: { apiVersion: 'v1', kind: 'Pod', metadata: {} },
        field: '',
        container: undefined,
      }));
    } catch {
      continue;
    }
    const list = out.get(rendered) ?? [];
    if (!list.includes(image)) list.push(image);
    out.set(rendered, list);
  }
  return out;
}

interface ImageSite {
  object: KubeObject;
  field: string;
  container: JsonValue | undefined;
}

/**
 * How clusterctl's NewComponents wraps an image it cannot parse (components.go, then
 * internal/util/objs.go FixImages: its workload, its container list, its container), spelt as it
 * spells them — `deamonSet` included; '' for a site that is no Deployment or DaemonSet container.
 */
function fixImagesChain(where: ImageSite): string {
  const workload =
    where.object.kind === 'Deployment' ? 'deployment' : where.object.kind === 'DaemonSet' ? 'deamonSet' : undefined;
  if (workload === undefined || typeof where.container !== 'string') return '';
  const list = where.field.includes('initContainers') ? 'failed to fix init containers' : 'failed to fix containers';
  return `failed to apply image overrides: failed to fix containers in ${workload} ${nameOf(where.object)}: ${list}: failed to fix image for container ${where.container}: `;
}

function alterImage(
  text: string,
  component: string,
  overrides: ImageOverrides,
  mode: ImageOverrideMode,
  site: () => ImageSite,
): string {
  const parsed = parseImageReference(text);
  if (parsed.kind === 'not-canonical' && mode === 'tolerant') return text;
  if (parsed.kind !== 'ok') {
    const where = site();
    const hint =
      parsed.kind === 'not-canonical'
        ? `write the fully qualified form ${JSON.stringify(parsed.normalized)} (clusterctl requires it)`
        : 'fix the image reference, e.g. with a patch or spec.deployment.containers[].imageUrl';
    throw new SpecError(
      error(
        'image',
        peerWording(
          'clusterctl',
          `${fixImagesChain(where)}couldn't parse image name: ${parsed.reason}`,
          `${describeObject(where.object)} container ${JSON.stringify(where.container ?? '')} image ${JSON.stringify(text)}`,
        ),
        {
          object: describeObject(where.object),
          field: where.field,
          hint,
        },
      ),
    );
  }
  const override = resolveImageOverride(overrides, component, parsed.image.name);
  if (override.repository === undefined && override.name === undefined && override.tag === undefined) return text;
  return formatImageReference({
    repository: override.repository === undefined ? parsed.image.repository : override.repository.replace(/\/$/, ''),
    name: override.name ?? parsed.image.name,
    tag: override.tag ?? parsed.image.tag,
    digest: parsed.image.digest,
  });
}

/**
 * `images.<key>.name` where the emulated clusterctl cannot rename images: the field arrived in
 * cluster-api v1.13 (#13014, imagemeta_client.go `Name`), and the clusterctl v1.12.10 the operator
 * runs drops it while decoding, so the operator would pull the original name. An error for each such
 * entry (code `image`), at `where`; a rename the output could not honour is never silently dropped.
 */
export function imageNameProblems(
  overrides: ImageOverrides,
  where: { file: string; object?: string },
  baselineTitle: string,
): Diagnostic[] {
  return Object.entries(overrides)
    .filter(([, entry]) => isJsonObject(entry as JsonValue) && typeof entry.name === 'string' && entry.name !== '')
    .map(([key]) =>
      error(
        'image',
        `images.${key}.name renames an image, which ${baselineTitle} does not do (the field came with clusterctl v1.13, cluster-api #13014)`,
        {
          ...where,
          field: `images.${key}.name`,
          hint: 'mirror the image under its own name and override only repository and tag, or set emulate: clusterctl-v1.14 in capi-render.yaml',
        },
      ),
    );
}

/**
 * clusterctl decodes `images:` into `{repository, name, tag}` strings and fails on anything else;
 * unknown fields, which it drops silently, are rejected here so a typo such as `registry:` is seen.
 */
function checkOverrides(overrides: ImageOverrides): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const [key, entry] of Object.entries(overrides as Record<string, unknown>)) {
    if (!isJsonObject(entry)) {
      problems.push(
        error('image', `images.${key} must be a map of repository, name and tag`, { field: `images.${key}` }),
      );
      continue;
    }
    for (const [field, value] of Object.entries(entry as Record<string, unknown>)) {
      if (!OVERRIDE_FIELDS.has(field)) {
        problems.push(
          error('image', `images.${key}.${field} is not an image override field`, {
            field: `images.${key}.${field}`,
            hint: 'use repository, name or tag',
          }),
        );
      } else if (typeof value !== 'string') {
        problems.push(error('image', `images.${key}.${field} must be a string`, { field: `images.${key}.${field}` }));
      }
    }
  }
  return problems;
}
