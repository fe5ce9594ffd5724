/**
 * A lock and its text, made together in one of two places: read from capi-render.lock
 * ({@link readLockState}, {@link parseLockState}), or serialised by capi-render
 * ({@link writtenLockState}). Passed as one value wherever both are needed — the lock for what it
 * pins, the text for line numbers and for writing — so the two can never come from different files.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { readRecordFile } from '../repository-files.js';
import type { ValueCache } from '../v8-value-cache.js';
import { canonicalLock, canonicalLockText, parseLock, serializeLock } from './lock-file.js';
import { LOCK_FILE, emptyLock, type LockFile } from './lock-types.js';
import { isLock } from './validate-lock.js';

export interface LockState {
  /** The lock: as parsed from `text`, or as parseLock would read `text` back. */
  readonly lock: LockFile;
  /** capi-render.lock's text: as read, or as written; undefined when there is no lock file. */
  readonly text: string | undefined;
  /**
   * Whether `text` is byte for byte what capi-render writes for `lock` (false without a file). A
   * text that is not (a comment, a reformatting, a field added by hand) is rewritten by a build.
   */
  readonly canonical: boolean;
}

/** No lock file: an empty lock, nothing to keep. */
export function missingLockState(): LockState {
  return { lock: emptyLock(), text: undefined, canonical: false };
}

/** The state a lock is written in: its canonical form and the text that holds it (serialised once). */
export function writtenLockState(lock: LockFile): LockState {
  const canonical = canonicalLock(lock);
  return { lock: canonical, text: canonicalLockText(canonical), canonical: true };
}

/**
 * Reads the lock of a repository; a missing file is an empty lock. The lock is a record capi-render
 * wrote: a link, a FIFO or anything but a regular file there is refused before it is read, as `check`
 * refuses it, and it is read up to its size limit (src/repository-files.ts). `parsed`: see
 * {@link parseLockState}.
 */
export async function readLockState(repoRoot: string, parsed?: ValueCache): Promise<LockState> {
  const text = (await readRecordFile(repoRoot, path.join(repoRoot, LOCK_FILE), 'lock'))?.toString('utf8');
  return text === undefined ? missingLockState() : parseLockState(text, parsed);
}

/**
 * The state of a lock text (SpecError `lock` when it is not a lock, see parseLock). With `parsed`,
 * the lock and whether its text is canonical are remembered by the text's sha256: a large lock
 * (hundreds of environments) is the biggest YAML a build that changes nothing still has to read, and
 * serialising it again to compare is as slow.
 */
export function parseLockState(text: string, parsed?: ValueCache): LockState {
  if (!parsed) return readState(parseLock(text), text);
  const sha256 = createHash('sha256').update(text).digest('hex');
  const cached = parsed.get(sha256) as { lock?: unknown; canonical?: unknown } | undefined;
  // Only valid locks are stored, so an entry that fails the checks is damaged: parse the text instead.
  if (typeof cached?.canonical === 'boolean' && isLock(cached.lock))
    return readState(cached.lock, text, cached.canonical);
  const state = readState(parseLock(text), text);
  parsed.put(sha256, { lock: state.lock, canonical: state.canonical });
  return state;
}

/** A state read from `text`; whether the text is canonical is worked out when first asked, unless known. */
function readState(lock: LockFile, text: string, canonical?: boolean): LockState {
  let known = canonical;
  return {
    lock,
    text,
    get canonical() {
      return (known ??= serializeLock(lock) === text);
    },
  };
}
