/**
 * The blocks of a deterministic tar, as Go's archive/tar writes them: a POSIX ustar header per entry
 * (uid/gid 0, mtime the epoch, no user or group names), a PAX `path` record first when the path fits
 * no ustar name/prefix split or is not ASCII, content padded to 512 bytes, two zero blocks at the
 * end. Shared by the archives capi-render publishes and the image archives it carries.
 */

const BLOCK = 512;
/** ustar's 11 octal digits. */
const MAX_OCTAL = 0o77777777777;

/** The two zero blocks that end an archive. */
export const TAR_END = new Uint8Array(2 * BLOCK);

/** The header blocks of one entry: ustar when the path fits, else a PAX record then the header. */
export function tarEntryHeader(entryPath: string, mode: number, size: number, type: '0' | '5'): Uint8Array {
  const split = splitUstar(entryPath);
  if (split) return header(split.name, mode, size, type, split.prefix);
  const record = paxRecord('path', entryPath);
  return Buffer.concat([
    header('PaxHeaders.0/entry', 0o644, record.length, 'x'),
    record,
    tarPadding(record.length),
    header(Buffer.from(entryPath).subarray(0, 100).toString('latin1'), mode, size, type),
  ]);
}

/** Zero bytes that pad `size` bytes of content to the block size. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** ustar stores a path as prefix (≤155 bytes) + `/` + name (≤100 bytes), split at a slash. */
function splitUstar(p: string): { name: string; prefix: string } | undefined {
  const bytes = Buffer.from(p, 'utf8');
  if (bytes.length !== p.length) return undefined; // non-ASCII: PAX carries UTF-8 exactly
  if (p.length <= 100) return { name: p, prefix: '' };
  for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
    if (i <= 155 && p.length - i - 1 <= 100 && p.length - i - 1 > 0)
      return { prefix: p.slice(0, i), name: p.slice(i + 1) };
  }
  return undefined;
}

/** A PAX record `"<len> <key>=<value>\n"`, whose length counts itself. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  let length = bodyLength + 1;
  while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength;
  return Buffer.from(`${length}${body}`, 'utf8');
}

function header(name: string, mode: number, size: number, type: '0' | '5' | 'x', prefix = ''): Uint8Array {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'latin1');
  octal(h, 100, 8, mode);
  octal(h, 108, 8, 0); // uid
  octal(h, 116, 8, 0); // gid
  octal(h, 124, 12, size);
  octal(h, 136, 12, 0); // mtime: the epoch
  h.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  h.write(type, 156, 1, 'latin1');
  h.write('ustar\u000000', 257, 8, 'latin1');
  h.write(prefix, 345, 155, 'latin1');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'latin1');
  return h;
}

function octal(buf: Buffer, offset: number, width: number, value: number): void {
  if (value > MAX_OCTAL) throw new Error(`tar: ${value} does not fit a ustar field`);
  buf.write(`${value.toString(8).padStart(width - 1, '0')}\u0000`, offset, width, 'latin1');
}
