/**
 * RFC 6901 JSON Pointers as RFC 6902 operations use them, plus the array-index rules of
 * evanphx/json-patch v5 (the library the operator patches with): negative indices count from the
 * end, and `-` means "after the last element" for `add`.
 */

/** Why a pointer or an index was rejected; callers turn it into a SpecError with context. */
export class PointerError extends Error {}

/**
 * Splits a pointer into its unescaped reference tokens. `""` is the whole document (no tokens).
 * Rejects what RFC 6901 rejects: a pointer that does not start with `/`, and `~` not followed by
 * `0` or `1`. (evanphx silently drops the first token of `a/b` and keeps `~2` literally.)
 */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new PointerError(`path ${JSON.stringify(pointer)} must be empty or start with "/"`);
  }
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~(?![01])/.test(token)) {
        throw new PointerError(
          `path ${JSON.stringify(pointer)} has "~" not followed by 0 or 1 (write "~0" for "~", "~1" for "/")`,
        );
      }
      // ~1 before ~0, so that "~01" decodes to "~1" and not to "/".
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** Formats tokens back into a pointer, for messages. */
export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Resolves an array index token for reading, replacing or removing: `0`…`length-1`, or
 * `-length`…`-1` counted from the end (evanphx's SupportNegativeIndices, on by default).
 * Returns the index into the array, or throws when the token is not an index or out of range.
 */
export function resolveExistingIndex(token: string, length: number): number {
  const index = parseIndex(token);
  if (index >= length || index < -length) {
    throw new PointerError(`index ${token} is out of range for an array of ${length} element(s)`);
  }
  return index < 0 ? index + length : index;
}

/**
 * Resolves an array index token for inserting: `-` or `length` appends, `0`…`length` inserts
 * before that element, and negative indices count from the end of the array *after* insertion
 * (so `-1` appends), exactly as evanphx does.
 */
export function resolveInsertIndex(token: string, length: number): number {
  if (token === '-') return length;
  const index = parseIndex(token);
  const size = length + 1;
  if (index >= size || index < -size) {
    throw new PointerError(`index ${token} is out of range for inserting into an array of ${length} element(s)`);
  }
  return index < 0 ? index + size : index;
}

function parseIndex(token: string): number {
  // RFC 6901 forbids leading zeros and signs; evanphx (Go's strconv.Atoi) would take "01" or "+1".
  if (!/^(0|-?[1-9][0-9]*)$/.test(token)) {
    throw new PointerError(
      `${JSON.stringify(token)} is not an array index (expected 0, 1, 2, …, a negative index, or "-" to append)`,
    );
  }
  return Number(token);
}
