/**
 * A tar archive whose bytes depend only on the files' paths and contents: entries in the order
 * Go's filepath.WalkDir visits a folder (the root as `.`, then each folder's entries by name, a
 * folder before what it holds — the order `flux build artifact` writes), every header with mode
 * 0644 (files) or 0755 (folders), owner and group 0 with empty names, and modification time 0.
 * So neither the checkout's umask, its owner nor its clock reach the archive (Flux would otherwise
 * carry the on-disk permission bits into the archive). POSIX ustar headers; a path that does not fit
 * ustar's name/prefix fields gets a PAX `path` record first, as Go's archive/tar does.
 */
import { TAR_END, tarEntryHeader, tarPadding } from '../tar-blocks.js';

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
    if (f.path === '' || f.path.startsWith('/') || f.path.split('/').some((s) => s === '' || s === '.' || s === '..'))
      throw new Error(`unsafe archive path ${JSON.stringify(f.path)}`);
    if (byPath.has(f.path)) throw new Error(`archive path ${f.path} is given twice`);
    byPath.set(f.path, f.bytes);
  }
  const blocks: Uint8Array[] = [tarEntryHeader('.', DIR_MODE, 0, '5')];
  for (const entry of walkOrder([...byPath.keys()])) {
    const bytes = byPath.get(entry);
    if (bytes === undefined) {
      blocks.push(tarEntryHeader(entry, DIR_MODE, 0, '5'));
    } else {
      blocks.push(tarEntryHeader(entry, FILE_MODE, bytes.length, '0'), bytes, tarPadding(bytes.length));
    }
  }
  blocks.push(TAR_END);
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

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}
