/**
 * clusterctl's local repository (repository_local.go): `<root>/<provider-label>/<version>/<file>`.
 * As a capi-render extension a file may also be stored gzip-compressed as `<file>.gz`; its content
 * (and so its digest) is the decompressed file.
 *
 * A repository of capi-render.yaml's `repositories:` is named in the lock without its root
 * (`local:<label>`, files `<label>/<version>/<file>`): where a mirror lives is configuration, not part
 * of the pin, so moving it changes no pin, and the sha256 of the file found where the configuration
 * says is still checked against the lock on every build. A `file://` URL keeps its root in the id
 * (`local:<root>/<label>`): the URL is written in the input itself, as a GitHub URL is.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { readBounded } from '../bounded-read.js';
import { RELEASE_ASSET_LIMIT } from './http/body-limits.js';
import { gunzipSync } from 'node:zlib';
import { FetchError, error } from '../errors.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from './release-source.js';
import { parseVersion, sortVersions } from '../declarations/versions.js';
import { configuredLocalSourceId } from './local-source-id.js';

export interface LocalRepositoryOptions {
  /** Absolute path of the repository root. */
  root: string;
  /** How the root is shown in messages (as capi-render.yaml or the URL writes it). */
  displayRoot: string;
  /** The provider's manifest label: the folder under the root. */
  label: string;
  /**
   * Set for a repository of capi-render.yaml's `repositories:` (the lock names it `local:<label>`);
   * `passed` are the roots (as written) of the repositories searched before it, which have no
   * `<label>/` folder, for messages. Unset for a `file://` URL (`local:<root>/<label>`).
   */
  configured?: { passed: readonly string[] };
}

export { configuredLocalLabel, configuredLocalSourceId } from './local-source-id.js';

/** A ReleaseSource over one provider's folder of a local repository. */
export function createLocalRepositorySource(options: LocalRepositoryOptions): ReleaseSource {
  const providerDir = path.join(options.root, options.label);
  const shown = `${options.displayRoot}/${options.label}`;
  const configured = options.configured;
  return {
    id: configured ? configuredLocalSourceId(options.label) : releaseSourceId('local', shown),
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
        throw notFound(options, version, fileName, 'the version is not a folder name');
      }
      const plain = path.join(providerDir, version, fileName);
      const file = `${shown}/${version}/${fileName}`;
      // The lock's address of a configured repository's file is where it lies in any such repository.
      const url = configured ? `${options.label}/${version}/${fileName}` : file;
      const bytes = await readRegular(plain, file);
      if (bytes) return { bytes: new Uint8Array(bytes), url };
      const compressed = await readRegular(`${plain}.gz`, `${file}.gz`);
      if (compressed) return { bytes: new Uint8Array(gunzipBounded(compressed, `${file}.gz`)), url };
      throw notFound(options, version, fileName);
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
  if (read.outcome === 'too-large')
    throw tooLarge(shown, read.grew ? `more than ${RELEASE_ASSET_LIMIT.maxBytes} bytes` : `${read.size} bytes`);
  return read.outcome === 'read' ? read.bytes : undefined;
}

/** A compressed release file unpacked, never past the release-file limit (a gzip bomb stops there). */
function gunzipBounded(compressed: Buffer, shown: string): Buffer {
  try {
    return gunzipSync(compressed, { maxOutputLength: RELEASE_ASSET_LIMIT.maxBytes });
  } catch (cause) {
    if (cause instanceof RangeError)
      throw tooLarge(shown, `more than ${RELEASE_ASSET_LIMIT.maxBytes} bytes once unpacked`);
    throw new FetchError(
      error('fetch', `${shown} is not gzip data`, {
        hint: 'store the file as published, or gzip-compressed with a .gz ending',
      }),
    );
  }
}

function tooLarge(shown: string, size: string): FetchError {
  return new FetchError(
    error('fetch', `${shown} is ${size}, over ${RELEASE_ASSET_LIMIT.phrase}`, { hint: RELEASE_ASSET_LIMIT.hint }),
  );
}

function notFound(options: LocalRepositoryOptions, version: string, fileName: string, why?: string): FetchError {
  const shown = `${options.displayRoot}/${options.label}`;
  const looked = `${shown}/${version}/${fileName}`;
  if (why) {
    return new FetchError(
      error('source-not-found', `${fileName} of version ${version} not found in local repository ${shown} (${why})`, {
        file: looked,
        hint: `a local repository holds <root>/<provider-label>/<version>/<file>; check the version`,
      }),
    );
  }
  const passed = options.configured?.passed ?? [];
  const others =
    passed.length > 0
      ? `; ${passed.join(', ')} ${passed.length === 1 ? 'has' : 'have'} no ${options.label}/ folder`
      : '';
  return new FetchError(
    error(
      'source-not-found',
      `${fileName} of ${options.label} ${version} is not in local repository ${options.displayRoot}: looked for ${looked} (and ${fileName}.gz)${others}`,
      {
        file: looked,
        hint: options.configured
          ? `${mirrorAdvice(options.displayRoot, `${shown}/${version}/`)}; or check spec.version`
          : `a local repository holds <root>/<provider-label>/<version>/<file>; check the version in the URL and that ${fileName} (or ${fileName}.gz) is there`,
      },
    ),
  );
}

/**
 * The step that fills a configured local repository: `mirror` run on a connected machine reads every
 * release the inputs pin from its own source (not from the repository it fills, while another source
 * can serve it), checks it against capi-render.lock and writes `<root>/<label>/<version>/<file>`.
 */
export function mirrorAdvice(root: string, carry: string): string {
  return `on a connected machine, run \`capi-render mirror --to ${root}\` in a checkout of this repository (from its root): it writes every release the inputs pin, checked against capi-render.lock; then carry ${carry} over`;
}

/**
 * Where a provider's release file was looked for in the configured local repositories, none of which
 * has a `<label>/` folder (the release then comes from a remote source): the paths, and what makes them.
 */
export interface LocalSearch {
  label: string;
  /** Roots as capi-render.yaml writes them, in search order. */
  roots: readonly string[];
}

/** The part of an `--offline` error about the local repositories: what was looked for, and how to fill one. */
export function missingFromLocalRepositories(
  search: LocalSearch,
  version: string,
  fileName: string,
): { looked: string; hint: string } {
  if (search.roots.length === 0) {
    return {
      looked: 'no local repository is configured (capi-render.yaml repositories:)',
      hint: `${mirrorAdvice('vendor/releases', 'vendor/releases/')} and add \`repositories: [{path: vendor/releases}]\` to capi-render.yaml`,
    };
  }
  const paths = search.roots.map((root) => `${root}/${search.label}/${version}/${fileName}`);
  return {
    looked: `no local repository holds it: looked for ${paths.join(', ')}`,
    hint: mirrorAdvice(search.roots[0]!, `${search.roots[0]}/${search.label}/${version}/`),
  };
}

/**
 * The first configured local repository that has the provider's `<label>/` folder, or where the
 * search looked when none has. `skip` is a root (absolute) passed over: the folder `mirror --to` fills.
 */
export function findLocalRepository(
  repoRoot: string,
  repositories: readonly { path: string }[],
  label: string,
  skip?: string,
): { source: ReleaseSource } | { search: LocalSearch } {
  const passed: string[] = [];
  for (const repo of repositories) {
    const root = path.resolve(repoRoot, repo.path);
    const displayRoot = repo.path.replace(/\/+$/, '') || repo.path;
    if (skip !== undefined && root === path.resolve(skip)) continue;
    if (existsSync(path.join(root, label)))
      return { source: createLocalRepositorySource({ root, displayRoot, label, configured: { passed } }) };
    passed.push(displayRoot);
  }
  return { search: { label, roots: repositories.map((r) => r.path.replace(/\/+$/, '') || r.path) } };
}
