/**
 * The ustar subset an `oci-archive` needs: writing a deterministic tar (entries in the order given,
 * mtime 0, uid/gid 0, no user or group names, mode 0644 for files and 0755 for folders) and reading
 * back where each regular file's bytes are. Reading refuses links, devices, absolute names, `..`
 * and a name seen twice, naming the entry: an archive carried across an air gap is input to check.
 */
import { SpecError, error } from '../../errors.js';
import { TAR_END, tarEntryHeader, tarPadding } from '../../tar-blocks.js';

const BLOCK = 512;

/** One entry to write: a folder (name ending in `/`) or a file of `size` bytes. */
export interface TarEntryHeader {
  name: string;
  size: number;
}

/**
 * The header of an entry (a folder when its name ends in `/`): the shared deterministic tar blocks,
 * mode 0755 for folders and 0644 for files.
 */
export function tarHeader(entry: TarEntryHeader): Uint8Array {
  const folder = entry.name.endsWith('/');
  return tarEntryHeader(entry.name, folder ? 0o755 : 0o644, folder ? 0 : entry.size, folder ? '5' : '0');
}

export { TAR_END, tarPadding };

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
export async function readTarIndex(
  read: (offset: number, length: number) => Promise<Uint8Array>,
  total: number,
  archive: string,
): Promise<TarFile[]> {
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
    if (stated !== sum)
      throw tarError(at, 'has a header whose checksum does not match: not a tar archive, or a damaged one');
    const type = String.fromCharCode(header[156] ?? 0);
    const size = parseOctal(header, 124, 12, at, 'size');
    const name = longName ?? entryName(header);
    longName = undefined;
    const dataAt = offset + BLOCK;
    const next = dataAt + Math.ceil(size / BLOCK) * BLOCK;
    if (dataAt + size > total)
      throw tarError(`${archive}:${name}`, `is cut short: the archive ends before its ${size} bytes`);
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
      const kind =
        type === '1' ? 'a hard link' : type === '2' ? 'a symbolic link' : `an entry of type ${JSON.stringify(type)}`;
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
  if (name.startsWith('/') || name.split('/').includes('..'))
    throw tarError(where, 'names a path outside the archive (absolute or with ..)');
}

function cString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}

function parseOctal(block: Uint8Array, offset: number, length: number, where: string, field: string): number {
  const text = cString(block, offset, length).trim();
  if (!/^[0-7]{1,12}$/.test(text))
    throw tarError(where, `has a ${field} field that is not octal: not a tar archive, or a damaged one`);
  return parseInt(text, 8);
}

function tarError(where: string, problem: string): SpecError {
  return new SpecError(
    error('image', `${where}: ${problem}`, {
      hint: 'write the archive again with capi-render mirror --images --to FILE --format oci-archive',
    }),
  );
}
