/**
 * Container `args` in an object diff, flag by flag: a flag whose value changed is one change
 * (`…args[--v]: "--v=2" → "--v=4"`), a flag that appears or disappears is one added or removed
 * change, instead of the two whole lists. Arguments are keyed as the `args-changed` finding keys
 * them (findings/container-args.ts): `--name` of `--name=value` (so `--leader-elect` →
 * `--leader-elect=false` is one change too), any other argument by itself; a flag given several
 * times is compared as the list of its occurrences. The same arguments in another order are one
 * `order changed` change of the whole list (a positional argument's place matters).
 */
import type { FieldDiffOverride } from './diff-fields.js';
import { argPath } from './field-path.js';
import { argsByKey } from './findings/container-args.js';
import { summarizeValue } from './summarize-value.js';
import type { FieldChange } from './types.js';
import { compareText } from './util-compare.js';

/** `args` of a container, init container or ephemeral container of any pod spec (containers are matched by name). */
const ARGS_PATH = /(^|\.)(containers|initContainers|ephemeralContainers)\[name=[^\]]*\]\.args$/;

/** A {@link FieldDiffOverride} for any kind: container `args` flag by flag. */
export const containerArgsOverride: FieldDiffOverride = (path, before, after) =>
  ARGS_PATH.test(path) && isStrings(before) && isStrings(after) ? diffContainerArgs(path, before, after) : undefined;

/** The per-flag changes from `before` to `after` of the `args` at `path`, sorted by flag. */
export function diffContainerArgs(path: string, before: readonly string[], after: readonly string[]): FieldChange[] {
  const old = argsByKey(before);
  const now = argsByKey(after);
  const out: FieldChange[] = [];
  for (const key of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    const child = argPath(path, key);
    const was = old.get(key);
    const is = now.get(key);
    if (was === undefined) out.push({ path: child, kind: 'added', after: shown(is!) });
    else if (is === undefined) out.push({ path: child, kind: 'removed', before: shown(was) });
    else if (was.join('\n') !== is.join('\n'))
      out.push({ path: child, kind: 'changed', before: shown(was), after: shown(is) });
  }
  if (out.length === 0)
    out.push({
      path,
      kind: 'changed',
      before: summarizeValue(before),
      after: summarizeValue(after),
      summary: 'order changed',
    });
  return out;
}

/** One occurrence as the argument itself, several as their list. */
function shown(args: readonly string[]): unknown {
  return summarizeValue(args.length === 1 ? args[0] : args);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}
