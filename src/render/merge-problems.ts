/**
 * One build's errors, each said once. Environments share providers/ and so share mistakes: the same
 * diagnostic from several environments is printed once with all their names. An artifact that
 * could not be fetched fails every provider and environment that needs it (core, kubeadm and
 * docker all read cluster-api's release list): it is reported once, naming who needs it. Pure;
 * the order is the first occurrence's.
 */
import type { Diagnostic, DiagnosticCode } from '../errors.js';

/** Codes about getting an artifact, whose message names the artifact rather than the provider. */
const ARTIFACT_CODES: ReadonlySet<DiagnosticCode> = new Set(['fetch', 'rate-limit', 'auth', 'offline']);

export interface EnvironmentProblem {
  environment: string;
  diagnostic: Diagnostic;
}

/**
 * Merges the problems. `tagged` says whether messages carry environment names (a repository with
 * one implicit environment does not name it).
 */
export function mergeProblems(problems: readonly EnvironmentProblem[], tagged: boolean): Diagnostic[] {
  const groups = new Map<string, { diagnostic: Diagnostic; environments: string[]; sites: string[] }>();
  for (const { environment, diagnostic: d } of problems) {
    const artifact = ARTIFACT_CODES.has(d.code);
    const key = JSON.stringify([
      d.severity,
      d.code,
      d.message,
      d.hint,
      ...(artifact ? [] : [d.file, d.line, d.col, d.field, d.object]),
    ]);
    let group = groups.get(key);
    if (!group) {
      group = { diagnostic: d, environments: [], sites: [] };
      groups.set(key, group);
    }
    if (!group.environments.includes(environment)) group.environments.push(environment);
    const site = d.object ?? d.file;
    if (artifact && site && !group.sites.includes(site)) group.sites.push(site);
  }
  return [...groups.values()].map(({ diagnostic, environments, sites }) => {
    const prefix = tagged ? `[${environments.join(', ')}] ` : '';
    if (sites.length <= 1) return { ...diagnostic, message: `${prefix}${diagnostic.message}` };
    // Several providers need it: no single place to point at, so the message names them all.
    const { file: _file, line: _line, col: _col, object: _object, field: _field, ...rest } = diagnostic;
    return { ...rest, message: `${prefix}${diagnostic.message}; needed by ${sites.join(', ')}` };
  });
}
