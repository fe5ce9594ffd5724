/**
 * Reading the one gzip'd tar layer of a cluster-api layout artifact (oci-capi-layout.ts): the
 * regular files at the archive's root, by name. What is read: POSIX ustar and GNU headers (name and
 * ustar prefix), PAX `path` records (what Go's archive/tar writes for long or non-ASCII names) and
 * GNU long names; `./` in front of a name is dropped, as extracting the archive would. Folders,
 * links and files below the root are ignored: the artifact carries its files at the root, and a link
 * is never followed (a provider file is always a regular file). A name given twice is refused rather
 * than letting the later entry win silently, as an extraction would.
 */
import { gunzipSync } from 'node:zlib';
import { FetchError, error } from '../../errors.js';

const BLOCK = 512;
/** Uncompressed ceiling: the largest provider components file today is a few MiB. */
const MAX_UNCOMPRESSED = 256 * 1024 * 1024;

/** The root files of a gzip'd tar: name → bytes. `what` names the layer in errors. */
export function readArchiveFiles(gzipped: Uint8Array, what: string): Map<string, Uint8Array> {
  let tar: Buffer;
  try {
    tar = gunzipSync(gzipped, { maxOutputLength: MAX_UNCOMPRESSED });
  } catch (cause) {
    const reason =
      cause instanceof RangeError
        ? `it unpacks to more than ${MAX_UNCOMPRESSED / 1024 / 1024} MiB`
        : 'it is not gzip data';
    throw broken(what, reason);
  }
  return readTarFiles(tar, what);
}

/** The root files of an uncompressed tar. */
export function readTarFiles(tar: Uint8Array, what: string): Map<string, Uint8Array> {
  const bytes = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  const files = new Map<string, Uint8Array>();
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break; // end-of-archive blocks
    if (!checksumMatches(header)) throw broken(what, `the tar header at byte ${offset} has a bad checksum`);
    const size = octal(header.subarray(124, 136));
    if (size === undefined) throw broken(what, `the tar header at byte ${offset} has no valid size`);
    const type = String.fromCharCode(header[156] ?? 0);
    const bodyStart = offset + BLOCK;
    const bodyEnd = bodyStart + size;
    if (bodyEnd > bytes.length) throw broken(what, `the tar entry at byte ${offset} is cut short`);
    const body = bytes.subarray(bodyStart, bodyEnd);
    offset = bodyStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x') {
      longName = paxPath(body) ?? longName;
      continue;
    }
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'g') continue; // global PAX header: nothing capi-render needs
    const name = normalise(longName ?? headerName(header));
    longName = undefined;
    if (type !== '0' && type !== '\0' && type !== '7') continue; // folders, links, devices
    if (name === undefined || name.includes('/')) continue;
    if (files.has(name)) throw broken(what, `the archive holds ${name} twice`);
    files.set(name, new Uint8Array(body));
  }
  return files;
}

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = isUstar ? cString(header.subarray(345, 500)) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

/** `./a.yaml` → `a.yaml`; undefined for the root itself or a path leaving it. */
function normalise(name: string): string | undefined {
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return undefined;
  return parts.join('/');
}

function paxPath(body: Buffer): string | undefined {
  let found: string | undefined;
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(body.subarray(at, space).toString('latin1'));
    if (!Number.isSafeInteger(length) || length <= 0 || at + length > body.length) break;
    const record = body.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === 'path') found = record.slice(eq + 1);
    at += length;
  }
  return found;
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

function octal(field: Buffer): number | undefined {
  const text = cString(field).trim();
  if (!/^[0-7]+$/.test(text)) return undefined;
  const value = parseInt(text, 8);
  return Number.isSafeInteger(value) ? value : undefined;
}

function checksumMatches(header: Buffer): boolean {
  const stored = octal(header.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return stored === sum;
}

function broken(what: string, why: string): FetchError {
  return new FetchError(
    error('source-unsupported', `${what} is not a usable tar+gzip layer: ${why}`, {
      hint: "the cluster-api layout carries metadata.yaml and the components file at the root of one gzip'd tar; republish the artifact",
    }),
  );
}
