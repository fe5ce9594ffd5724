/**
 * One copy of each equal value a fleet-sized record holds. Across ten thousand environments the
 * same file names recur in every one of them, and files of identical content are hard links to one
 * inode, so their marks are equal too: a record that keeps one object per file instead of one per
 * distinct value grows by a map entry per file and nothing more. Names are stored as copies of
 * their own, so a name cut from a large text (the ownership record) does not keep that text alive.
 */
import type { FileMark } from './fingerprint-record.js';
import { PathNames } from './path-table.js';

export interface Interning {
  /** The one copy of `text` (a folder or file name). */
  name(text: string): string;
  /** The one mark equal to `mark`. */
  mark(mark: FileMark): FileMark;
}

export function createInterning(): Interning {
  const names = new PathNames();
  // By sha256, then the few distinct size/times/inodes of that content (one per inode it was written to).
  const marks = new Map<string, FileMark[]>();
  return {
    name: (text) => names.intern(text),
    mark(mark) {
      let same = marks.get(mark[3]);
      if (!same) marks.set(mark[3], (same = []));
      const found = same.find((m) => m[0] === mark[0] && m[1] === mark[1] && m[2] === mark[2] && m[4] === mark[4]);
      if (found) return found;
      same.push(mark);
      return mark;
    },
  };
}
