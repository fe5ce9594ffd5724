/**
 * The shell pattern matcher behind `${VAR#pat}`, `##`, `%` and `%%`: drone/envsubst's path/match.go,
 * a modified copy of Go's path.Match. Differences from path.Match that it keeps: `*` and `?` also
 * match `/`, a trailing `*` matches everything, and classes do not exclude `/`.
 *
 * Syntax: `*` any run of bytes, `?` one character, `[...]`/`[^...]` a class of characters and
 * `lo-hi` ranges, `\c` a literal c. Works on UTF-8 bytes like the Go original; a malformed pattern
 * is reported only when the matcher reaches the malformed part, as in Go.
 */
import { decodeRune, RUNE_ERROR } from './go-utf8.js';

/** Result of a match attempt; `bad-pattern` is Go's ErrBadPattern. */
export type GlobResult = boolean | 'bad-pattern';

// matchChunk outcomes besides "matched, rest starts here" (a non-negative index).
const NO_MATCH = -1;
const BAD = -2;

/** Whether `name` matches all of `pattern`. Pure. */
export function matchGlob(pattern: Uint8Array, name: Uint8Array): GlobResult {
  let p = 0;
  let n = 0;
  pattern: while (p < pattern.length) {
    let star = false;
    while (p < pattern.length && pattern[p] === 0x2a /* * */) {
      p++;
      star = true;
    }
    const chunkStart = p;
    const chunkEnd = scanChunkEnd(pattern, p);
    p = chunkEnd;
    if (star && chunkStart === chunkEnd) return true;

    const rest = matchChunk(pattern, chunkStart, chunkEnd, name, n);
    // The last chunk must use up the name; an earlier one may leave the rest to later chunks.
    if (rest >= 0 && (rest === name.length || p < pattern.length)) {
      n = rest;
      continue;
    }
    if (rest === BAD) return 'bad-pattern';
    if (star) {
      // The star swallows one more byte at a time (bytes, not characters, as in Go).
      for (let skip = n + 1; skip <= name.length; skip++) {
        const after = matchChunk(pattern, chunkStart, chunkEnd, name, skip);
        if (after >= 0) {
          if (p === pattern.length && after < name.length) continue;
          n = after;
          continue pattern;
        }
        if (after === BAD) return 'bad-pattern';
      }
    }
    return false;
  }
  return n === name.length;
}

/** End of the chunk starting at `from`: up to the next `*` outside a class; `\` skips one byte. */
function scanChunkEnd(pattern: Uint8Array, from: number): number {
  let inRange = false;
  let i = from;
  for (; i < pattern.length; i++) {
    const b = pattern[i];
    if (b === 0x5c /* \ */) {
      if (i + 1 < pattern.length) i++;
    } else if (b === 0x5b /* [ */) {
      inRange = true;
    } else if (b === 0x5d /* ] */) {
      inRange = false;
    } else if (b === 0x2a && !inRange) {
      break;
    }
  }
  return i;
}

/** Matches the star-free chunk pattern[c, end) at name[n…]; returns where the name continues. */
function matchChunk(pattern: Uint8Array, c: number, end: number, name: Uint8Array, n: number): number {
  while (c < end) {
    if (n >= name.length) return NO_MATCH;
    const b = pattern[c];
    if (b === 0x5b /* [ */) {
      const [rune, width] = decodeRune(name, n);
      n += width;
      c++;
      let negated = false;
      if (c < end && pattern[c] === 0x5e /* ^ */) {
        negated = true;
        c++;
      }
      let matched = false;
      let ranges = 0;
      for (;;) {
        if (c < end && pattern[c] === 0x5d /* ] */ && ranges > 0) {
          c++;
          break;
        }
        const lo = classChar(pattern, c, end);
        if (lo === null) return BAD;
        c = lo.next;
        let hi = lo.rune;
        if (pattern[c] === 0x2d /* - */) {
          const upper = classChar(pattern, c + 1, end);
          if (upper === null) return BAD;
          c = upper.next;
          hi = upper.rune;
        }
        if (lo.rune <= rune && rune <= hi) matched = true;
        ranges++;
      }
      if (matched === negated) return NO_MATCH;
    } else if (b === 0x3f /* ? */) {
      n += decodeRune(name, n)[1];
      c++;
    } else {
      if (b === 0x5c) {
        c++;
        if (c >= end) return BAD;
      }
      if (pattern[c] !== name[n]) return NO_MATCH;
      n++;
      c++;
    }
  }
  return n;
}

/**
 * One possibly escaped character of a class (Go's getEsc). Null for a malformed class: a bare
 * `-` or `]`, a dangling `\`, an invalid byte, or a class that runs to the end of the chunk.
 */
function classChar(pattern: Uint8Array, c: number, end: number): { rune: number; next: number } | null {
  if (c >= end || pattern[c] === 0x2d || pattern[c] === 0x5d) return null;
  if (pattern[c] === 0x5c) {
    c++;
    if (c >= end) return null;
  }
  const [rune, width] = decodeRune(pattern, c, end);
  if (rune === RUNE_ERROR && width === 1) return null;
  const next = c + width;
  if (next >= end) return null;
  return { rune, next };
}
