/**
 * Which source delivers a provider's artifacts, decided from its CR the way the operator decides:
 * `fetchConfig.selector` → ConfigMaps among the inputs; no fetchConfig (or one whose fields are all
 * empty, as the operator reads `url: ""`) → the configured local repositories (first that has the
 * provider), then clusterctl's provider list. Other fetchConfig forms are resolved by the catalog
 * (GitHub, GitLab, OCI), which later sources plug into.
 */
import { SpecError, error } from '../errors.js';
import { createConfigMapSource } from './configmap-source.js';
import { findLocalRepository, type LocalSearch } from './local-repository.js';
import type { ReleaseSource } from './release-source.js';
import type { InputObject } from '../declarations/inputs.js';
import { manifestLabel } from '../declarations/provider-kinds.js';
import { notPredefinedProvider } from '../declarations/preflight.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import { readConfigSecret } from '../declarations/config-secret.js';

/** Where a provider's artifacts come from, and how `latest` is chosen there. */
export interface ProviderSource {
  source: ReleaseSource;
  /** Name of the components file in a release. */
  componentsFile: string;
  latestRule: 'clusterctl' | 'operator';
  /** A version fixed by the source itself (an OCI reference with a tag); overrides spec.version. */
  pinnedVersion?: string;
  /** The version a URL names (`…/releases/v1.12.0/…`): used when spec.version is empty, as clusterctl's default version. */
  defaultVersion?: string;
  /** Where the configured local repositories were searched before this (remote) source was chosen, for `--offline` errors. */
  localSearch?: LocalSearch;
}

/** Knowledge about providers that is not in their CRs: clusterctl's list and remote sources. */
export interface ProviderCatalog {
  /** Components file name of a known provider (`infrastructure-components-development.yaml` for docker). */
  componentsFile(cr: ProviderCR): string;
  /** Whether the provider is in clusterctl's provider list (a "predefined" provider for the operator). */
  isPredefined?(cr: ProviderCR): boolean;
  /**
   * A remote source for a provider with no fetchConfig, or undefined when it is unknown;
   * `configSecret` holds the provider's secret values (a GitLab token), as for remoteSource.
   */
  defaultRemoteSource?(
    cr: ProviderCR,
    context?: { configSecret: () => Record<string, string> },
  ): ProviderSource | undefined;
  /** A source for any release URL (GitHub or file://), e.g. cert-manager's. */
  sourceForUrl?(
    url: string,
    at: { label: string; ref: string; file: string; line: number; field: string },
  ): ProviderSource;
  /** A source for `fetchConfig.url` / `fetchConfig.oci`; `configSecret` holds the provider's secret values (OCI credentials). */
  remoteSource?(cr: ProviderCR, context: { configSecret: () => Record<string, string> }): ProviderSource | undefined;
}

export interface SourceContext {
  repoRoot: string;
  repositories: readonly { path: string }[];
  /** The folder `mirror --to` fills (absolute): never read as a source while another can serve the release. */
  fillingRepository?: string;
  configMaps: readonly InputObject[];
  secrets: readonly InputObject[];
  catalog: ProviderCatalog;
  locate(cr: ProviderCR, path: readonly (string | number)[]): { file: string; line: number; col: number };
}

/** The source of one provider; throws SpecError when none can serve it. */
export function providerSource(cr: ProviderCR, ctx: SourceContext): ProviderSource {
  const ref = `${cr.kind}/${cr.namespace}/${cr.name}`;
  const fetchConfig = cr.spec.fetchConfig;
  const configSecret = () => (cr.spec.configSecret ? readConfigSecret(cr, ctx.secrets) : {});
  if (fetchConfig?.selector) {
    return {
      source: createConfigMapSource({
        selector: fetchConfig.selector,
        namespace: cr.namespace,
        configMaps: ctx.configMaps,
        declaredAt: { ...ctx.locate(cr, ['spec', 'fetchConfig', 'selector']), object: ref },
      }),
      componentsFile: 'components.yaml',
      latestRule: 'operator',
    };
  }
  if (fetchConfig?.url || fetchConfig?.oci) {
    const remote = ctx.catalog.remoteSource?.(cr, { configSecret });
    if (remote) return remote;
    const field = fetchConfig.url ? 'url' : 'oci';
    throw new SpecError(
      error('source-unsupported', `spec.fetchConfig.${field} of ${ref} cannot be served by this build`, {
        ...ctx.locate(cr, ['spec', 'fetchConfig', field]),
        field: `spec.fetchConfig.${field}`,
        object: ref,
      }),
    );
  }
  const label = manifestLabel(cr.kind, cr.name);
  const local = findLocalRepository(ctx.repoRoot, ctx.repositories, label, ctx.fillingRepository);
  if ('source' in local)
    return { source: local.source, componentsFile: ctx.catalog.componentsFile(cr), latestRule: 'clusterctl' };
  const remote = ctx.catalog.defaultRemoteSource?.(cr, { configSecret });
  if (remote) return { ...remote, localSearch: local.search };
  // Only the folder being filled has it: mirroring it into itself is what there is.
  const filling =
    ctx.fillingRepository === undefined ? local : findLocalRepository(ctx.repoRoot, ctx.repositories, label);
  if ('source' in filling)
    return { source: filling.source, componentsFile: ctx.catalog.componentsFile(cr), latestRule: 'clusterctl' };
  throw new SpecError(
    notPredefinedProvider(cr, ctx.locate(cr, fetchConfig ? ['spec', 'fetchConfig'] : ['metadata', 'name'])),
  );
}
