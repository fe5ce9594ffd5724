/**
 * The images an environment's output runs, for `capi-render images` and the report: each distinct
 * reference once, with its digest (when pinned or written with one), and who uses it. Like
 * `clusterctl init list-images`, but with digests, so a copy script moves exactly what will run.
 */
import { describeObject } from '../manifest/object.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import { imageSites } from './image-sites.js';

export interface ListedImage {
  /** The reference as rendered: `repo:tag@sha256:…` when pinned. */
  reference: string;
  /** `repo:tag` (the reference without its digest). */
  image: string;
  /** `sha256:…`, or null when the output runs it by tag alone. */
  digest: string | null;
  /** Pinned by this build (imagePolicy.pinDigests) rather than shipped with a digest. */
  pinned: boolean;
  /** Components (provider labels, `cert-manager`) whose objects use it, sorted. */
  components: string[];
  /** `Kind/namespace/name container "c"` of every use, sorted. */
  usedBy: string[];
}

/** Every image of `environment`, sorted by reference. `pinned` are the images the build pinned. */
export function listEnvironmentImages(environment: RenderedEnvironment, pinned: ReadonlySet<string>): ListedImage[] {
  const byReference = new Map<string, { components: Set<string>; usedBy: Set<string> }>();
  for (const component of environment.components) {
    for (const object of component.objects) {
      for (const site of imageSites(object)) {
        const entry = byReference.get(site.image) ?? { components: new Set(), usedBy: new Set() };
        entry.components.add(component.name);
        entry.usedBy.add(
          `${describeObject(object)} container ${JSON.stringify(site.container)}${site.kind === 'flag' ? ' (argument)' : ''}`,
        );
        byReference.set(site.image, entry);
      }
    }
  }
  return [...byReference]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([reference, entry]) => {
      const at = reference.lastIndexOf('@');
      const image = at > 0 ? reference.slice(0, at) : reference;
      return {
        reference,
        image,
        digest: at > 0 ? reference.slice(at + 1) : null,
        pinned: at > 0 && pinned.has(image),
        components: [...entry.components].sort(),
        usedBy: [...entry.usedBy].sort(),
      };
    });
}
