/**
 * Sets and maps of output paths (`<env>/<component>/<file>`, `/`-separated) held compactly: each
 * path is kept as its first segment and the rest, and the rests — the same few hundred names in
 * every environment — are kept once for the whole table. A write of ten thousand environments
 * lists well over a million files until it commits; as whole strings they cost about a hundred
 * bytes each, here about a map entry.
 */

/** The rests of paths, one copy each, shared by the tables of one write. */
export class PathNames {
  private readonly names = new Map<string, string>();

  /** The one copy of `text`, sharing no storage with the string it was cut from. */
  intern(text: string): string {
    let kept = this.names.get(text);
    if (kept === undefined) this.names.set(text, (kept = ownCopy(text)));
    return kept;
  }
}

/**
 * A string of its own: V8 keeps a substring of 13 characters or more as a view of its parent, which
 * then lives as long as the substring does.
 */
function ownCopy(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** Paths without a `/` are kept under this first segment (no file name holds a NUL). */
const TOP_LEVEL = '\0';

/**
 * A map from output path to `V`. Grouped by the rest of the path, then by the first segment: a
 * few hundred large maps (one per file name a fleet repeats) rather than one small map per
 * environment, whose hash tables would be mostly slack. Iterates in no particular order;
 * {@link sortedKeys} sorts.
 */
export class PathMap<V> {
  private readonly byRest = new Map<string, Map<string, V>>();
  private count = 0;

  constructor(private readonly names: PathNames = new PathNames()) {}

  get size(): number {
    return this.count;
  }

  get(path: string): V | undefined {
    const [top, rest] = split(path);
    return this.byRest.get(rest)?.get(top);
  }

  has(path: string): boolean {
    const [top, rest] = split(path);
    return this.byRest.get(rest)?.has(top) ?? false;
  }

  set(path: string, value: V): this {
    const [top, rest] = split(path);
    let tops = this.byRest.get(rest);
    if (!tops) this.byRest.set(this.names.intern(rest), (tops = new Map()));
    const before = tops.size;
    tops.set(this.names.intern(top), value);
    this.count += tops.size - before;
    return this;
  }

  delete(path: string): boolean {
    const [top, rest] = split(path);
    const tops = this.byRest.get(rest);
    if (!tops?.delete(top)) return false;
    this.count--;
    if (tops.size === 0) this.byRest.delete(rest);
    return true;
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [rest, tops] of this.byRest) for (const [top, value] of tops) yield [join(top, rest), value];
  }

  *keys(): IterableIterator<string> {
    for (const [path] of this.entries()) yield path;
  }

  /** Every path in `Array.prototype.sort` order (see sortedPaths). */
  sortedKeys(): string[] {
    return sortedPaths(this.byRest, this.count);
  }
}

/** A set of output paths, grouped as {@link PathMap} groups them. */
export class PathSet implements Iterable<string> {
  private readonly byRest = new Map<string, Set<string>>();
  private count = 0;

  constructor(
    paths: Iterable<string> = [],
    private readonly names: PathNames = new PathNames(),
  ) {
    for (const path of paths) this.add(path);
  }

  get size(): number {
    return this.count;
  }

  has(path: string): boolean {
    const [top, rest] = split(path);
    return this.byRest.get(rest)?.has(top) ?? false;
  }

  add(path: string): this {
    const [top, rest] = split(path);
    let tops = this.byRest.get(rest);
    if (!tops) this.byRest.set(this.names.intern(rest), (tops = new Set()));
    const before = tops.size;
    tops.add(this.names.intern(top));
    this.count += tops.size - before;
    return this;
  }

  delete(path: string): boolean {
    const [top, rest] = split(path);
    const tops = this.byRest.get(rest);
    if (!tops?.delete(top)) return false;
    this.count--;
    if (tops.size === 0) this.byRest.delete(rest);
    return true;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (const [rest, tops] of this.byRest) for (const top of tops) yield join(top, rest);
  }

  /** The paths in `Array.prototype.sort` order (see {@link PathMap.sortedKeys}). */
  sorted(): string[] {
    return sortedPaths(this.byRest, this.count);
  }
}

/**
 * The `count` paths of `byRest` (rest → its first segments), sorted by UTF-16 code units as
 * `Array.prototype.sort` sorts them, without comparing whole paths: a path sorts by its head —
 * `<top>/`, or the name itself for a top-level file (it has no `/`, so it differs from `<top>/…`
 * within `<top>/`) — and then by its rest.
 */
function sortedPaths(byRest: ReadonlyMap<string, { keys(): Iterable<string> }>, count: number): string[] {
  // `<top>/` once per first segment: each path is then one concatenation of two shared strings.
  const prefixes = new Map<string, string>();
  const heads = new Set<string>();
  for (const [rest, tops] of byRest) {
    for (const top of tops.keys()) {
      if (top === TOP_LEVEL) heads.add(rest);
      else if (!prefixes.has(top)) {
        const prefix = `${top}/`;
        prefixes.set(top, prefix);
        heads.add(prefix);
      }
    }
  }
  const headRank = rankOf(heads);
  const restRank = rankOf(byRest.keys());
  const span = restRank.size + 1;
  const order = new Float64Array(count);
  const paths: string[] = [];
  let i = 0;
  for (const [rest, tops] of byRest) {
    for (const top of tops.keys()) {
      const prefix = prefixes.get(top);
      const head = headRank.get(prefix ?? rest)!;
      order[i] = (prefix === undefined ? head * span : head * span + 1 + restRank.get(rest)!) * count + i;
      paths.push(prefix === undefined ? rest : prefix + rest);
      i++;
    }
  }
  order.sort();
  return Array.from(order, (key) => paths[key % count]!);
}

function join(top: string, rest: string): string {
  return top === TOP_LEVEL ? rest : `${top}/${rest}`;
}

/** Each string's place in code-unit order. */
function rankOf(values: Iterable<string>): Map<string, number> {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(sorted.map((v, i) => [v, i]));
}

function split(path: string): [top: string, rest: string] {
  const at = path.indexOf('/');
  return at < 0 ? [TOP_LEVEL, path] : [path.slice(0, at), path.slice(at + 1)];
}
