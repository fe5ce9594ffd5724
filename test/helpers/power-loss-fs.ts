/**
 * A TransactionFs for crash tests: it performs every call on the real disk, records it, can cut the
 * power after the n-th call (every later call fails, as if the process had died), and keeps a model
 * of what a disk would hold after a power loss at that moment.
 *
 * The model works per inode, as POSIX promises: a file's bytes are durable once the file was
 * fsynced after they were written; a name created, renamed or removed in a folder is durable once
 * that folder was fsynced afterwards; a rename is durable as a whole once either of its two folders
 * was (journaling file systems commit it as one transaction). What the disk held before the write is
 * durable. Whatever is not durable may or may not survive the power loss — a `Survival` decides, per
 * change: nothing (only fsynced state), names but no bytes (a metadata-only journal: the classic
 * zero-length file after a rename), or a seeded coin per change. Bytes that did not survive read back
 * empty, as ext4's delayed allocation leaves them.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nodeTransactionFs, type TransactionFs } from '../../src/output/durable-fs.js';

/** One call that changed the disk, as recorded. */
export interface FsCall {
  op: keyof TransactionFs;
  path: string;
  to?: string;
}

/** One folder's side of a change of names; both sides of a rename share `change`. */
type Half = { dir: Dir; name: string; id: number | undefined; change: { survived?: boolean } };
type Dir = { kind: 'dir'; volatile: Map<string, number>; durable: Map<string, number>; pending: Half[] };
type File = { kind: 'file'; volatile: string; durable: string | undefined };

/** The disk as the process sees it and as a power loss would leave it (see the module comment). */
class DiskModel {
  private readonly nodes = new Map<number, Dir | File>();
  private next = 1;
  private readonly rootId: number;

  constructor(private readonly root: string) {
    this.rootId = this.load(root);
  }

  /** Reads the tree at `p` as fully durable. */
  private load(p: string): number {
    const id = this.next++;
    if (lstatSync(p).isDirectory()) {
      const dir: Dir = { kind: 'dir', volatile: new Map(), durable: new Map(), pending: [] };
      this.nodes.set(id, dir);
      for (const name of readdirSync(p)) {
        const child = this.load(path.join(p, name));
        dir.volatile.set(name, child);
        dir.durable.set(name, child);
      }
    } else {
      const text = readFileSync(p, 'utf8');
      this.nodes.set(id, { kind: 'file', volatile: text, durable: text });
    }
    return id;
  }

  private lookup(p: string): number | undefined {
    const rel = path.relative(this.root, p);
    if (rel.startsWith('..')) return undefined;
    let id: number | undefined = this.rootId;
    for (const part of rel.split(path.sep).filter(Boolean)) {
      const node: Dir | File | undefined = id === undefined ? undefined : this.nodes.get(id);
      id = node?.kind === 'dir' ? node.volatile.get(part) : undefined;
    }
    return id;
  }

  private parent(p: string): { dir: Dir; name: string } | undefined {
    const id = this.lookup(path.dirname(p));
    const node = id === undefined ? undefined : this.nodes.get(id);
    return node?.kind === 'dir' ? { dir: node, name: path.basename(p) } : undefined;
  }

  private setName(p: string, id: number | undefined): Half | undefined {
    const at = this.parent(p);
    if (!at) return undefined;
    if (id === undefined) at.dir.volatile.delete(at.name);
    else at.dir.volatile.set(at.name, id);
    const half: Half = { dir: at.dir, name: at.name, id, change: {} };
    at.dir.pending.push(half);
    return half;
  }

  /** Whether `p` exists as the process sees it. */
  has(p: string): boolean {
    return this.lookup(p) !== undefined;
  }

  /** Mirrors one call the real disk completed. */
  apply(call: FsCall, data?: string): void {
    const existing = this.lookup(call.path);
    const node = existing === undefined ? undefined : this.nodes.get(existing);
    switch (call.op) {
      case 'writeFile':
        if (node?.kind === 'file') node.volatile = data ?? '';
        else this.create(call.path, { kind: 'file', volatile: data ?? '', durable: undefined });
        break;
      case 'copyFile': {
        const from = this.nodes.get(this.lookup(call.path)!) as File;
        this.create(call.to!, { kind: 'file', volatile: from.volatile, durable: undefined });
        break;
      }
      case 'link':
        this.setName(call.to!, existing);
        break;
      case 'mkdir':
        this.create(call.path, { kind: 'dir', volatile: new Map(), durable: new Map(), pending: [] });
        break;
      case 'rename': {
        if (existing === undefined) break;
        const gone = this.setName(call.path, undefined);
        const came = this.setName(call.to!, existing);
        if (gone && came) came.change = gone.change;
        break;
      }
      case 'rm':
      case 'rmdir':
        if (existing !== undefined) this.setName(call.path, undefined);
        break;
      case 'syncFile':
        if (node?.kind === 'file') node.durable = node.volatile;
        break;
      case 'syncFolder':
        if (node?.kind === 'dir') {
          // A rename's other side becomes durable too; it stays pending there, replayed in that folder's order.
          for (const half of node.pending) half.change.survived = true;
          for (const dir of this.dirs()) {
            for (const half of dir.pending) if (half.change.survived) settle(half.dir.durable, half);
            dir.pending = dir.pending.filter((h) => !h.change.survived);
          }
        }
        break;
    }
  }

  private create(p: string, node: Dir | File): void {
    const id = this.next++;
    this.nodes.set(id, node);
    this.setName(p, id);
  }

  private dirs(): Dir[] {
    return [...this.nodes.values()].filter((n): n is Dir => n.kind === 'dir');
  }

  /** Writes what a power loss now would leave into `target` (an empty folder). Does not change the model. */
  materialize(target: string, survival: Survival): void {
    const decided = new Map<Half['change'], boolean>();
    const view = new Map<Dir, Map<string, number>>();
    for (const dir of this.dirs()) {
      const names = new Map(dir.durable);
      for (const half of dir.pending) {
        let survived = decided.get(half.change);
        if (survived === undefined) decided.set(half.change, (survived = survival.name()));
        if (survived) settle(names, half);
      }
      view.set(dir, names);
    }
    const walk = (id: number, at: string, seen: Set<number>) => {
      const node = this.nodes.get(id)!;
      if (node.kind === 'file') {
        const unsynced = node.durable !== node.volatile;
        return writeFileSync(at, unsynced && survival.bytes() ? node.volatile : (node.durable ?? ''));
      }
      if (seen.has(id)) return;
      mkdirSync(at, { recursive: true });
      for (const [name, child] of view.get(node)!) walk(child, path.join(at, name), new Set([...seen, id]));
    };
    walk(this.rootId, target, new Set());
  }
}

function settle(names: Map<string, number>, half: Half): void {
  if (half.id === undefined) names.delete(half.name);
  else names.set(half.name, half.id);
}

/** Whether a change that was not made durable survived the power loss anyway (asked once per change). */
export interface Survival {
  name(): boolean;
  bytes(): boolean;
}

/** The ways a power loss treats what was not fsynced (see the module comment). */
export function survivals(seed: number): Record<string, Survival> {
  let a = seed >>> 0;
  const coin = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 < 0.5;
  };
  return {
    'only what was fsynced': { name: () => false, bytes: () => false },
    'names without their bytes': { name: () => true, bytes: () => false },
    'a coin per change': { name: coin, bytes: coin },
  };
}

/** The error every call gets once the power is cut. */
export class PowerCut extends Error {
  code = 'EIO';
  constructor() {
    super('power cut');
  }
}

/**
 * A recording TransactionFs over the real disk under `root`. `cutAfter`: calls allowed before the
 * power goes (undefined: never). `exdev(from, to)`: renames that fail with EXDEV (another file system).
 * `modelOnly`: fsyncs are recorded and modelled but not issued (the crash loops need the model, not
 * the disk, and a loaded runner pays ~10 ms per real fsync).
 */
export function powerLossFs(
  root: string,
  options: { cutAfter?: number; exdev?: (from: string, to: string) => boolean; modelOnly?: boolean } = {},
) {
  const calls: FsCall[] = [];
  const model = new DiskModel(root);
  const real = nodeTransactionFs;
  const run = async <T>(call: FsCall, act: () => Promise<T>, data?: string): Promise<T> => {
    if (options.cutAfter !== undefined && calls.length >= options.cutAfter) throw new PowerCut();
    if (call.op === 'mkdir') {
      // Recorded as it starts, one call per folder it makes: a write into a folder that another
      // mkdir -p in flight made must find that folder in the model.
      for (const dir of missingChain(call.path)) {
        calls.push({ op: 'mkdir', path: dir });
        model.apply({ op: 'mkdir', path: dir });
      }
      return act();
    }
    const result = await act();
    calls.push(call);
    model.apply(call, data);
    return result;
  };
  const exists = (p: string) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  };
  const missingChain = (dir: string): string[] =>
    model.has(dir) || !dir.startsWith(root) ? [] : [...missingChain(path.dirname(dir)), dir];
  const tfs: TransactionFs = {
    writeFile: (file, text) => {
      // The model keeps text; the disk gets what was given.
      const whole =
        typeof text === 'string'
          ? text
          : text instanceof Uint8Array
            ? Buffer.from(text).toString('utf8')
            : [...text].join('');
      return run(
        { op: 'writeFile', path: file },
        () => real.writeFile(file, text instanceof Uint8Array ? text : whole),
        whole,
      );
    },
    link: (existing, created) => run({ op: 'link', path: existing, to: created }, () => real.link(existing, created)),
    mkdir: (dir, o) => run({ op: 'mkdir', path: dir }, () => real.mkdir(dir, o)),
    rename: (from, to) =>
      run({ op: 'rename', path: from, to }, async () => {
        if (options.exdev?.(from, to)) throw Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
        await real.rename(from, to);
      }),
    copyFile: (from, to) => run({ op: 'copyFile', path: from, to }, () => real.copyFile(from, to)),
    rm: async (target, o) => {
      if (!exists(target)) return real.rm(target, o);
      return run({ op: 'rm', path: target }, () => real.rm(target, o));
    },
    rmdir: (dir) => run({ op: 'rmdir', path: dir }, () => real.rmdir(dir)),
    syncFile: (file) =>
      run({ op: 'syncFile', path: file }, () => (options.modelOnly ? Promise.resolve() : real.syncFile(file))),
    syncFolder: (dir) =>
      run({ op: 'syncFolder', path: dir }, () => (options.modelOnly ? Promise.resolve() : real.syncFolder(dir))),
  };
  return {
    tfs,
    calls,
    materializePowerLoss: (target: string, survival: Survival) => model.materialize(target, survival),
  };
}
