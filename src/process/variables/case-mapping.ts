/**
 * Go's per-rune simple case mapping (unicode.ToLower/ToUpper, which strings.ToLower/ToUpper apply
 * rune by rune), emulated with JS case conversion. JS applies the full Unicode mappings, which can
 * turn one character into several (`ß` → `SS`) and depend on context (final sigma); Go never does
 * either. Mapping one code point at a time removes the context; where JS still yields several code
 * points, the simple mapping is looked up below.
 */

/** Lower-cases one code point as unicode.ToLower does. */
export function lowerRune(cp: number): number {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? cp + 0x20 : cp;
  const mapped = singleCodePoint(String.fromCodePoint(cp).toLowerCase());
  if (mapped !== undefined) return mapped;
  // The only character whose full lower-case mapping is longer: İ → i + combining dot; simple is i.
  return cp === 0x130 ? 0x69 : cp;
}

/** Upper-cases one code point as unicode.ToUpper does. */
export function upperRune(cp: number): number {
  if (cp < 0x80) return cp >= 0x61 && cp <= 0x7a ? cp - 0x20 : cp;
  const mapped = singleCodePoint(String.fromCodePoint(cp).toUpperCase());
  if (mapped !== undefined) return mapped;
  // Full mappings that expand (ß, ŉ, ǰ, ﬀ…) have no simple upper case, except Greek letters with
  // ypogegrammeni, whose simple upper case is the matching title-case letter.
  if (cp >= 0x1f80 && cp <= 0x1faf) return (cp & 0x0f) < 8 ? cp + 8 : cp;
  if (cp === 0x1fb3 || cp === 0x1fc3 || cp === 0x1ff3) return cp + 9;
  return cp;
}

/** strings.ToLower. */
export function lowerString(text: string): string {
  return mapRunes(text, lowerRune, (s) => s.toLowerCase());
}

/** strings.ToUpper. */
export function upperString(text: string): string {
  return mapRunes(text, upperRune, (s) => s.toUpperCase());
}

/** Applies `map` to the first code point only (envsubst's `,` and `^`). */
export function mapFirstRune(text: string, map: (cp: number) => number): string {
  if (text === '') return text;
  const cp = text.codePointAt(0)!;
  return String.fromCodePoint(map(cp)) + text.slice(cp > 0xffff ? 2 : 1);
}

function mapRunes(text: string, map: (cp: number) => number, ascii: (s: string) => string): string {
  // ASCII has no special cases, so the engine's own conversion is exact and fast.
  if (/^[\x00-\x7f]*$/.test(text)) return ascii(text);
  let out = '';
  for (const ch of text) out += String.fromCodePoint(map(ch.codePointAt(0)!));
  return out;
}

function singleCodePoint(text: string): number | undefined {
  const cp = text.codePointAt(0);
  if (cp === undefined) return undefined;
  return text.length === (cp > 0xffff ? 2 : 1) ? cp : undefined;
}
