/**
 * The Argo CD plugin's output cache: the stream `cmp-generate` printed for an environment, kept in
 * the cache folder under a key covering everything the stream depends on (capi-render's version, the
 * environment, its inputs hash and lock entry), so a commit that leaves an environment's inputs as
 * they were is answered with a few file reads instead of a render. Only streams of a successful
 * frozen render of a lock that matched its inputs are stored, and never one that could hold a secret.
 *
 * Design notes: docs/internals.md "plugin/stream-cache.ts".
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CacheUse } from '../cache/cache-use.js';
import type { Diagnostic } from '../errors.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { packageVersion } from '../package-files.js';
import { makePrivateDir, writePrivateFile } from '../private-files.js';

export const STREAMS_FOLDER = 'plugin-streams';
export const DOCUMENTS_FOLDER = 'plugin-documents';
/** Separates the documents of a stream (what `build --stdout` prints between objects). */
const SEPARATOR = '---\n';

interface StreamEntry {
  /** The key it is stored under: an entry copied under another key is a miss. */
  key: string;
  documents: string[];
  warnings: Diagnostic[];
}

/**
 * The key of one environment's stream. `lockEntry` is the environment's entry in the lock, and
 * `images` the digests the lock pins for it; `inputsHash` must be the one the lock records, checked
 * against the inputs on disk by the caller.
 */
export function streamKey(parts: {
  environment: string;
  inputsHash: string;
  lockEntry: unknown;
  images: unknown;
}): string {
  return createHash('sha256')
    .update(`capi-render ${packageVersion()} cmp-generate stream 1\n${codeIdentity()}\n`)
    .update(
      canonicalJson({
        environment: parts.environment,
        inputs: parts.inputsHash,
        lock: parts.lockEntry,
        images: parts.images,
      }),
    )
    .digest('hex');
}

/** The cached stream and the warnings its render printed, or undefined (absent, incomplete or damaged). */
export function readStream(
  cacheDir: string,
  key: string,
  use?: CacheUse,
): { text: string; warnings: Diagnostic[] } | undefined {
  const file = path.join(cacheDir, STREAMS_FOLDER, `${key}.json`);
  let entry: StreamEntry;
  try {
    entry = JSON.parse(readFileSync(file, 'utf8')) as StreamEntry;
    if (
      entry.key !== key ||
      !Array.isArray(entry.documents) ||
      entry.documents.length === 0 ||
      !Array.isArray(entry.warnings)
    )
      return undefined;
  } catch {
    return undefined;
  }
  const texts: string[] = [];
  const read: string[] = [file];
  for (const sha256 of entry.documents) {
    if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
    const documentFile = path.join(cacheDir, DOCUMENTS_FOLDER, sha256);
    let bytes: Buffer;
    try {
      bytes = readFileSync(documentFile);
    } catch {
      return undefined;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) return undefined;
    texts.push(bytes.toString('utf8'));
    read.push(documentFile);
  }
  for (const f of read) use?.read(f);
  return { text: texts.join(SEPARATOR), warnings: entry.warnings };
}

/** Stores a stream given as its documents (best effort: a cache that cannot be written only costs time). */
export async function writeStream(
  cacheDir: string,
  key: string,
  documents: readonly string[],
  warnings: readonly Diagnostic[],
  use?: CacheUse,
): Promise<void> {
  try {
    const documentsDir = path.join(cacheDir, DOCUMENTS_FOLDER);
    await makePrivateDir(documentsDir);
    const digests: string[] = [];
    for (const text of documents) {
      const sha256 = createHash('sha256').update(text).digest('hex');
      digests.push(sha256);
      const file = path.join(documentsDir, sha256);
      // Content-addressed: an existing file with this name is this text (readStream checks it).
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
        await writePrivateFile(file, text);
        use?.wrote(file);
      } else use?.read(file);
    }
    const streamsDir = path.join(cacheDir, STREAMS_FOLDER);
    await makePrivateDir(streamsDir);
    const file = path.join(streamsDir, `${key}.json`);
    // The index last: until it exists, the entry is a miss.
    await writePrivateFile(
      file,
      `${JSON.stringify({ key, documents: digests, warnings: [...warnings] } satisfies StreamEntry)}\n`,
    );
    use?.wrote(file);
  } catch {
    // Only time is lost next run.
  }
}

let identity: string | undefined;

/**
 * The code that renders: the file this module was loaded from (the CLI bundle, once built), by
 * size and modification time. A release has one version and one bundle; a checkout rebuilt with
 * changes keeps its version, and must not be answered from streams the previous build stored.
 */
function codeIdentity(): string {
  if (identity === undefined) {
    try {
      const file = fileURLToPath(import.meta.url);
      const stat = statSync(file);
      identity = `${file} ${stat.size} ${stat.mtimeMs}`;
    } catch {
      identity = 'unknown';
    }
  }
  return identity;
}
