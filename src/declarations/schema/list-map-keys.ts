/**
 * Duplicate detection for `x-kubernetes-list-type: map` lists: entries are identified by their key
 * fields (`x-kubernetes-list-map-keys`) and the API server rejects two entries with the same key.
 */
import { isJsonObject } from '../../manifest/object.js';

/** An entry whose key equals an earlier entry's. */
export interface DuplicateListEntry {
  /** Index of the duplicate. */
  index: number;
  /** Index of the first entry with the same key. */
  firstIndex: number;
  /** The key fields and their values, e.g. `{ name: 'gpu' }`. */
  key: Record<string, unknown>;
}

/**
 * Lists every entry of `list` whose key fields equal those of an earlier entry, in index order.
 * Entries that are not objects are skipped (the item schema reports them).
 */
export function findDuplicateListEntries(list: unknown, keys: readonly string[]): DuplicateListEntry[] {
  if (!Array.isArray(list)) return [];
  const firstByKey = new Map<string, number>();
  const duplicates: DuplicateListEntry[] = [];
  list.forEach((entry, index) => {
    if (!isJsonObject(entry)) return;
    const key = Object.fromEntries(keys.map((k) => [k, entry[k]]));
    // JSON of the key values in key order is an exact identity for scalar keys.
    const identity = JSON.stringify(keys.map((k) => entry[k] ?? null));
    const firstIndex = firstByKey.get(identity);
    if (firstIndex === undefined) firstByKey.set(identity, index);
    else duplicates.push({ index, firstIndex, key });
  });
  return duplicates;
}
