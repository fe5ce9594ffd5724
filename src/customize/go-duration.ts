/**
 * Go `time.Duration` text, as the operator reads `metav1.Duration` fields of a provider CR
 * (`syncPeriod`, `leaderElection.leaseDuration` …) and turns them into `<n>s` flags.
 * Durations are kept as bigint nanoseconds so the int64 range and its overflow errors match Go.
 */

const NANOS_PER_SECOND = 1_000_000_000n;
const MAX_MAGNITUDE = 1n << 63n;

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: NANOS_PER_SECOND,
  m: 60n * NANOS_PER_SECOND,
  h: 3_600n * NANOS_PER_SECOND,
};

/** The outcome of {@link parseGoDuration}: nanoseconds, or Go's error text. */
export type GoDurationResult = { ok: true; nanos: bigint } | { ok: false; message: string };

/**
 * Parses a duration exactly as Go's `time.ParseDuration` does: `[-+]?([0-9]*(\.[0-9]*)?unit)+`
 * with units ns, us, µs, μs, ms, s, m, h; a bare `0` is allowed; results outside int64 fail.
 * Pure; never throws.
 */
export function parseGoDuration(text: string): GoDurationResult {
  const invalid = (): GoDurationResult => ({ ok: false, message: `time: invalid duration ${JSON.stringify(text)}` });
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return { ok: true, nanos: 0n };
  if (rest === '') return invalid();

  let total = 0n;
  while (rest !== '') {
    const number = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (whole === '' && (fraction === undefined || fraction === '')) return invalid();
    rest = rest.slice(number?.[0].length ?? 0);

    const unitText = /^[^0-9.]*/.exec(rest)?.[0] ?? '';
    if (unitText === '') return { ok: false, message: `time: missing unit in duration ${JSON.stringify(text)}` };
    rest = rest.slice(unitText.length);
    const unit = UNIT_NANOS[unitText];
    if (unit === undefined) {
      return {
        ok: false,
        message: `time: unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(text)}`,
      };
    }

    const wholeValue = whole === '' ? 0n : BigInt(whole);
    // Go rejects an integer part above 2^63 before scaling, and a scaled value above 2^63 after
    // (2^63 itself survives so that the most negative duration parses).
    if (wholeValue > MAX_MAGNITUDE || wholeValue > MAX_MAGNITUDE / unit) return invalid();
    let value = wholeValue * unit;
    if (fraction !== undefined && fraction !== '') value += fractionNanos(fraction, unit);
    if (value > MAX_MAGNITUDE) return invalid();
    total += value;
    if (total > MAX_MAGNITUDE) return invalid();
  }
  if (negative) return { ok: true, nanos: -total };
  if (total > MAX_MAGNITUDE - 1n) return invalid();
  return { ok: true, nanos: total };
}

/**
 * Go's `Duration.Round(time.Second)` followed by `int(d.Seconds())`: halves round away from
 * zero; a rounding that would leave int64 saturates at the extreme duration, which then
 * truncates to whole seconds. Used for every `<n>s` flag the operator writes.
 */
export function roundToWholeSeconds(nanos: bigint): bigint {
  const remainder = nanos % NANOS_PER_SECOND; // same sign as nanos, like Go's %
  const magnitude = remainder < 0n ? -remainder : remainder;
  const truncated = nanos - remainder;
  if (magnitude * 2n < NANOS_PER_SECOND) return truncated / NANOS_PER_SECOND;
  const rounded = truncated + (nanos < 0n ? -NANOS_PER_SECOND : NANOS_PER_SECOND);
  if (rounded > MAX_MAGNITUDE - 1n) return (MAX_MAGNITUDE - 1n) / NANOS_PER_SECOND;
  if (rounded < -MAX_MAGNITUDE) return -MAX_MAGNITUDE / NANOS_PER_SECOND;
  return rounded / NANOS_PER_SECOND;
}

/**
 * The fractional part of one duration component, as Go computes it: digits are accumulated
 * while they fit in int64 (later ones are dropped), then scaled through float64 and truncated.
 */
function fractionNanos(digits: string, unit: bigint): bigint {
  let value = 0n;
  let scale = 1;
  for (const digit of digits) {
    if (value > (MAX_MAGNITUDE - 1n) / 10n) break;
    const next = value * 10n + BigInt(digit);
    if (next > MAX_MAGNITUDE) break;
    value = next;
    scale *= 10;
  }
  if (value === 0n) return 0n;
  return BigInt(Math.trunc(Number(value) * (Number(unit) / scale)));
}
