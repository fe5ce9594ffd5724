/**
 * The ustar subset an `oci-archive` needs: writing a deterministic tar (entries in the order given,
 * mtime 0, uid/gid 0, no user or group names, mode 0644 for files and 0755 for folders) and reading
 * back where each regular file's bytes are. Reading refuses links, devices, absolute names, `..`
 * and a name seen twice, naming the entry: an archive carried across an air gap is input to check.
 */
import { SpecError, error } from '../../errors.js';

const BLOCK = 512;
/** ustar's 11 octal digits. */
const MAX_SIZE = 0o77777777777;

/** One entry to write: a folder (name ending in `/`) or a file of `size` bytes. */
export interface TarEntryHeader {
  name: string;
  size: number;
}

/**
 * The header of an entry: 512 bytes, preceded by a pax header with its path when the name fits
 * no ustar header (a sha512 blob's 128-hex name).
 */
export function tarHeader(entry: TarEntryHeader): Uint8Array {
  const split = splitName(entry.name);
  if (split) return ustarHeader(entry, split);
  const record = paxRecord('path', entry.name);
  const pax = ustarHeader({ name: `PaxHeaders/${entry.name.slice(-80)}`, size: record.length }, ['', `PaxHeaders/${entry.name.slice(-80)}`], 'x');
  const short = entry.name.slice(-100).replace(/^[^/]*\//, '');
  return Buffer.concat([pax, record, tarPadding(record.length), ustarHeader(entry, ['', short])]);
}

/** `<length> <key>=<value>\n`, the length counting itself. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return Buffer.from(`${length}${body}`);
}

function ustarHeader(entry: TarEntryHeader, [prefix, name]: [string, string], type?: string): Uint8Array {
  const folder = entry.name.endsWith('/');
  const header = new Uint8Array(BLOCK);
  writeText(header, 0, 100, name);
  writeOctal(header, 100, 8, folder ? 0o755 : 0o644);
  writeOctal(header, 108, 8, 0);
  writeOctal(header, 116, 8, 0);
  writeOctal(header, 124, 12, folder ? 0 : entry.size);
  writeOctal(header, 136, 12, 0);
  header.fill(0x20, 148, 156);
  header[156] = type ? type.charCodeAt(0) : folder ? 0x35 : 0x30;
  writeText(header, 257, 6, 'ustar');
  writeText(header, 263, 2, '00');
  writeText(header, 345, 155, prefix);
  const sum = header.reduce((n, b) => n + b, 0);
  writeText(header, 148, 7, `${sum.toString(8).padStart(6, '0')}\0`);
  return header;
}

/** Zero bytes that pad a file's content to the block size. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export const TAR_END = new Uint8Array(2 * BLOCK);

/** `[prefix, name]` of a ustar header, or undefined when the name fits none. */
function splitName(name: string): [string, string] | undefined {
  if (Buffer.byteLength(name) <= 100) return ['', name];
  const cut = name.lastIndexOf('/', name.length - 2);
  const prefix = name.slice(0, cut);
  const rest = name.slice(cut + 1);
  if (cut <= 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(rest) > 100) return undefined;
  return [prefix, rest];
}

function writeText(block: Uint8Array, offset: number, length: number, text: string): void {
  block.set(new TextEncoder().encode(text).subarray(0, length), offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  if (value > MAX_SIZE) throw new Error(`tar: ${value} does not fit a ustar field`);
  writeText(block, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** A regular file of an archive: where its bytes start and how many there are. */
export interface TarFile {
  name: string;
  offset: number;
  size: number;
}

/**
 * Lists the regular files of an archive of `total` bytes, reading headers through `read(offset,
 * length)`. Folders are passed over; anything else, a bad checksum or a truncated archive is a
 * SpecError naming `archive` and the entry.
 */
export async function readTarIndex(read: (offset: number, length: number) => Promise<Uint8Array>, total: number, archive: string): Promise<TarFile[]> {
  const files: TarFile[] = [];
  const seen = new Set<string>();
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= total) {
    const header = await read(offset, BLOCK);
    if (header.every((b) => b === 0)) return files;
    const at = `${archive} (entry at byte ${offset})`;
    const stated = parseOctal(header, 148, 8, at, 'checksum');
    const sum = header.reduce((n, b, i) => n + (i >= 148 && i < 156 ? 0x20 : b), 0);
    if (stated !== sum) throw tarError(at, 'has a header whose checksum does not match: not a tar archive, or a damaged one');
    const type = String.fromCharCode(header[156] ?? 0);
    const size = parseOctal(header, 124, 12, at, 'size');
    const name = longName ?? entryName(header);
    longName = undefined;
    const dataAt = offset + BLOCK;
    const next = dataAt + Math.ceil(size / BLOCK) * BLOCK;
    if (dataAt + size > total) throw tarError(`${archive}:${name}`, `is cut short: the archive ends before its ${size} bytes`);
    if (type === 'x' || type === 'g') {
      // A pax header: only a path record matters here (a long name); others (times, ids) do not.
      if (type === 'x') longName = paxPath(await read(dataAt, Math.min(size, 65536)));
      offset = next;
      continue;
    }
    checkName(name, `${archive}:${name}`);
    if (type === '5') {
      offset = next;
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7') {
      const kind = type === '1' ? 'a hard link' : type === '2' ? 'a symbolic link' : `an entry of type ${JSON.stringify(type)}`;
      throw tarError(`${archive}:${name}`, `is ${kind}; an image archive holds regular files and folders only`);
    }
    const clean = name.replace(/^\.\//, '');
    if (seen.has(clean)) throw tarError(`${archive}:${name}`, 'appears twice in the archive');
    seen.add(clean);
    files.push({ name: clean, offset: dataAt, size });
    offset = next;
  }
  throw tarError(archive, 'ends without the two zero blocks that close a tar archive: it is cut short');
}

function entryName(header: Uint8Array): string {
  const name = cString(header, 0, 100);
  const magic = cString(header, 257, 6);
  const prefix = magic === 'ustar' ? cString(header, 345, 155) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function paxPath(bytes: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(bytes);
  const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(text);
  return match?.[1];
}

function checkName(name: string, where: string): void {
  if (name === '' || name.includes('\0')) throw tarError(where, 'has an empty name');
  if (name.startsWith('/') || name.split('/').includes('..')) throw tarError(where, 'names a path outside the archive (absolute or with ..)');
}

function cString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

function parseOctal(block: Uint8Array, offset: number, length: number, where: string, field: string): number {
  const text = cString(block, offset, length).trim();
  if (!/^[0-7]{1,12}$/.test(text)) throw tarError(where, `has a ${field} field that is not octal: not a tar archive, or a damaged one`);
  return parseInt(text, 8);
}

function tarError(where: string, problem: string): SpecError {
  return new SpecError(error('image', `${where}: ${problem}`, { hint: 'write the archive again with capi-render mirror --images --to FILE --format oci-archive' }));
}
