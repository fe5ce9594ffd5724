/**
 * The default ProviderCatalog: clusterctl's built-in provider list decides asset names (CAPD ships
 * `infrastructure-components-development.yaml`) and which providers are "predefined".
 */
import { findBuiltinProvider } from '../source/github/builtin-providers.js';
import { kindInfo } from '../spec/provider-kinds.js';
import type { ProviderCR } from '../spec/provider-spec.js';
import type { ProviderCatalog } from './provider-source.js';

export function createDefaultCatalog(): ProviderCatalog {
  return {
    componentsFile(cr: ProviderCR): string {
      const builtin = findBuiltinProvider(cr.kind, cr.name);
      if (!builtin) return kindInfo(cr.kind).componentsAsset;
      return builtin.url.slice(builtin.url.lastIndexOf('/') + 1);
    },
  };
}
