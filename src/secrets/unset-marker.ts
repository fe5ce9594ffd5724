/**
 * The stand-in for a secret reference with no value (process/variable-values/precedence.ts): a deterministic token
 * per variable, substituted where the value would go so the secret guard can see where it lands.
 * It is only ever compared, never output: the render refuses (or renders without the marker) every
 * object it would reach other than a Secret the guard leaves out or replaces.
 *
 * Lower-case letters and digits only, so it is a plain YAML scalar anywhere, reads as no number or
 * boolean, and is "sensitive" to the guard (long, not a number) as a real credential is.
 */
import { createHash } from 'node:crypto';

const PREFIX = 'capirenderunset';

/** The marker of `variable` (the same in every build). */
export function unsetMarker(variable: string): string {
  return `${PREFIX}${createHash('sha256').update(`capi-render unset value\u0000${variable}`).digest('hex').slice(0, 40)}`;
}

/** Whether `text` holds any unset marker. */
export function holdsUnsetMarker(text: string): boolean {
  return text.includes(PREFIX);
}
