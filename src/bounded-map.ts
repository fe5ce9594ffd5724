/**
 * A Map that keeps at most `limit` entries, forgetting those not used for longest: the in-memory
 * memos of a build whose keys grow with the fleet (one per environment with distinct values) stay
 * bounded, while the entries environments share stay hot.
 *
 * Two generations instead of an exact least-recently-used order: new entries go into the recent
 * half; when it is full it becomes the older half and the previous older half is dropped whole. An
 * entry found in the older half moves back into the recent one. A hit in the recent half is one Map
 * lookup: the memos are read hundreds of thousands of times a build (every scalar the YAML emitter
 * writes), and re-inserting on every hit, as an exact order needs, cost more than what they save.
 * An entry is kept for at least `limit / 2` insertions of other keys after its last use.
 */
export class BoundedMap<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly half: number;

  /** `limit`: at least 2 (one entry in each half). */
  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 2)
      throw new RangeError(`a BoundedMap keeps at least 2 entries, not ${limit}`);
    this.half = Math.floor(limit / 2);
  }

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.insert(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.older.delete(key);
    this.insert(key, value);
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }

  private insert(key: K, value: V): void {
    if (this.recent.size >= this.half) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, value);
  }
}
