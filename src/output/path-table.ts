/**
 * Sets and maps of output paths (`<env>/<component>/<file>`, `/`-separated) held compactly: each
 * path is kept as its first segment and the rest, and the rests — the same few hundred names in
 * every environment — are kept once for the whole table. A write of ten thousand environments
 * lists well over a million files until it commits; as whole strings they cost about a hundred
 * bytes each, here about a map entry.
 */

/** Path segments and names, one copy each, shared by the tables of one write. */
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

/** What a group of first segments is: a Set of them, or a Map from them to values. */
interface Tops {
  readonly size: number;
  has(top: string): boolean;
  delete(top: string): boolean;
  keys(): IterableIterator<string>;
}

/**
 * Paths grouped by the rest of the path, then by the first segment: a few hundred large tables
 * (one per file name a fleet repeats) rather than one small table per environment, whose hash
 * tables would be mostly slack.
 */
abstract class PathGroups<G extends Tops> {
  protected readonly byRest = new Map<string, G>();
  protected count = 0;

  constructor(protected readonly names: PathNames = new PathNames()) {}

  get size(): number {
    return this.count;
  }

  has(path: string): boolean {
    const [top, rest] = split(path);
    return this.byRest.get(rest)?.has(top) ?? false;
  }

  delete(path: string): boolean {
    const [top, rest] = split(path);
    const tops = this.byRest.get(rest);
    if (!tops?.delete(top)) return false;
    this.count--;
    if (tops.size === 0) this.byRest.delete(rest);
    return true;
  }

  /** Puts `path` in its group (made with `make` if new) through `put`, counting it if it is new. */
  protected place(path: string, make: () => G, put: (tops: G, top: string) => void): void {
    const [top, rest] = split(path);
    let tops = this.byRest.get(rest);
    if (!tops) this.byRest.set(this.names.intern(rest), (tops = make()));
    const before = tops.size;
    put(tops, this.names.intern(top));
    this.count += tops.size - before;
  }

  /** Every path in `Array.prototype.sort` order (see sortedPaths). */
  protected sortedPaths(): string[] {
    return sortedPaths(this.byRest, this.count);
  }
}

/** A map from output path to `V`. Iterates in no particular order; {@link sortedKeys} sorts. */
export class PathMap<V> extends PathGroups<Map<string, V>> {
  get(path: string): V | undefined {
    const [top, rest] = split(path);
    return this.byRest.get(rest)?.get(top);
  }

  set(path: string, value: V): this {
    this.place(
      path,
      () => new Map(),
      (tops, top) => tops.set(top, value),
    );
    return this;
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [rest, tops] of this.byRest) for (const [top, value] of tops) yield [join(top, rest), value];
  }

  *keys(): IterableIterator<string> {
    for (const [path] of this.entries()) yield path;
  }

  sortedKeys(): string[] {
    return this.sortedPaths();
  }
}

/** A set of output paths. Iterates in no particular order; {@link sorted} sorts. */
export class PathSet extends PathGroups<Set<string>> implements Iterable<string> {
  constructor(paths: Iterable<string> = [], names?: PathNames) {
    super(names);
    for (const path of paths) this.add(path);
  }

  add(path: string): this {
    this.place(
      path,
      () => new Set(),
      (tops, top) => tops.add(top),
    );
    return this;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (const [rest, tops] of this.byRest) for (const top of tops) yield join(top, rest);
  }

  /** The paths in `Array.prototype.sort` order. */
  sorted(): string[] {
    return this.sortedPaths();
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
