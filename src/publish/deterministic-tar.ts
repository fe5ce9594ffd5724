/**
 * A tar archive whose bytes depend only on the files' paths and contents: entries in the order
 * Go's filepath.WalkDir visits a folder (the root as `.`, then each folder's entries by name, a
 * folder before what it holds — the order `flux build artifact` writes), every header with mode
 * 0644 (files) or 0755 (folders), owner and group 0 with empty names, and modification time 0.
 * So neither the checkout's umask, its owner nor its clock reach the archive (Flux keeps on-disk
 * permission bits, DELIVERY-REFERENCE trap 8). POSIX ustar headers; a path that does not fit
 * ustar's name/prefix fields gets a PAX `path` record first, as Go's archive/tar does.
 */

const BLOCK = 512;
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

/** A file of the archive: a `/`-separated relative path and its bytes. */
export interface TarFile {
  path: string;
  bytes: Uint8Array;
}

/** The archive of `files`; folders are derived from the paths. Throws on an unsafe or repeated path. */
export function deterministicTar(files: readonly TarFile[]): Uint8Array {
  const byPath = new Map<string, Uint8Array>();
  for (const f of files) {
    if (f.path === '' || f.path.startsWith('/') || f.path.split('/').some((s) => s === '' || s === '.' || s === '..')) throw new Error(`unsafe archive path ${JSON.stringify(f.path)}`);
    if (byPath.has(f.path)) throw new Error(`archive path ${f.path} is given twice`);
    byPath.set(f.path, f.bytes);
  }
  const blocks: Uint8Array[] = [header('.', DIR_MODE, 0, '5')];
  for (const entry of walkOrder([...byPath.keys()])) {
    const bytes = byPath.get(entry);
    if (bytes === undefined) {
      blocks.push(...pathBlocks(entry, DIR_MODE, 0, '5'));
    } else {
      blocks.push(...pathBlocks(entry, FILE_MODE, bytes.length, '0'), bytes, new Uint8Array(padding(bytes.length)));
    }
  }
  blocks.push(new Uint8Array(2 * BLOCK));
  return concat(blocks);
}

/** Every folder and file under the root, in WalkDir order: depth first, each folder's entries sorted by name. */
function walkOrder(paths: readonly string[]): string[] {
  interface Node {
    children: Map<string, Node>;
  }
  const root: Node = { children: new Map() };
  for (const p of paths) {
    let node = root;
    for (const segment of p.split('/')) {
      let child = node.children.get(segment);
      if (!child) node.children.set(segment, (child = { children: new Map() }));
      node = child;
    }
  }
  const out: string[] = [];
  const visit = (node: Node, prefix: string) => {
    // Go sorts names by bytes; UTF-8 byte order is code-point order, which this comparison keeps for BMP names.
    for (const name of [...node.children.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
      const full = prefix === '' ? name : `${prefix}/${name}`;
      out.push(full);
      visit(node.children.get(name)!, full);
    }
  };
  visit(root, '');
  return out;
}

/** The header blocks of one entry: ustar when the path fits, else a PAX record then the header. */
function pathBlocks(entryPath: string, mode: number, size: number, type: '0' | '5'): Uint8Array[] {
  const split = splitUstar(entryPath);
  if (split) return [header(split.name, mode, size, type, split.prefix)];
  const record = paxRecord('path', entryPath);
  return [header('PaxHeaders.0/entry', 0o644, record.length, 'x'), record, new Uint8Array(padding(record.length)), header(Buffer.from(entryPath).subarray(0, 100).toString('latin1'), mode, size, type)];
}

/** ustar stores a path as prefix (≤155 bytes) + `/` + name (≤100 bytes), split at a slash. */
function splitUstar(p: string): { name: string; prefix: string } | undefined {
  const bytes = Buffer.from(p, 'utf8');
  if (bytes.length !== p.length) return undefined; // non-ASCII: PAX carries UTF-8 exactly
  if (p.length <= 100) return { name: p, prefix: '' };
  for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) {
    if (i <= 155 && p.length - i - 1 <= 100 && p.length - i - 1 > 0) return { prefix: p.slice(0, i), name: p.slice(i + 1) };
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
  buf.write(`${value.toString(8).padStart(width - 1, '0')}\u0000`, offset, width, 'latin1');
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}
