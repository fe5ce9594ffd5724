/**
 * The operator's preflight checks (internal/controller/preflight_checks.go) that can be decided at
 * build time, with its wording where users know it, plus clusterctl's install-time rule of exactly one
 * core provider. Checks that need a live cluster (token validity, waiting for core Ready) have build-
 * time equivalents elsewhere (the lock, GitOps ordering).
 */
import { error, type Diagnostic } from '../errors.js';
import { parseVersion } from '../source/versions.js';
import type { ProviderCR } from './provider-spec.js';

export interface PreflightContext {
  /** Where each CR is declared, for diagnostics. */
  locate(cr: ProviderCR, path: readonly (string | number)[]): { file: string; line: number; col: number };
  /** Whether a provider without fetchConfig can be found (a local repository or clusterctl's list). */
  isKnownProvider(cr: ProviderCR): boolean;
  /** Whether a spec.version value is acceptable (exact semver; ranges and `latest` where supported). */
  isAcceptedVersion(version: string): boolean;
}

/** Runs every check and returns all problems. */
export function runPreflightChecks(providers: readonly ProviderCR[], ctx: PreflightContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (cr: ProviderCR, path: (string | number)[], field: string) => ({ ...ctx.locate(cr, path), field, object: ref(cr) });

  const cores = providers.filter((p) => p.kind === 'CoreProvider');
  for (const core of cores) {
    if (core.name !== 'cluster-api') {
      out.push(
        error('preflight', `Incorrect CoreProvider name: ${core.name}. It should be cluster-api`, {
          ...at(core, ['metadata', 'name'], 'metadata.name'),
          hint: 'name the CoreProvider cluster-api',
        }),
      );
    }
  }
  if (cores.length > 1) {
    for (const extra of cores.slice(1)) {
      out.push(
        error('preflight', `CoreProvider already exists in the cluster (${ref(cores[0]!)}). Only one is allowed.`, at(extra, ['metadata', 'name'], 'metadata.name')),
      );
    }
  }
  if (cores.length === 0 && providers.length > 0) {
    out.push(
      error('preflight', 'there must be one core provider, found 0', {
        file: providers[0]!.file,
        line: providers[0]!.line,
        hint: 'declare a CoreProvider named cluster-api (clusterctl requires exactly one per management cluster)',
      }),
    );
  }

  // The operator allows one provider per kind and name in the whole cluster. capi-render also
  // accepts several instances in different namespaces when each one watches only its own scope
  // (spec.manager.cacheNamespace) — see render/multi-namespace.ts for the remaining rules.
  const byName = new Map<string, ProviderCR[]>();
  for (const p of providers) {
    if (p.kind === 'CoreProvider') continue;
    const key = `${p.kind}/${p.name}`;
    byName.set(key, [...(byName.get(key) ?? []), p]);
  }
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    for (const p of group) {
      if (p.spec.manager?.cacheNamespace) continue;
      out.push(
        error('multi-namespace', `There is already a ${p.kind} with name ${p.name} in the cluster (${group.filter((o) => o !== p).map(ref).join(', ')}); several instances need each to watch only its own namespace`, {
          ...at(p, ['spec'], 'spec.manager.cacheNamespace'),
          hint: 'set spec.manager.cacheNamespace on every instance (the operator allows one instance per cluster; see README "Multi-namespace installs")',
        }),
      );
    }
  }

  for (const p of providers) {
    const version = p.spec.version;
    if (version !== undefined && version !== '' && !ctx.isAcceptedVersion(version)) {
      out.push(
        error('preflight', `spec.version "${version}" of ${ref(p)} is not a semantic version`, {
          ...at(p, ['spec', 'version'], 'spec.version'),
          hint: parseVersion(`v${version}`) ? `write v${version}` : 'use an exact release tag such as v1.12.0',
        }),
      );
    }
    const fc = p.spec.fetchConfig;
    if (fc?.url && fc.selector) {
      out.push(error('preflight', 'Only one of Selector and URL must be provided, not both', at(p, ['spec', 'fetchConfig'], 'spec.fetchConfig')));
    }
    if (!fc && !ctx.isKnownProvider(p)) {
      out.push(
        error('preflight', `Either Selector, OCI URL or provider URL must be provided for a not predefined provider (${ref(p)})`, {
          ...at(p, ['metadata', 'name'], 'spec.fetchConfig'),
          hint: `${p.name} is neither in a configured local repository nor in clusterctl's provider list; set spec.fetchConfig`,
        }),
      );
    }
  }
  return out;
}

export function ref(cr: ProviderCR): string {
  return `${cr.kind}/${cr.namespace}/${cr.name}`;
}
