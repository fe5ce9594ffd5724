/**
 * Go string semantics for the few envsubst functions that work on bytes (`${#VAR}`, `${VAR:n:len}`
 * and the `#`/`%` pattern trims): a Go string is UTF-8 bytes, `len` counts bytes, slicing may cut a
 * character in half, and decoding an invalid byte yields U+FFFD with width 1.
 */

/** Go's utf8.RuneError. */
export const RUNE_ERROR = 0xfffd;

/** The UTF-8 bytes of a string (lone surrogates become U+FFFD, as any UTF-8 encoder does). */
export function toBytes(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/**
 * Bytes back to a string. Go would keep invalid sequences as raw bytes; a JS string cannot hold
 * them, so each becomes U+FFFD. Only reachable by cutting a multi-byte character with a substring
 * or pattern trim.
 */
export function fromBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** True when every character is ASCII, where bytes and UTF-16 units coincide. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Decodes the rune at `at` (before `end`), as Go's utf8.DecodeRune: returns [rune, width], with
 * [RUNE_ERROR, 1] for an invalid or truncated sequence (overlong forms and surrogates included).
 */
export function decodeRune(bytes: Uint8Array, at: number, end: number = bytes.length): [number, number] {
  const b0 = bytes[at]!;
  if (b0 < 0x80) return [b0, 1];
  if (b0 < 0xc2 || b0 > 0xf4) return [RUNE_ERROR, 1];
  const cont = (i: number, lo = 0x80, hi = 0xbf): number => {
    if (i >= end) return -1;
    const b = bytes[i]!;
    return b >= lo && b <= hi ? b & 0x3f : -1;
  };
  if (b0 < 0xe0) {
    const c1 = cont(at + 1);
    return c1 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x1f) << 6) | c1, 2];
  }
  if (b0 < 0xf0) {
    const c1 = cont(at + 1, b0 === 0xe0 ? 0xa0 : 0x80, b0 === 0xed ? 0x9f : 0xbf);
    const c2 = c1 < 0 ? -1 : cont(at + 2);
    return c2 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x0f) << 12) | (c1 << 6) | c2, 3];
  }
  const c1 = cont(at + 1, b0 === 0xf0 ? 0x90 : 0x80, b0 === 0xf4 ? 0x8f : 0xbf);
  const c2 = c1 < 0 ? -1 : cont(at + 2);
  const c3 = c2 < 0 ? -1 : cont(at + 3);
  return c3 < 0 ? [RUNE_ERROR, 1] : [((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4];
}

/**
 * Reverses a byte string rune by rune, as Go's `string(reversed([]rune(s)))`: each invalid byte is
 * one U+FFFD rune in the result.
 */
export function reverseRunes(bytes: Uint8Array): Uint8Array {
  const runes: number[] = [];
  for (let i = 0; i < bytes.length;) {
    const [rune, width] = decodeRune(bytes, i);
    runes.push(rune);
    i += width;
  }
  runes.reverse();
  // One string per rune: spreading a long array into fromCodePoint would overflow the stack.
  return toBytes(runes.map((rune) => String.fromCodePoint(rune)).join(''));
}
