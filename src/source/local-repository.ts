/**
 * clusterctl's local repository (repository_local.go): `<root>/<provider-label>/<version>/<file>`.
 * As a capi-render extension a file may also be stored gzip-compressed as `<file>.gz`; its content
 * (and so its digest) is the decompressed file.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readBounded } from '../bounded-read.js';
import { RELEASE_ASSET_LIMIT } from './http/body-limits.js';
import { gunzipSync } from 'node:zlib';
import { FetchError, error } from '../errors.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from './release-source.js';
import { parseVersion, sortVersions } from '../declarations/versions.js';

export interface LocalRepositoryOptions {
  /** Absolute path of the repository root. */
  root: string;
  /** How the root is shown in messages and the lock (repository-relative when inside the repo). */
  displayRoot: string;
  /** The provider's manifest label: the folder under the root. */
  label: string;
}

/** A ReleaseSource over one provider's folder of a local repository. */
export function createLocalRepositorySource(options: LocalRepositoryOptions): ReleaseSource {
  const providerDir = path.join(options.root, options.label);
  const shown = `${options.displayRoot}/${options.label}`;
  return {
    id: releaseSourceId('local', shown),
    description: `local repository ${shown}`,
    async listVersions() {
      let entries;
      try {
        entries = await fs.readdir(providerDir, { withFileTypes: true });
      } catch {
        return [];
      }
      // Folders whose names are not semantic versions are not releases (clusterctl skips them too).
      return sortVersions(entries.filter((e) => e.isDirectory() && parseVersion(e.name)).map((e) => e.name));
    },
    async readFile(version, fileName): Promise<Artifact> {
      if (version.includes('/') || version.includes('\\') || version.startsWith('.')) {
        throw notFound(shown, version, fileName, 'the version is not a folder name');
      }
      const plain = path.join(providerDir, version, fileName);
      const url = `${shown}/${version}/${fileName}`;
      const bytes = await readRegular(plain, url);
      if (bytes) return { bytes: new Uint8Array(bytes), url };
      const compressed = await readRegular(`${plain}.gz`, `${url}.gz`);
      if (compressed) return { bytes: new Uint8Array(gunzipBounded(compressed, `${url}.gz`)), url };
      throw notFound(shown, version, fileName);
    },
  };
}

/**
 * A release file's bytes, or undefined when it is missing or not a regular file. Read as every file
 * read back is (bounded-read.ts): opened without blocking, so a FIFO in the repository is passed
 * over at once instead of hanging the build, and never past the release-file limit a download has.
 */
async function readRegular(file: string, shown: string): Promise<Buffer | undefined> {
  let read;
  try {
    read = await readBounded(file, { limit: RELEASE_ASSET_LIMIT.maxBytes, follow: true });
  } catch {
    return undefined;
  }
  if (read.outcome === 'too-large') throw tooLarge(shown, read.grew ? `more than ${RELEASE_ASSET_LIMIT.maxBytes} bytes` : `${read.size} bytes`);
  return read.outcome === 'read' ? read.bytes : undefined;
}

/** A compressed release file unpacked, never past the release-file limit (a gzip bomb stops there). */
function gunzipBounded(compressed: Buffer, shown: string): Buffer {
  try {
    return gunzipSync(compressed, { maxOutputLength: RELEASE_ASSET_LIMIT.maxBytes });
  } catch (cause) {
    if (cause instanceof RangeError) throw tooLarge(shown, `more than ${RELEASE_ASSET_LIMIT.maxBytes} bytes once unpacked`);
    throw new FetchError(error('fetch', `${shown} is not gzip data`, { hint: 'store the file as published, or gzip-compressed with a .gz ending' }));
  }
}

function tooLarge(shown: string, size: string): FetchError {
  return new FetchError(error('fetch', `${shown} is ${size}, over ${RELEASE_ASSET_LIMIT.phrase}`, { hint: RELEASE_ASSET_LIMIT.hint }));
}

function notFound(shown: string, version: string, fileName: string, why?: string): FetchError {
  return new FetchError(
    error('source-not-found', `${fileName} of version ${version} not found in local repository ${shown}${why ? ` (${why})` : ''}`, {
      file: `${shown}/${version}/${fileName}`,
      hint: `a local repository holds <root>/<provider-label>/<version>/<file>; check the version and that ${fileName} (or ${fileName}.gz) is there`,
    }),
  );
}
