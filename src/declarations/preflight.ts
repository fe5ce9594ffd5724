/**
 * The operator's preflight checks (internal/controller/preflight_checks.go) that can be decided at
 * build time, with its wording where users know it, plus clusterctl's install-time rule of exactly one
 * core provider. Checks that need a live cluster (token validity, waiting for core Ready) have build-
 * time equivalents elsewhere (the lock, GitOps ordering).
 */
import { error, peerWording, type Diagnostic } from '../errors.js';
import { parseVersion } from './versions.js';
import type { ProviderCR } from './provider-spec.js';
import { manifestLabel } from './provider-kinds.js';
import type { Baseline } from '../baseline/baseline.js';

export interface PreflightContext {
  /** Where each CR is declared, for diagnostics. */
  locate(cr: ProviderCR, path: readonly (string | number)[]): { file: string; line: number; col: number };
  /** Whether a provider without fetchConfig can be found (a local repository or clusterctl's list). */
  isKnownProvider(cr: ProviderCR): boolean;
  /** Whether a spec.version value is acceptable (exact semver; ranges and `latest` where supported). */
  isAcceptedVersion(version: string): boolean;
  /** Whose words a check that both peers make quotes (src/baseline). Default: clusterctl v1.14's. */
  baseline?: Baseline;
}

/** The operator's phrase for a provider that is neither predefined nor given a fetchConfig source. */
const NOT_PREDEFINED = 'Either Selector, OCI URL or provider URL must be provided for a not predefined provider';

/**
 * The one diagnostic for a provider nobody knows how to fetch: no fetchConfig source (none at all,
 * or `url: ""`, which the operator treats alike) and neither a local repository nor clusterctl's
 * list has it.
 */
export function notPredefinedProvider(cr: ProviderCR, at: { file: string; line: number; col: number }): Diagnostic {
  const empty = cr.spec.fetchConfig ? 'its spec.fetchConfig names no source' : 'it has no spec.fetchConfig';
  return error(
    'preflight',
    peerWording(
      'cluster-api-operator',
      NOT_PREDEFINED,
      `${ref(cr)}: ${empty}, and ${cr.name} is in neither a configured local repository nor clusterctl's provider list`,
    ),
    {
      ...at,
      field: 'spec.fetchConfig',
      object: ref(cr),
      hint: 'set spec.fetchConfig (url, oci or selector), add the provider to providers: in capi-render.yaml, or put its releases in a local repository under repositories:',
    },
  );
}

/** Runs every check and returns all problems. */
export function runPreflightChecks(providers: readonly ProviderCR[], ctx: PreflightContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (cr: ProviderCR, path: (string | number)[], field: string) => ({
    ...ctx.locate(cr, path),
    field,
    object: ref(cr),
  });

  const cores = providers.filter((p) => p.kind === 'CoreProvider');
  for (const core of cores) {
    if (core.name !== 'cluster-api') {
      out.push(
        error(
          'preflight',
          peerWording(
            'cluster-api-operator',
            `Incorrect CoreProvider name: ${core.name}. It should be cluster-api`,
            `${ref(core)}`,
          ),
          {
            ...at(core, ['metadata', 'name'], 'metadata.name'),
            hint: 'name the CoreProvider cluster-api (clusterctl and the operator know the core provider only by that name)',
          },
        ),
      );
    }
  }
  if (cores.length > 1) {
    for (const extra of cores.slice(1)) {
      out.push(
        error(
          'preflight',
          peerWording(
            'cluster-api-operator',
            'CoreProvider already exists in the cluster. Only one is allowed.',
            `${ref(extra)} is a second CoreProvider besides ${ref(cores[0]!)}`,
          ),
          {
            ...at(extra, ['metadata', 'name'], 'metadata.name'),
            hint: 'keep one CoreProvider per environment; an overlay can remove the other with a $patch: delete patch',
          },
        ),
      );
    }
  }
  if (cores.length === 0 && providers.length > 0) {
    out.push(
      error(
        'preflight',
        peerWording('clusterctl', 'invalid management cluster: there must be one core provider, found 0'),
        {
          file: providers[0]!.file,
          line: providers[0]!.line,
          hint: 'declare a CoreProvider named cluster-api (clusterctl requires exactly one per management cluster)',
        },
      ),
    );
  }

  // The operator allows one provider per kind and name in the whole cluster. capi-render also
  // accepts several instances in different namespaces when each one watches only its own scope
  // (spec.manager.cacheNamespace) — see process/multi-instance.ts for the remaining rules.
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
      const others = group.filter((o) => o !== p);
      const detail = `${ref(p)} and ${others.map(ref).join(', ')}: several instances need each to watch only its own namespace`;
      out.push(
        error(
          'multi-namespace',
          ctx.baseline?.operator
            ? // The operator's format string takes (kind, name) but is given (name, namespace); the phrase is
              // quoted with the arguments it was meant to have, which is what the message says to users.
              peerWording(
                'cluster-api-operator',
                `There is already a ${p.kind} with name ${p.name} in the cluster. Only one is allowed.`,
                detail,
              )
            : // clusterctl's installer.go simulateInstall (the instances already there, by namespace), as its validate wraps it.
              peerWording(
                'clusterctl',
                `installing provider "${manifestLabel(p.kind, p.name)}" can lead to a non functioning management cluster: there is already an instance of the "${manifestLabel(p.kind, p.name)}" provider installed in the "${others.map((o) => o.namespace).join(', ')}" namespace`,
                detail,
              ),
          {
            ...at(p, ['spec'], 'spec.manager.cacheNamespace'),
            hint: 'set spec.manager.cacheNamespace on every instance (the operator allows one instance per cluster; see docs/safety.md "Multi-namespace installs")',
          },
        ),
      );
    }
  }

  for (const p of providers) {
    const version = p.spec.version;
    if (version !== undefined && version !== '' && !ctx.isAcceptedVersion(version)) {
      out.push(
        error(
          'preflight',
          notSemanticMessage(version, `spec.version "${version}" of ${ref(p)} is not a semantic version`),
          {
            ...at(p, ['spec', 'version'], 'spec.version'),
            hint: parseVersion(`v${version}`) ? `write v${version}` : 'use an exact release tag such as v1.12.0',
          },
        ),
      );
    }
    const fc = p.spec.fetchConfig;
    if (fc?.url && fc.selector) {
      out.push(
        error('preflight', peerWording('cluster-api-operator', ONLY_ONE_OF_SELECTOR_AND_URL, `${ref(p)} sets both`), {
          ...at(p, ['spec', 'fetchConfig'], 'spec.fetchConfig'),
          hint: 'keep either spec.fetchConfig.url or spec.fetchConfig.selector',
        }),
      );
    }
    if (!namesFetchSource(fc) && !ctx.isKnownProvider(p))
      out.push(notPredefinedProvider(p, ctx.locate(p, fc ? ['spec', 'fetchConfig'] : ['metadata', 'name'])));
  }
  return out;
}

/**
 * The operator's preflight reports the version parser's own error (reason IncorrectVersionFormat);
 * quoted where that parser's error is the one it gives: text that does not start like a version
 * at all. Other malformed versions get other parser errors, and `1.12.0` (no `v`) it accepts.
 */
function notSemanticMessage(version: string, detail: string): string {
  return /^\s*v?[0-9]/.test(version)
    ? detail
    : peerWording('cluster-api-operator', `could not parse ${JSON.stringify(version)} as version`, detail);
}

/** The operator's phrase for a fetchConfig with both url and selector. */
export const ONLY_ONE_OF_SELECTOR_AND_URL = 'Only one of Selector and URL must be provided, not both';

/**
 * Whether a fetchConfig names a source. The operator treats a fetchConfig whose selector, url and
 * oci are all empty as no fetchConfig at all (preflight_checks.go; phase_initialize.go falls back to
 * the provider list for an empty url), so `url: ""` behaves exactly like a missing fetchConfig.
 */
export function namesFetchSource(fetchConfig: ProviderCR['spec']['fetchConfig']): boolean {
  return Boolean(fetchConfig && (fetchConfig.selector || fetchConfig.url || fetchConfig.oci));
}

export function ref(cr: ProviderCR): string {
  return `${cr.kind}/${cr.namespace}/${cr.name}`;
}
