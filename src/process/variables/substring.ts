/**
 * `${VAR:offset}` and `${VAR:offset:length}` as envsubst's toSubstr computes them: on bytes, with
 * Go's strconv.Atoi for the numbers and 64-bit integer arithmetic.
 */
import { fromBytes, isAscii, toBytes } from './go-utf8.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown where Go would panic on a slice with end < start: a negative or overflowing length. */
export class SubstringBoundsError extends Error {
  constructor() {
    super('substring length is negative or overflows');
    this.name = 'SubstringBoundsError';
  }
}

/**
 * Returns the substring. Unparsable numbers give the value unchanged (like bash, says envsubst); a
 * negative offset counts from the end and is clamped at 0; an offset past the end gives "".
 * Throws SubstringBoundsError where envsubst would crash (length < 0 within the string).
 */
export function substring(value: string, args: readonly string[]): string {
  if (args.length === 0) return value;
  let pos = parseGoInt(args[0]!);
  if (pos === undefined) return value;
  const ascii = isAscii(value);
  const bytes = ascii ? undefined : toBytes(value);
  const size = BigInt(bytes ? bytes.length : value.length);
  const cut = (from: bigint, to?: bigint): string => {
    if (!bytes) return value.slice(Number(from), to === undefined ? undefined : Number(to));
    return fromBytes(bytes.subarray(Number(from), to === undefined ? undefined : Number(to)));
  };

  if (pos < 0n) {
    pos += size;
    if (pos < 0n) pos = 0n;
  }
  if (args.length === 1) return pos < size ? cut(pos) : '';

  const length = parseGoInt(args[1]!);
  if (length === undefined) return value;
  // Go adds two int64s and wraps on overflow.
  const end = BigInt.asIntN(64, pos + length);
  if (end >= size) return pos < size ? cut(pos) : '';
  if (end < pos) throw new SubstringBoundsError();
  return cut(pos, end);
}

/** strconv.Atoi on a 64-bit platform: optional sign, ASCII digits, int64 range; else undefined. */
export function parseGoInt(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}
