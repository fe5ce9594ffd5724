/**
 * The pinning stage: every image of an environment's rendered objects (image-sites.ts) becomes
 * `repository:tag@sha256:…`, with the digest from the lock or, once per build for each distinct
 * image, from its registry (image-resolver.ts). An image already written with a digest is left as
 * it is. Runs after every processing step (image overrides included), so the digest is that of the
 * image the cluster will pull. With `imagePolicy.verify`, each pinned digest's signature is then
 * checked against the first rule whose glob matches it (image-resolver.ts, verify/).
 */
import { FetchError, RenderError, SpecError, type Diagnostic } from '../errors.js';
import type { LockedVerification } from '../lock/lock-types.js';
import type { RenderedComponent } from '../plan/output-plan.js';
import { describeObject } from '../manifest/object.js';
import { imageSites, mapImages } from './image-sites.js';

/** Answers the digest of one image reference (as written, without a digest). */
export type DigestLookup = (image: string) => Promise<string>;

/** Checks the signature of a pinned image against the rule that applies to it; undefined when none applies. */
export type SignatureCheck = (image: string, digest: string) => Promise<LockedVerification | undefined>;

export interface PinnedImages {
  components: RenderedComponent[];
  /** The images this environment's output runs that were pinned here, sorted (their digests are in `digests`). */
  images: string[];
  /** image → digest, for every image in `images`, and for every image written with a digest that a rule verified. */
  digests: Map<string, string>;
  /** image (without its digest) → what its signature passed, for the images a rule applies to. */
  verifications: Map<string, LockedVerification>;
  /** Every image the output runs, as rendered (with a digest where it was written with one), sorted. */
  all: string[];
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
 * naming the objects that use it; nothing is returned then. An image written with a digest already
 * is left as it is, and its signature is checked all the same (a rule covers every image it names).
 */
export async function pinImages(components: readonly RenderedComponent[], lookup: DigestLookup, check?: SignatureCheck): Promise<PinnedImages> {
  const users = new Map<string, string[]>();
  for (const component of components) {
    for (const object of component.objects) {
      for (const site of imageSites(object)) {
        const list = users.get(site.image) ?? [];
        list.push(`${describeObject(object)} container ${JSON.stringify(site.container)}`);
        users.set(site.image, list);
      }
    }
  }
  const all = [...users.keys()].sort();
  const images = all.filter((image) => !hasDigest(image));
  const digests = new Map<string, string>();
  const verifications = new Map<string, LockedVerification>();
  const problems: Diagnostic[] = [];
  await Promise.all(
    all.map(async (reference) => {
      const written = hasDigest(reference);
      const image = written ? reference.slice(0, reference.lastIndexOf('@')) : reference;
      try {
        const digest = written ? reference.slice(reference.lastIndexOf('@') + 1) : await lookup(image);
        if (!written) digests.set(image, digest);
        const verified = await check?.(image, digest);
        if (verified) {
          verifications.set(image, verified);
          // Written with its digest, it is pinned all the same: the lock keeps its evidence too.
          if (written) digests.set(image, digest);
        }
      } catch (e) {
        if (!(e instanceof RenderError)) throw e;
        const used = users.get(reference)!;
        problems.push(...e.diagnostics.map((d) => ({ ...d, object: d.object ?? used[0]!, message: `${d.message} (used by ${used.slice(0, 3).join(', ')}${used.length > 3 ? ` and ${used.length - 3} more` : ''})` })));
      }
    }),
  );
  if (problems.length > 0) {
    const sorted = problems.sort((a, b) => (a.message < b.message ? -1 : 1));
    // A signature that fails a rule is the inputs' problem (exit 1 all the same), not the network's.
    throw problems.every((d) => d.code === 'image') ? new SpecError(sorted) : new FetchError(sorted);
  }
  const pin = (image: string) => {
    const digest = digests.get(image);
    return digest === undefined ? image : pinnedReference(image, digest);
  };
  return {
    components: components.map((c) => ({ ...c, objects: c.objects.map((o) => mapImages(o, (site) => pin(site.image))) })),
    images,
    digests,
    verifications,
    all,
  };
}
