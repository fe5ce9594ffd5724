/**
 * An ownership record read as a fleet's record must be read: a piece at a time (at ten thousand
 * environments it is over a hundred megabytes), hashing its bytes and collecting the files it lists
 * into a compact PathSet, never holding the text whole.
 */
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { readBoundedChunksSync } from '../bounded-read.js';
import { MAX_OWNERSHIP_RECORD_BYTES } from '../repository-files.js';
import { forEachOwnedFile } from './ownership.js';
import { PathSet } from './path-table.js';

/** The files a record lists (each once) and the sha256 of its bytes. */
export interface OwnedFiles {
  files: PathSet;
  sha256: string;
}

/**
 * Reads the record `file` — a regular file, never through a link, within the record limit — and
 * returns its files and digest; undefined when there is none or it cannot be read whole.
 */
export function readOwnedFiles(file: string): OwnedFiles | undefined {
  const files = new PathSet();
  const sha256 = readRecordPieces(file, (text) => forEachOwnedFile(text, (rel) => void files.add(rel)));
  return sha256 === undefined ? undefined : { files, sha256 };
}

/** The sha256 of the record `file`'s bytes, read as {@link readOwnedFiles} reads it (the files not collected). */
export function ownedFilesDigest(file: string): string | undefined {
  return readRecordPieces(file, () => undefined);
}

/** Reads the record in pieces, giving `visitLines` whole lines only; the sha256 of its bytes, or undefined. */
function readRecordPieces(file: string, visitLines: (text: string) => void): string | undefined {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  // The last piece's unfinished line, completed by the next.
  let carry = '';
  const read = readBoundedChunksSync(file, { limit: MAX_OWNERSHIP_RECORD_BYTES, follow: false }, (bytes) => {
    hash.update(bytes);
    const text = carry + decoder.write(bytes);
    const end = text.lastIndexOf('\n');
    carry = text.slice(end + 1);
    if (end >= 0) visitLines(text.slice(0, end + 1));
  });
  if (read.outcome !== 'read') return undefined;
  visitLines(carry + decoder.end());
  return hash.digest('hex');
}
