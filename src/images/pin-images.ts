/**
 * The pinning stage: every image of an environment's rendered objects (image-sites.ts) becomes
 * `repository:tag@sha256:…`, with the digest from the lock or, once per build for each distinct
 * image, from its registry (image-resolver.ts). An image already written with a digest is left as
 * it is. Runs after every processing step (image overrides included), so the digest is that of the
 * image the cluster will pull.
 */
import { FetchError, RenderError, type Diagnostic } from '../errors.js';
import type { RenderedComponent } from '../output/plan.js';
import { describeObject } from '../manifest/object.js';
import { imageSites, mapImages } from './image-sites.js';

/** Answers the digest of one image reference (as written, without a digest). */
export type DigestLookup = (image: string) => Promise<string>;

export interface PinnedImages {
  components: RenderedComponent[];
  /** The images this environment's output runs that were pinned here, sorted (their digests are in `digests`). */
  images: string[];
  /** image → digest, for every image in `images`. */
  digests: Map<string, string>;
}

/** The reference with its digest: `repo:tag` → `repo:tag@sha256:…`. */
export function pinnedReference(image: string, digest: string): string {
  return `${image}@${digest}`;
}

/** Whether an image reference already names its digest. */
export function hasDigest(image: string): boolean {
  return /@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$/.test(image);
}

/**
 * Pins every image of `components`. Every image that cannot be resolved is reported, each once,
 * naming the objects that use it; nothing is returned then.
 */
export async function pinImages(components: readonly RenderedComponent[], lookup: DigestLookup): Promise<PinnedImages> {
  const users = new Map<string, string[]>();
  for (const component of components) {
    for (const object of component.objects) {
      for (const site of imageSites(object)) {
        if (hasDigest(site.image)) continue;
        const list = users.get(site.image) ?? [];
        list.push(`${describeObject(object)} container ${JSON.stringify(site.container)}`);
        users.set(site.image, list);
      }
    }
  }
  const images = [...users.keys()].sort();
  const digests = new Map<string, string>();
  const problems: Diagnostic[] = [];
  await Promise.all(
    images.map(async (image) => {
      try {
        digests.set(image, await lookup(image));
      } catch (e) {
        if (!(e instanceof RenderError)) throw e;
        const used = users.get(image)!;
        problems.push(...e.diagnostics.map((d) => ({ ...d, object: d.object ?? used[0]!, message: `${d.message} (used by ${used.slice(0, 3).join(', ')}${used.length > 3 ? ` and ${used.length - 3} more` : ''})` })));
      }
    }),
  );
  if (problems.length > 0) throw new FetchError(problems.sort((a, b) => (a.message < b.message ? -1 : 1)));
  const pin = (image: string) => {
    const digest = digests.get(image);
    return digest === undefined ? image : pinnedReference(image, digest);
  };
  return {
    components: components.map((c) => ({ ...c, objects: c.objects.map((o) => mapImages(o, (site) => pin(site.image))) })),
    images,
    digests,
  };
}
