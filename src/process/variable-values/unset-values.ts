/**
 * Rendering a provider when some secret references have no value (precedence.ts): the build
 * needs a value only where it would show. Render with each such variable's unset marker in its place;
 * where every marker lands in a Secret the component's `secrets.mode` leaves out, replaces or keeps
 * encrypted, the output is the one the real value gives; anywhere else the variable is unset after
 * all, as clusterctl would have it. No marker leaves this module: not in objects, not in a message.
 *
 * Design notes: docs/internals.md "process/variable-values/unset-values.ts".
 */
import { InternalError, RenderError, SpecError, error, type Diagnostic } from '../../errors.js';
import type { KubeObject } from '../../manifest/object.js';
import type { ProviderComponents } from '../provider-components.js';
import { MissingVariablesError } from '../variables/index.js';
import { modeFor, unsetValuesOutside } from '../../secrets/secret-guard.js';
import type { SecretsConfig } from '../../secrets/secrets-config.js';
import { holdsUnsetMarker } from '../../secrets/unset-marker.js';
import type { ResolvedVariable } from './precedence.js';

export interface UnsetRenderInput {
  /** `Kind/namespace/name` of the provider CR. */
  providerRef: string;
  /** The provider's component label (`infrastructure-aws`), for `secrets.providers`. */
  component: string;
  lookup: (name: string) => ResolvedVariable | undefined;
  /** Renders with this lookup; every value the lookup answered is recorded in `seen`. */
  render: (lookupVariable: (name: string) => string | undefined) => ProviderComponents;
  /** What `render` recorded: cleared before each attempt. */
  seen: Map<string, ResolvedVariable>;
  secrets: SecretsConfig;
}

/** Where an unset value is needed, and why. */
interface Needed {
  where: string;
  why: 'transformed' | 'secret-data' | 'output' | 'step';
}

/** Steps 1–3 of the module comment; returns the rendered components (their markers only in Secrets the guard removes). */
export function renderWithUnsetValues(input: UnsetRenderInput): ProviderComponents {
  const needed = new Map<string, Needed>();
  // Every stand-in handed out, to scrub from what a message says (an object named after one).
  const standIns = new Map<string, string>();
  const lookupVariable = (name: string) => {
    const v = input.lookup(name);
    if (!v || (v.unset && needed.has(name))) return undefined;
    if (v.unset) standIns.set(name, v.value);
    input.seen.set(name, v);
    return v.value;
  };
  const scrub = (text: string) =>
    [...standIns].reduce((t, [name, marker]) => t.split(marker).join(`\${${name}}`), text);
  // Each round makes at least one more variable unset, so this ends.
  for (;;) {
    input.seen.clear();
    let rendered: ProviderComponents;
    try {
      rendered = input.render(lookupVariable);
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      const failedOn = unsetSeen(input.seen).filter(
        ([name, v]) => !needed.has(name) && e.diagnostics.some((d) => mentions(d, v.value)),
      );
      if (failedOn.length > 0) {
        for (const [name, v] of failedOn)
          needed.set(name, {
            where: scrub(e.diagnostics.find((d) => mentions(d, v.value))?.object ?? input.providerRef),
            why: 'step',
          });
        continue;
      }
      if (e instanceof MissingVariablesError && e.missing.length > 0 && e.missing.every((n) => needed.has(n))) {
        throw new SpecError(e.missing.map((n) => neededError(n, needed.get(n)!, input)));
      }
      throw scrubbed(e, scrub);
    }
    const unset = unsetSeen(input.seen);
    const outside: [string, Needed][] = [];
    for (const [name] of unset)
      if (rendered.transformedVariables.includes(name))
        outside.push([name, { where: `\${${name}…}`, why: 'transformed' }]);
    const tracked = unset
      .filter(([name]) => !rendered.transformedVariables.includes(name))
      .map(([variable, v]) => ({ variable, value: v.value, from: v.from }));
    for (const n of unsetValuesOutside(input.component, rendered.objects, tracked, input.secrets))
      outside.push([n.variable, { where: n.where, why: n.inSecretData ? 'secret-data' : 'output' }]);
    if (outside.length === 0) return rendered;
    for (const [name, n] of outside) needed.set(name, { ...n, where: scrub(n.where) });
  }
}

/**
 * Throws InternalError when an unset marker is left in `objects` (the guard's output): a bug, never
 * a user's mistake, and the marker is not printed.
 */
export function assertNoUnsetMarker(objects: readonly KubeObject[], seen: ReadonlyMap<string, ResolvedVariable>): void {
  if (unsetSeen(seen).length === 0) return;
  if (holdsUnsetMarker(JSON.stringify(objects)))
    throw new InternalError("an unset secret value's stand-in reached the output");
}

function unsetSeen(seen: ReadonlyMap<string, ResolvedVariable>): [string, ResolvedVariable][] {
  return [...seen].filter(([, v]) => v.unset);
}

function mentions(d: Diagnostic, marker: string): boolean {
  return [d.message, d.hint, d.field, d.object, d.file].some((t) => typeof t === 'string' && t.includes(marker));
}

/** The error with every stand-in replaced by the `${NAME}` it stands for. */
function scrubbed(e: RenderError, scrub: (text: string) => string): RenderError {
  for (const d of e.diagnostics) {
    for (const k of ['message', 'hint', 'field', 'object', 'file'] as const) {
      const t = d[k];
      if (t !== undefined) d[k] = scrub(t);
    }
  }
  return e;
}

function neededError(name: string, needed: Needed, input: UnsetRenderInput): Diagnostic {
  const v = input.lookup(name);
  const reference = v?.reference ?? `variable ${name}`;
  const set = reference.startsWith('file ') ? `create ${reference}` : `set ${reference}`;
  const via = v?.via;
  const mode = modeFor(input.component, input.secrets);
  const where =
    needed.why === 'transformed'
      ? `${input.providerRef}, which uses it through an operator that changes it (${needed.where})`
      : needed.why === 'step'
        ? `${needed.where}, which is checked while rendering ${input.providerRef}`
        : needed.where;
  const hint =
    needed.why === 'secret-data'
      ? `set it, or choose secrets.mode (or secrets.providers.${input.component}) omit, external-secrets or sops, under which a value that only fills a Secret left out, replaced or kept encrypted is not needed (the mode is ${mode} now)`
      : needed.why === 'transformed'
        ? "a value may be left unset only when it reaches a Secret's data unchanged and secrets.mode omits or replaces that Secret"
        : `a value may be left unset only when it fills nothing but a Secret's data that secrets.mode omit, external-secrets or sops leaves out, replaces or keeps encrypted`;
  return error('variables-missing', `${name} is needed for ${where}: ${set}${via ? ` (${via})` : ''}`, {
    // Without a line (a `variables:` entry), render/render-environment.ts finds it in the file.
    ...(v?.site
      ? {
          file: v.site.file,
          field: v.site.field,
          ...(v.site.line !== undefined ? { line: v.site.line, col: v.site.col ?? 1 } : {}),
        }
      : {}),
    hint,
  });
}
