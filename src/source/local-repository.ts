/**
 * clusterctl's local repository (repository_local.go): `<root>/<provider-label>/<version>/<file>`.
 * As a capi-render extension a file may also be stored gzip-compressed as `<file>.gz`; its content
 * (and so its digest) is the decompressed file.
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FetchError, error } from '../errors.js';
import type { Artifact, ReleaseSource } from './release-source.js';
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
    id: `local:${shown}`,
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
      const bytes = await readRegular(plain);
      if (bytes) return { bytes: new Uint8Array(bytes), url };
      const compressed = await readRegular(`${plain}.gz`);
      if (compressed) return { bytes: new Uint8Array(gunzipSync(compressed)), url };
      throw notFound(shown, version, fileName);
    },
  };
}

/**
 * A release file's bytes, or undefined when it is missing or not a regular file. Opened without
 * blocking: a FIFO in the repository is passed over at once instead of hanging the build.
 */
async function readRegular(file: string): Promise<Buffer | undefined> {
  const handle = await fs.open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

function notFound(shown: string, version: string, fileName: string, why?: string): FetchError {
  return new FetchError(
    error('source-not-found', `${fileName} of version ${version} not found in local repository ${shown}${why ? ` (${why})` : ''}`, {
      file: `${shown}/${version}/${fileName}`,
      hint: `a local repository holds <root>/<provider-label>/<version>/<file>; check the version and that ${fileName} (or ${fileName}.gz) is there`,
    }),
  );
}
