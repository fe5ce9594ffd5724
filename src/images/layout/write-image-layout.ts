/**
 * `mirror --images --to DIR`: every pinned image, with its cosign `.sig` tag and its referrers (the
 * same set the registry-to-registry mirror copies), written as one OCI image layout, or as one tar
 * of it (`--format oci-archive`).
 *
 * Design notes: docs/internals.md "images/layout/write-image-layout.ts".
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SpecError, WriteError, error } from '../../errors.js';
import { fsyncPath } from '../../durable-replace.js';
import { parseImageLocation, type ImageRegistry } from '../registry/image-registry.js';
import type { ImageLocation } from '../registry/registry-types.js';
import { legacySignatureTag } from '../verify/find-signatures.js';
import {
  INDEX_FILE,
  LAYOUT_VERSION_TEXT,
  OCI_LAYOUT_FILE,
  blobPath,
  layoutIndexBytes,
  manifestChildren,
  type LayoutEntry,
} from './layout-format.js';
import { TAR_END, tarHeader, tarPadding } from './tar-archive.js';

export type ImageFolderFormat = 'oci-layout' | 'oci-archive';

/** What was written of one image besides itself. */
export interface WrittenImage {
  image: string;
  digest: string;
  legacySignature: boolean;
  referrers: number;
  /** Blobs (manifests included) fetched, and those the staging folder already held. */
  fetched: number;
  kept: number;
}

export interface WriteImageFolderOptions {
  /**
   * The pinned images: `registry/repository:tag` as the lock names it (the folder's name for it),
   * the digest the lock pins, and where it is read from (`from`, default `image`).
   */
  images: readonly { image: string; digest: string; from?: string }[];
  registry: ImageRegistry;
  /** The folder (oci-layout) or file (oci-archive) to create; it must not exist, or be an empty folder. */
  target: string;
  format: ImageFolderFormat;
  onImage?: (written: WrittenImage) => void;
  /** Test hook: called after each blob is stored (`blob`), before the layout is published (`publish`) and after each file put into the archive (`archive`). */
  failpoint?: (step: string) => void;
}

/** Writes the folder or archive; returns what each image carried. */
export async function writeImageFolder(options: WriteImageFolderOptions): Promise<WrittenImage[]> {
  const { target, format } = options;
  await assertFreshTarget(target, format);
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.capi-render-partial`);
  await writeStep(target, () => fs.mkdir(path.join(staging, 'blobs'), { recursive: true }));
  const entries: LayoutEntry[] = [];
  const written: WrittenImage[] = [];
  for (const { image, digest, from } of [...options.images].sort((a, b) =>
    a.image < b.image ? -1 : a.image > b.image ? 1 : 0,
  )) {
    const named = parseImageLocation(image);
    const location = parseImageLocation(from ?? image);
    if (!location || !named)
      throw new SpecError(error('image', `cannot mirror ${from ?? image}: not a registry reference`));
    const store = new BlobStore(staging, options.registry, location, options.failpoint ?? (() => undefined));
    const top = await store.manifestTree(digest, `${image}@${digest}`);
    entries.push({ ...top, refName: image });
    // The signatures, where cosign keeps them: the `.sig` tag and the referrers.
    const sigTag = legacySignatureTag(digest);
    const legacy = await options.registry.manifest({ ...location, reference: sigTag });
    if (legacy)
      entries.push({
        ...(await store.manifestTree(legacy.digest, `${image} signature ${sigTag}`)),
        refName: `${named.registry}/${named.repository}:${sigTag}`,
      });
    const referrers = (await options.registry.referrers({ ...location, digest })).manifests;
    for (const r of referrers) {
      const tree = await store.manifestTree(r.digest, `${image} referrer ${r.digest}`);
      entries.push({
        ...tree,
        referrerOf: image,
        ...(r.artifactType !== undefined ? { artifactType: r.artifactType } : {}),
      });
    }
    const done = {
      image,
      digest,
      legacySignature: legacy !== undefined,
      referrers: referrers.length,
      fetched: store.fetched,
      kept: store.kept,
    };
    written.push(done);
    options.onImage?.(done);
  }
  await writeStep(staging, async () => {
    await writeSynced(path.join(staging, INDEX_FILE), layoutIndexBytes(entries));
    await writeSynced(path.join(staging, OCI_LAYOUT_FILE), new TextEncoder().encode(LAYOUT_VERSION_TEXT));
  });
  options.failpoint?.('publish');
  await writeStep(target, async () => {
    if (format === 'oci-layout') {
      await fs.rmdir(target).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
      await syncTree(staging);
      await fs.rename(staging, target);
    } else {
      await writeArchive(staging, target, options.failpoint ?? (() => undefined));
      await fs.rm(staging, { recursive: true, force: true });
    }
    await fsyncPath(path.dirname(target), true);
  });
  return written;
}

/** Blobs of one image's repository into the staging folder: kept when present and whole, else fetched and verified. */
class BlobStore {
  fetched = 0;
  kept = 0;
  constructor(
    private readonly root: string,
    private readonly registry: ImageRegistry,
    private readonly location: ImageLocation,
    private readonly failpoint: (step: string) => void,
  ) {}

  /** Writes a manifest (by digest), everything under it, and returns its descriptor. */
  async manifestTree(digest: string, what: string, depth = 0): Promise<LayoutEntry> {
    let bytes = await this.present(digest);
    if (!bytes) {
      const manifest = await this.registry.manifest({ ...this.location, reference: digest });
      if (!manifest)
        throw new SpecError(
          error(
            'image',
            `${what}: registry ${this.location.registry} has no manifest ${digest} in ${this.location.repository}`,
            { hint: 'build once online so the lock pins what the registry holds, then mirror again' },
          ),
        );
      bytes = manifest.bytes;
      await this.store(digest, bytes);
    }
    const parsed = manifestChildren(bytes, '', `${what} manifest ${digest}`);
    if (depth > 4) throw new SpecError(error('image', `${what}: indexes nest deeper than 4 levels`));
    for (const child of parsed.manifests) await this.manifestTree(child.digest, what, depth + 1);
    for (const blob of parsed.blobs) {
      if (await this.present(blob.digest, false)) continue;
      await this.store(
        blob.digest,
        await this.registry.layer({ ...this.location, digest: blob.digest, size: blob.size }),
      );
    }
    return { mediaType: parsed.mediaType, digest, size: bytes.length };
  }

  /** The bytes (or true, when `read` is false) of a blob already in the folder whose content matches its name. */
  private async present(digest: string, read?: true): Promise<Uint8Array | undefined>;
  private async present(digest: string, read: false): Promise<boolean>;
  private async present(digest: string, read = true): Promise<Uint8Array | boolean | undefined> {
    const file = path.join(this.root, blobPath(digest));
    const ok = (await hashFile(file, digest)) === digest;
    if (!ok) return read ? undefined : false;
    this.kept++;
    return read ? new Uint8Array(await fs.readFile(file)) : true;
  }

  private async store(digest: string, bytes: Uint8Array): Promise<void> {
    const file = path.join(this.root, blobPath(digest));
    await writeStep(file, async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      await writeSynced(temp, bytes);
      await fs.rename(temp, file);
    });
    this.fetched++;
    this.failpoint('blob');
  }
}

/** The digest of a file's content with the algorithm of `digest`; undefined when it is missing. */
export async function hashFile(file: string, digest: string): Promise<string | undefined> {
  const algorithm = digest.startsWith('sha512:') ? 'sha512' : 'sha256';
  const hash = createHash(algorithm);
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return `${algorithm}:${hash.digest('hex')}`;
}

/** The target must not exist (an archive) or be missing or an empty folder (a layout): nothing of the user's is replaced. */
async function assertFreshTarget(target: string, format: ImageFolderFormat): Promise<void> {
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw writeError(target, e);
  }
  const empty = stat.isDirectory() && (await fs.readdir(target)).length === 0;
  if (format === 'oci-layout' && empty) return;
  const what = stat.isDirectory() ? 'a folder that is not empty' : stat.isSymbolicLink() ? 'a symbolic link' : 'a file';
  throw new WriteError(
    error(
      'write',
      `--to ${target} is ${what}; the images are written to a new ${format === 'oci-layout' ? 'folder' : 'file'} only`,
      { hint: 'remove it, or choose another --to' },
    ),
  );
}

async function writeArchive(layout: string, target: string, failpoint: (step: string) => void): Promise<void> {
  const names = ['blobs/', ...(await listTree(layout, 'blobs')), INDEX_FILE, OCI_LAYOUT_FILE];
  // A killed run's half-written archive (its own temporary name) is removed first.
  const stale = `.${path.basename(target)}.capi-render-`;
  for (const name of await fs.readdir(path.dirname(target)))
    if (name.startsWith(stale) && name.endsWith('.tmp'))
      await fs.rm(path.join(path.dirname(target), name), { force: true });
  const temp = path.join(path.dirname(target), `${stale}${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const out = await fs.open(temp, 'wx', 0o644);
  try {
    for (const name of names) {
      if (name.endsWith('/')) {
        await out.write(tarHeader({ name, size: 0 }));
        continue;
      }
      const file = path.join(layout, name);
      const { size } = await fs.stat(file);
      await out.write(tarHeader({ name, size }));
      for await (const chunk of createReadStream(file)) await out.write(chunk as Buffer);
      await out.write(tarPadding(size));
      failpoint('archive');
    }
    await out.write(TAR_END);
    await out.sync();
    await out.close();
    await fs.rename(temp, target);
  } catch (e) {
    await out.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw e;
  }
}

/** Folder entries (`x/`) and files under `dir` of `root`, sorted by name; temporary files left by a killed run are left out. */
async function listTree(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await fs.readdir(path.join(root, dir), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(`${rel}/`, ...(await listTree(root, rel)));
    else if (entry.isFile() && !entry.name.endsWith('.tmp')) out.push(rel);
  }
  return out;
}

/** Removes a killed run's temporary files and syncs every folder, so the rename publishes durable content. */
async function syncTree(root: string): Promise<void> {
  for (const entry of await fs.readdir(root, { withFileTypes: true })) {
    const p = path.join(root, entry.name);
    if (entry.isDirectory()) await syncTree(p);
    else if (entry.name.endsWith('.tmp')) await fs.rm(p, { force: true });
  }
  await fsyncPath(root, true);
}

async function writeSynced(file: string, bytes: Uint8Array): Promise<void> {
  const handle = await fs.open(file, 'w', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeStep<T>(where: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof SpecError || e instanceof WriteError || !(e as NodeJS.ErrnoException).code) throw e;
    throw writeError(where, e);
  }
}

function writeError(where: string, e: unknown): WriteError {
  const code = (e as NodeJS.ErrnoException).code ?? 'error';
  const hint =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'choose a --to on a writable file system, or fix its permissions'
      : code === 'ENOSPC'
        ? 'free space, then run the same command again: the blobs already written are kept'
        : 'fix the path, then run the same command again';
  return new WriteError(
    error('write', `cannot write ${where}: ${code} (${(e as Error).message.replace(/^\w+: /, '')})`, { hint }),
  );
}
