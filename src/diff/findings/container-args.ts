/**
 * Container arguments compared flag by flag. `--name=value` and bare `--name` arguments are keyed
 * by flag name so a changed value reads as one change, not a removal plus an addition;
 * `--feature-gates` is left to the gate-by-gate comparison.
 */
import { compareText } from '../util-compare.js';

const FEATURE_GATES = '--feature-gates';

/** Added, removed and changed arguments, as report lines (`added --foo=1`, `changed --bar: 1 → 2`). */
export function diffArgs(before: readonly string[], after: readonly string[]): string[] {
  const old = argsByKey(before);
  const now = argsByKey(after);
  const lines: string[] = [];
  for (const key of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    if (key === FEATURE_GATES) continue;
    const was = old.get(key);
    const is = now.get(key);
    if (was === undefined) lines.push(...is!.map((arg) => `added ${arg}`));
    else if (is === undefined) lines.push(...was.map((arg) => `removed ${arg}`));
    else if (was.join('\n') !== is.join('\n')) lines.push(`changed ${key}: ${was.join(' ')} → ${is.join(' ')}`);
  }
  return lines;
}

/** A feature gate's change: `added X=true`, `removed X (was true)`, `changed X: false → true`. */
export interface GateChange {
  line: string;
  /** Removed or flipped: the controller behaves differently, not just knows a new switch. */
  significant: boolean;
}

/**
 * Feature gates compared gate by gate, from every `--feature-gates=a=true,b=false` argument (a
 * later argument wins for a gate named twice, as with Go's flag parsing of a map value).
 */
export function diffFeatureGates(before: readonly string[], after: readonly string[]): GateChange[] {
  const old = featureGates(before);
  const now = featureGates(after);
  const out: GateChange[] = [];
  for (const gate of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    const was = old.get(gate);
    const is = now.get(gate);
    if (was === undefined) out.push({ line: `added ${gate}=${is}`, significant: false });
    else if (is === undefined)
      out.push({
        line: `removed ${gate} (was ${was}; the controller's default applies, or the gate no longer exists)`,
        significant: true,
      });
    else if (was !== is) out.push({ line: `changed ${gate}: ${was} → ${is}`, significant: true });
  }
  return out;
}

function featureGates(args: readonly string[]): Map<string, string> {
  const gates = new Map<string, string>();
  for (const arg of args) {
    if (!arg.startsWith(`${FEATURE_GATES}=`)) continue;
    for (const entry of arg.slice(FEATURE_GATES.length + 1).split(',')) {
      const eq = entry.indexOf('=');
      if (eq > 0) gates.set(entry.slice(0, eq).trim(), entry.slice(eq + 1).trim());
    }
  }
  return gates;
}

/** Flags keyed by name (`--name` of `--name=value`); positional arguments keyed by themselves. */
export function argsByKey(args: readonly string[]): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const arg of args) {
    const key = arg.startsWith('-') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    byKey.set(key, [...(byKey.get(key) ?? []), arg]);
  }
  return byKey;
}
