/**
 * `mirror --images --from DIR --to REGISTRY/PREFIX`: at the site, push the images of a folder (or
 * archive) `mirror --images --to` wrote, to where the registry mirror would have copied them
 * (`REGISTRY/PREFIX/<name>:<tag>`, mirror-images.ts), with their `.sig` tags and referrers.
 *
 * Every blob the pushed images reach is checked against its digest before the first byte goes
 * out, so a damaged or tampered folder pushes nothing; each is read (and checked) again as it is
 * uploaded. Blobs the registry has are skipped (a HEAD), so an interrupted push resumes. Manifests
 * go children first by digest, then the image under its tag.
 */
import { SpecError, error } from '../../errors.js';
import { parseImageLocation, type ImageRegistry } from '../registry/image-registry.js';
import type { ImageLocation, ReferrerDescriptor } from '../registry/registry-types.js';
import { listReferrersAt, type CopiedSignatures, type ImageCopy } from '../mirror-images.js';
import { legacySignatureTag } from '../verify/find-signatures.js';
import { manifestChildren, type LayoutDescriptor, type LayoutEntry } from './layout-format.js';
import type { ImageFolder } from './read-image-layout.js';

/** One manifest of a tree, read from the folder and checked. */
interface FolderManifest {
  descriptor: LayoutDescriptor;
  bytes: Uint8Array;
  mediaType: string;
}

/** What one image's push reaches: its manifests (children first) and blobs, and its signatures'. */
interface PushPlan {
  copy: ImageCopy;
  image: FolderManifest[];
  legacy: FolderManifest[] | undefined;
  referrers: { entry: LayoutEntry; manifests: FolderManifest[] }[];
  blobs: LayoutDescriptor[];
}

/**
 * Pushes each copy (`image` is the ref name in the folder, `target` where it goes); refuses an
 * image the folder lacks or holds at another digest than the lock pins.
 */
export async function pushImageFolder(
  folder: ImageFolder,
  copies: readonly ImageCopy[],
  registry: ImageRegistry,
  where: string,
  onPushed: (c: ImageCopy, signatures: CopiedSignatures) => void = () => undefined,
): Promise<void> {
  const plans: PushPlan[] = [];
  for (const copy of copies) plans.push(await planPush(folder, copy, where));
  // Every blob first: a tampered folder pushes nothing.
  const seen = new Set<string>();
  for (const blob of plans.flatMap((p) => p.blobs)) {
    if (seen.has(blob.digest)) continue;
    seen.add(blob.digest);
    await folder.verify(blob);
  }
  for (const plan of plans) {
    const to = parseImageLocation(plan.copy.target)!;
    const repo: ImageLocation = { registry: to.registry, repository: to.repository };
    for (const blob of plan.blobs) await registry.pushBlob(repo, await folder.blob(blob));
    await pushManifests(registry, repo, plan.image, to.tag);
    if (plan.legacy) await pushManifests(registry, repo, plan.legacy, legacySignatureTag(plan.copy.digest));
    for (const r of plan.referrers) await pushManifests(registry, repo, r.manifests, undefined);
    await listReferrersAt(
      registry,
      { ...repo, digest: plan.copy.digest },
      plan.referrers.map((r) => referrerDescriptor(r.entry, r.manifests.at(-1)!)),
    );
    onPushed(plan.copy, { legacy: plan.legacy !== undefined, referrers: plan.referrers.length });
  }
}

async function planPush(folder: ImageFolder, copy: ImageCopy, where: string): Promise<PushPlan> {
  // By the name the lock pins (as released, whatever images: override the site has); failing that,
  // by name, tag and digest: a folder written before the lock named images as released names them
  // where the connected side pulled them from.
  const tail = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
  const entry =
    folder.entries.find((e) => e.refName === copy.image) ??
    folder.entries.find(
      (e) => e.refName !== undefined && e.digest === copy.digest && tail(e.refName) === tail(copy.image),
    );
  if (!entry?.refName) {
    throw new SpecError(
      error('image', `${where} has no image ${copy.image}, which capi-render.lock pins at ${copy.digest}`, {
        hint: 'write the folder again (capi-render mirror --images --to DIR) from the same commit of the repository',
      }),
    );
  }
  if (entry.digest !== copy.digest) {
    throw new SpecError(
      error(
        'digest-mismatch',
        `${where} holds ${copy.image} at ${entry.digest}, but capi-render.lock pins ${copy.digest}`,
        {
          hint: 'write the folder again (capi-render mirror --images --to DIR) from the same commit of the repository',
        },
      ),
    );
  }
  const location = parseImageLocation(entry.refName);
  if (!location)
    throw new SpecError(
      error('image', `${where}: ${entry.refName} is not a registry/repository:tag reference`, {
        hint: 'write the folder with capi-render mirror --images --to DIR',
      }),
    );
  const blobs: LayoutDescriptor[] = [];
  const image = await readTree(folder, entry, blobs);
  const sigName = `${location.registry}/${location.repository}:${legacySignatureTag(copy.digest)}`;
  const sig = folder.entries.find((e) => e.refName === sigName);
  const legacy = sig ? await readTree(folder, sig, blobs) : undefined;
  const referrers = [];
  for (const r of folder.entries.filter((e) => e.referrerOf === entry.refName))
    referrers.push({ entry: r, manifests: await readTree(folder, r, blobs) });
  return { copy, image, legacy, referrers, blobs };
}

/** Reads a manifest and everything under it, children first; collects the blobs to push. */
async function readTree(
  folder: ImageFolder,
  top: LayoutDescriptor,
  blobs: LayoutDescriptor[],
  depth = 0,
): Promise<FolderManifest[]> {
  const bytes = await folder.blob(top);
  const parsed = manifestChildren(bytes, top.mediaType, `manifest ${top.digest}`);
  if (depth > 4) throw new SpecError(error('image', `manifest ${top.digest}: indexes nest deeper than 4 levels`));
  const out: FolderManifest[] = [];
  for (const child of parsed.manifests) out.push(...(await readTree(folder, child, blobs, depth + 1)));
  blobs.push(...parsed.blobs);
  out.push({ descriptor: top, bytes, mediaType: parsed.mediaType });
  return out;
}

async function pushManifests(
  registry: ImageRegistry,
  repo: ImageLocation,
  manifests: readonly FolderManifest[],
  tag: string | undefined,
): Promise<void> {
  for (const [i, m] of manifests.entries()) {
    const top = i === manifests.length - 1;
    const reference = top && tag !== undefined ? tag : m.descriptor.digest;
    const stored = await registry.pushManifest({ ...repo, reference }, m.bytes, m.mediaType);
    if (stored !== m.descriptor.digest) {
      throw new SpecError(
        error(
          'digest-mismatch',
          `${repo.registry}/${repo.repository}:${reference} was stored as ${stored}, not ${m.descriptor.digest}`,
          { hint: 'push into a registry that stores manifests byte for byte' },
        ),
      );
    }
  }
}

/** The referrers-list entry of a pushed referrer: its artifact type and annotations, as the registry would list it. */
function referrerDescriptor(entry: LayoutEntry, manifest: FolderManifest): ReferrerDescriptor {
  const json = JSON.parse(new TextDecoder().decode(manifest.bytes)) as {
    artifactType?: unknown;
    config?: { mediaType?: unknown };
    annotations?: unknown;
  };
  const artifactType =
    entry.artifactType ??
    (typeof json.artifactType === 'string'
      ? json.artifactType
      : typeof json.config?.mediaType === 'string'
        ? json.config.mediaType
        : undefined);
  const annotations =
    typeof json.annotations === 'object' && json.annotations !== null
      ? (json.annotations as Record<string, string>)
      : undefined;
  return {
    mediaType: manifest.mediaType,
    digest: entry.digest,
    size: entry.size,
    ...(artifactType !== undefined ? { artifactType } : {}),
    ...(annotations ? { annotations } : {}),
  };
}
