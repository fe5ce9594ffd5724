/**
 * The pinning stage: every image of an environment's rendered objects (image-sites.ts) becomes
 * `repository:tag@sha256:…`, with the digest from the lock or, once per build for each distinct
 * image, from its registry (image-resolver.ts). An image already written with a digest is left as
 * it is. Runs after every processing step (image overrides included), so the digest is that of the
 * image the cluster will pull. The lock knows each image by its origin (lockKey): the reference its
 * provider releases, before `images:` overrides send it to a mirror. With `imagePolicy.verify`, each pinned digest's signature is then
 * checked against the first rule whose glob matches it (image-resolver.ts, verify/).
 */
import { FetchError, RenderError, SpecError, type Diagnostic } from '../errors.js';
import type { LockedVerification } from '../lock/lock-types.js';
import type { RenderedComponent } from '../plan/output-plan.js';
import { describeObject } from '../manifest/object.js';
import { imageSites, mapImages } from './image-sites.js';

/**
 * Answers the digest of one image reference (as written, without a digest): `image` is where it is
 * pulled from, `key` what the lock knows it by (its origin; default `image`).
 */
export type DigestLookup = (image: string, key?: string) => Promise<string>;

/** Checks the signature of a pinned image against the rule that applies to it; undefined when none applies. */
export type SignatureCheck = (image: string, digest: string, key: string) => Promise<LockedVerification | undefined>;

/** The lock key of a rendered image (without its digest): see {@link lockKey}. */
export type LockKeyOf = (image: string) => string;

export interface PinnedImages {
  components: RenderedComponent[];
  /** The images this environment's output runs that were pinned here, sorted (their digests are in `digests`). */
  images: string[];
  /** image → digest, for every image in `images`, and for every image written with a digest that a rule verified. */
  digests: Map<string, string>;
  /** image (without its digest) → what its signature passed, for the images a rule applies to. */
  verifications: Map<string, LockedVerification>;
  /** image (without its digest) → its lock key, for every image in `digests` whose key is not itself. */
  keys: Map<string, string>;
  /** Every image the output runs, as rendered (with a digest where it was written with one), sorted. */
  all: string[];
}

/**
 * What the lock knows a rendered image by: the one reference its release names that `images:`
 * overrides turned into it (`origins`, without digests), so a mirror's location is not part of the
 * pin; the rendered reference itself when no override made it (a patch set it, no override applies)
 * or when overrides turned two different released images into it (each has its own content; the
 * pin is of what the shared name holds).
 */
export function lockKey(rendered: string, origins: readonly string[]): string {
  const distinct = [...new Set(origins.map(withoutDigest))];
  return distinct.length === 1 ? distinct[0]! : rendered;
}

function withoutDigest(image: string): string {
  return hasDigest(image) ? image.slice(0, image.lastIndexOf('@')) : image;
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
export async function pinImages(
  components: readonly RenderedComponent[],
  lookup: DigestLookup,
  check?: SignatureCheck,
  keyOf: LockKeyOf = (image) => image,
): Promise<PinnedImages> {
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
  const keys = new Map<string, string>();
  const problems: Diagnostic[] = [];
  await Promise.all(
    all.map(async (reference) => {
      const written = hasDigest(reference);
      const image = written ? reference.slice(0, reference.lastIndexOf('@')) : reference;
      const key = keyOf(image);
      try {
        const digest = written ? reference.slice(reference.lastIndexOf('@') + 1) : await lookup(image, key);
        if (!written) digests.set(image, digest);
        const verified = await check?.(image, digest, key);
        if (verified) {
          verifications.set(image, verified);
          // Written with its digest, it is pinned all the same: the lock keeps its evidence too.
          if (written) digests.set(image, digest);
        }
      } catch (e) {
        if (!(e instanceof RenderError)) throw e;
        const used = users.get(reference)!;
        problems.push(
          ...e.diagnostics.map((d) => ({
            ...d,
            object: d.object ?? used[0]!,
            message: `${d.message} (used by ${used.slice(0, 3).join(', ')}${used.length > 3 ? ` and ${used.length - 3} more` : ''})`,
          })),
        );
      }
    }),
  );
  for (const image of digests.keys()) if (keyOf(image) !== image) keys.set(image, keyOf(image));
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
    components: components.map((c) => ({
      ...c,
      objects: c.objects.map((o) => mapImages(o, (site) => pin(site.image))),
    })),
    images,
    digests,
    verifications,
    keys,
    all,
  };
}
