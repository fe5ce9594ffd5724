/**
 * Findings from the variables a provider read a value for before and after its version changed
 * (the names the two locks record): a value set in capi-render.yaml, an overlay or a configSecret
 * that the new release no longer reads stops applying without any error, which neither the objects
 * nor the build show by name.
 */
import type { Finding, VariableUseChange } from '../types.js';

/**
 * Per provider: a `variables-changed` warning naming the variables whose values the new release no
 * longer reads, and an info naming those it starts reading (set for another provider, say).
 */
export function findVariableFindings(changes: readonly VariableUseChange[]): Finding[] {
  const out: Finding[] = [];
  for (const c of changes) {
    const gone = c.before.filter((n) => !c.after.includes(n));
    const come = c.after.filter((n) => !c.before.includes(n));
    const place = { code: 'variables-changed' as const, env: c.env, component: c.provider };
    if (gone.length > 0) {
      out.push({
        ...place,
        severity: 'warning',
        message: `${c.provider} ${c.to} no longer reads ${gone.length === 1 ? 'variable' : 'variables'} ${gone.join(', ')}, set in ${c.env}`,
        details: [
          `${c.from} read ${gone.length === 1 ? 'its value' : 'their values'}; ${c.to} does not use ${gone.length === 1 ? 'it' : 'them'}, so the setting no longer applies: the release dropped the option or decides it itself.`,
          `Check the release notes for what replaces ${gone.join(', ')}, then remove the setting (\`capi-render variables\` lists what each provider reads).`,
        ],
        subjects: gone,
      });
    }
    if (come.length > 0) {
      out.push({
        ...place,
        severity: 'info',
        message: `${c.provider} ${c.to} now reads ${come.length === 1 ? 'variable' : 'variables'} ${come.join(', ')}, already set in ${c.env}`,
        details: [
          `${c.from} did not use ${come.length === 1 ? 'it' : 'them'}: the value set now applies to ${c.provider} too, instead of the release's default.`,
        ],
        subjects: come,
      });
    }
  }
  return out;
}
