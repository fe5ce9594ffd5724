/**
 * What remote sources answered on the last online run — each source's version list with its fetch
 * time, and the URL and sha256 of each file a source served — kept in the cache folder so
 * `plan --offline` can still report from it. Only versions, source ids, URLs, digests and a time are
 * stored: never a token or a response body. Like the artifact cache it is an object handed to the
 * build (never module state) and can be deleted at any time.
 *
 * Design notes: docs/internals.md "source/release-index-cache.ts".
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import { makePrivateDir, writePrivateFile } from '../private-files.js';

/** One source's stored version list. */
export interface CachedReleaseList {
  source: string;
  /** ISO-8601 UTC time the list was fetched. */
  fetchedAt: string;
  versions: string[];
}

/** Where one file of one release was read from, and its digest. */
export interface CachedFileDigest {
  url: string;
  sha256: string;
}

export interface ReleaseIndexCache {
  /** The list last stored for the source, or undefined (absent, damaged, or for another source). */
  getList(source: string): Promise<CachedReleaseList | undefined>;
  /** Stores a list, replacing the previous one. */
  putList(list: CachedReleaseList): Promise<void>;
  /** The digest a source's file had when it was last read online, or undefined. */
  getFile(source: string, version: string, file: string): Promise<CachedFileDigest | undefined>;
  putFile(source: string, version: string, file: string, digest: CachedFileDigest): Promise<void>;
}

/** An index under `dir` (normally the artifact cache folder). */
export function createReleaseIndexCache(dir: string, use?: CacheUse): ReleaseIndexCache {
  const readJson = async (file: string) => {
    const value = await readJsonFile(file);
    if (value !== undefined) use?.read(file);
    return value;
  };
  const writeJson = async (file: string, value: unknown) => {
    await writeJsonFile(file, value);
    use?.wrote(file);
  };
  const entry = (folder: string, ...key: string[]) =>
    path.join(dir, folder, `${createHash('sha256').update(key.join('\u0000')).digest('hex')}.json`);
  return {
    async getList(source) {
      const value = await readJson(entry('release-lists', source));
      const valid =
        isRecord(value) &&
        value.source === source &&
        typeof value.fetchedAt === 'string' &&
        !Number.isNaN(Date.parse(value.fetchedAt)) &&
        Array.isArray(value.versions) &&
        value.versions.every((v) => typeof v === 'string');
      return valid ? { source, fetchedAt: value.fetchedAt as string, versions: value.versions as string[] } : undefined;
    },
    async putList(list) {
      await writeJson(entry('release-lists', list.source), {
        source: list.source,
        fetchedAt: list.fetchedAt,
        versions: [...list.versions].sort(),
      });
    },
    async getFile(source, version, file) {
      const value = await readJson(entry('release-files', source, version, file));
      // The entry names what it is about: one copied under another entry's name is a miss.
      const valid =
        isRecord(value) &&
        value.source === source &&
        value.version === version &&
        value.file === file &&
        typeof value.url === 'string' &&
        typeof value.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(value.sha256);
      return valid ? { url: value.url as string, sha256: value.sha256 as string } : undefined;
    },
    async putFile(source, version, file, digest) {
      await writeJson(entry('release-files', source, version, file), {
        source,
        version,
        file,
        url: digest.url,
        sha256: digest.sha256,
      });
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed file, or undefined when it is absent or damaged (the next online run rewrites it). */
async function readJsonFile(file: string): Promise<unknown> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Owner-only and written then renamed, like every file in the cache folder (see private-files.ts). */
async function writeJsonFile(target: string, value: unknown): Promise<void> {
  await makePrivateDir(path.dirname(target));
  await writePrivateFile(target, `${JSON.stringify(value)}\n`);
}
