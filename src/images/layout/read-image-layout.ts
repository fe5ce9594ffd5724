/**
 * Reading what `mirror --images --to DIR` wrote, at the site: an OCI image layout folder or an
 * `oci-archive` tar of one. Nothing in it is trusted: a symbolic link anywhere in the folder (or a
 * link entry in the archive) is refused, `oci-layout` and `index.json` are checked, and every blob
 * is read against its digest and size, an error naming its path when they disagree or it is missing.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FetchError, SpecError, error } from '../../errors.js';
import { MIRRORED_BLOB_LIMIT } from '../../source/http/body-limits.js';
import {
  INDEX_FILE,
  INDEX_LIMIT_BYTES,
  OCI_LAYOUT_FILE,
  blobPath,
  checkLayoutVersion,
  layoutError,
  parseLayoutIndex,
  type LayoutDescriptor,
  type LayoutEntry,
} from './layout-format.js';
import { readTarIndex, type TarFile } from './tar-archive.js';

/** An opened folder or archive. */
export interface ImageFolder {
  /** `index.json`'s entries. */
  entries: LayoutEntry[];
  /** A blob's bytes, checked against its descriptor's digest and size. */
  blob(d: LayoutDescriptor): Promise<Uint8Array>;
  /** Checks a blob's digest and size without holding it. */
  verify(d: LayoutDescriptor): Promise<void>;
  close(): Promise<void>;
}

/** Opens `from`: a folder is read as a layout, a file as an archive. */
export async function openImageFolder(from: string): Promise<ImageFolder> {
  const stat = await fs.lstat(from).catch((e: NodeJS.ErrnoException) => {
    throw new SpecError(
      error('image', `--from ${from}: ${e.code === 'ENOENT' ? 'does not exist' : `cannot be read (${e.code})`}`, {
        hint: 'pass the folder or archive capi-render mirror --images --to wrote',
      }),
    );
  });
  if (stat.isSymbolicLink())
    throw layoutError(
      from,
      'is a symbolic link; pass the folder or archive itself',
      'pass the real path of the folder or archive',
    );
  if (stat.isDirectory()) return openLayoutFolder(from);
  if (stat.isFile()) return openArchive(from, stat.size);
  throw layoutError(from, 'is neither a folder nor a file');
}

async function openLayoutFolder(root: string): Promise<ImageFolder> {
  await refuseLinks(root);
  const read = async (name: string) => {
    const file = path.join(root, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat?.isFile())
      throw layoutError(file, 'is missing: not a complete OCI image layout (a run that did not finish leaves none)');
    if (stat.size > INDEX_LIMIT_BYTES) throw layoutError(file, `is ${stat.size} bytes, over the 4 MiB limit`);
    return new Uint8Array(await fs.readFile(file));
  };
  checkLayoutVersion(await read(OCI_LAYOUT_FILE), path.join(root, OCI_LAYOUT_FILE));
  const entries = parseLayoutIndex(await read(INDEX_FILE), path.join(root, INDEX_FILE));
  const blobFile = async (d: LayoutDescriptor) => {
    const file = path.join(root, blobPath(d.digest));
    const stat = await fs.lstat(file).catch(() => undefined);
    if (!stat) throw missingBlob(file, d);
    if (!stat.isFile()) throw layoutError(file, 'is not a regular file');
    if (stat.size !== d.size) throw tampered(file, d, `${stat.size} bytes`);
    return file;
  };
  return {
    entries,
    async blob(d) {
      const file = await blobFile(d);
      checkLimit(file, d);
      const bytes = new Uint8Array(await fs.readFile(file));
      checkBytes(file, d, bytes);
      return bytes;
    },
    async verify(d) {
      const file = await blobFile(d);
      const hash = createHash(algorithmOf(d.digest));
      for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
      const actual = `${algorithmOf(d.digest)}:${hash.digest('hex')}`;
      if (actual !== d.digest) throw tampered(file, d, actual);
    },
    async close() {},
  };
}

/** Every symbolic link (or device, socket, fifo) under `root` is refused: a layout holds folders and files only. */
async function refuseLinks(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink())
      throw layoutError(
        p,
        'is a symbolic link; an image folder holds folders and files only',
        'copy the folder with its files (cp -rL, or tar it with --format oci-archive) and try again',
      );
    if (entry.isDirectory()) await refuseLinks(p);
    else if (!entry.isFile()) throw layoutError(p, 'is not a regular file or folder');
  }
}

async function openArchive(file: string, total: number): Promise<ImageFolder> {
  const handle = await fs.open(file, 'r');
  const read = async (offset: number, length: number) => {
    const buffer = new Uint8Array(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  };
  try {
    const files = new Map((await readTarIndex(read, total, file)).map((f) => [f.name, f] as const));
    const member = (name: string, limit: number) => {
      const f = files.get(name);
      if (!f) throw layoutError(`${file}:${name}`, 'is missing: not an archive of a complete OCI image layout');
      if (f.size > limit) throw layoutError(`${file}:${name}`, `is ${f.size} bytes, over the 4 MiB limit`);
      return read(f.offset, f.size);
    };
    checkLayoutVersion(await member(OCI_LAYOUT_FILE, INDEX_LIMIT_BYTES), `${file}:${OCI_LAYOUT_FILE}`);
    const entries = parseLayoutIndex(await member(INDEX_FILE, INDEX_LIMIT_BYTES), `${file}:${INDEX_FILE}`);
    const blobEntry = (d: LayoutDescriptor): [string, TarFile] => {
      const where = `${file}:${blobPath(d.digest)}`;
      const f = files.get(blobPath(d.digest));
      if (!f) throw missingBlob(where, d);
      if (f.size !== d.size) throw tampered(where, d, `${f.size} bytes`);
      return [where, f];
    };
    return {
      entries,
      async blob(d) {
        const [where, f] = blobEntry(d);
        checkLimit(where, d);
        const bytes = await read(f.offset, f.size);
        checkBytes(where, d, bytes);
        return bytes;
      },
      async verify(d) {
        const [where, f] = blobEntry(d);
        const hash = createHash(algorithmOf(d.digest));
        for (let at = 0; at < f.size; at += 1 << 20)
          hash.update(await read(f.offset + at, Math.min(1 << 20, f.size - at)));
        const actual = `${algorithmOf(d.digest)}:${hash.digest('hex')}`;
        if (actual !== d.digest) throw tampered(where, d, actual);
      },
      close: () => handle.close(),
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

function algorithmOf(digest: string): 'sha256' | 'sha512' {
  return digest.startsWith('sha512:') ? 'sha512' : 'sha256';
}

function checkLimit(where: string, d: LayoutDescriptor): void {
  if (d.size > MIRRORED_BLOB_LIMIT.maxBytes)
    throw new SpecError(
      error('image', `${where}: ${d.size} bytes, over ${MIRRORED_BLOB_LIMIT.phrase}`, {
        hint: MIRRORED_BLOB_LIMIT.hint,
      }),
    );
}

function checkBytes(where: string, d: LayoutDescriptor, bytes: Uint8Array): void {
  const actual = `${algorithmOf(d.digest)}:${createHash(algorithmOf(d.digest)).update(bytes).digest('hex')}`;
  if (actual !== d.digest || bytes.length !== d.size) throw tampered(where, d, actual);
}

function missingBlob(where: string, d: LayoutDescriptor): SpecError {
  return layoutError(where, `blob ${d.digest} (${d.size} bytes) is missing`);
}

function tampered(where: string, d: LayoutDescriptor, found: string): FetchError {
  return new FetchError(
    error(
      'digest-mismatch',
      `${where}: the blob is not ${d.digest} (${d.size} bytes): found ${found}; nothing of it is pushed`,
      {
        hint: 'the folder was changed or damaged after it was written; carry a fresh copy (capi-render mirror --images --to DIR) across',
      },
    ),
  );
}
