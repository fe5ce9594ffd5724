/**
 * clusterctl's built-in provider list, embedded as data (`builtin-providers.json`, extracted from
 * the `defaults()` list of cluster-api v1.14.0 `cmd/clusterctl/client/config/providers_client.go`;
 * its header records the tag and commit; `builtin-providers-v1.12.10.json` the same list of v1.12.10,
 * the clusterctl cluster-api-operator v0.28 runs: 61 entries, without cloudscale-ch-cloudscale, oxide
 * and kubeswift-io), and clusterctl's rules for merging user-defined entries
 * into it (`providersClient.List`). The list is immutable; merging returns new arrays.
 */
import list from './builtin-providers.json' with { type: 'json' };
import listV1_12 from './builtin-providers-v1.12.10.json' with { type: 'json' };
import type { Diagnostic, Location } from '../../errors.js';
import { isProviderKind, kindInfo, type ProviderKind } from '../../declarations/provider-kinds.js';
import { validateProviderEntry, type ProviderEntryInput } from './validate-provider.js';

export type { ProviderEntryInput } from './validate-provider.js';

/** One provider configuration: identity is (name, type); `url` points at its components file. */
export interface BuiltinProvider {
  readonly name: string;
  readonly type: ProviderKind;
  readonly url: string;
}

/** Where the embedded list comes from; the lock file records it. */
export interface BuiltinProvidersHeader {
  /** The clusterctl release whose list is embedded, e.g. `v1.14.0`. */
  readonly clusterctl: string;
  readonly commit: string;
  readonly source: string;
}

/** A user entry plus where it was written, for diagnostics. */
export interface UserProviderEntry extends ProviderEntryInput {
  where?: Location;
}

export interface MergedProviderList {
  /** Valid entries, sorted by clusterctl's type order, then name. */
  providers: BuiltinProvider[];
  /** Every problem of every invalid user entry (code `config`); invalid entries are left out of `providers`. */
  diagnostics: Diagnostic[];
}

export const BUILTIN_PROVIDERS_HEADER: BuiltinProvidersHeader = Object.freeze({ ...list.header });

/** The embedded list in source order (64 entries for v1.14.0). */
export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = Object.freeze(
  list.providers.map((entry) => {
    if (!isProviderKind(entry.type)) throw new Error(`builtin-providers.json: unknown type ${entry.type}`);
    return Object.freeze({ name: entry.name, type: entry.type, url: entry.url });
  }),
);

const V1_12_10: readonly BuiltinProvider[] = Object.freeze(
  listV1_12.providers.map((entry) => {
    if (!isProviderKind(entry.type)) throw new Error(`builtin-providers-v1.12.10.json: unknown type ${entry.type}`);
    return Object.freeze({ name: entry.name, type: entry.type, url: entry.url });
  }),
);

/** The built-in list of clusterctl `clusterctl` (`v1.14.0`, the default, or `v1.12.10`, the operator's). */
export function builtinProvidersOf(clusterctl: string): readonly BuiltinProvider[] {
  return clusterctl === listV1_12.header.clusterctl ? V1_12_10 : BUILTIN_PROVIDERS;
}

/** Where the list of clusterctl `clusterctl` comes from (see {@link builtinProvidersOf}). */
export function builtinProvidersHeaderOf(clusterctl: string): BuiltinProvidersHeader {
  return clusterctl === listV1_12.header.clusterctl ? Object.freeze({ ...listV1_12.header }) : BUILTIN_PROVIDERS_HEADER;
}

/** The built-in configuration of provider `name` of `kind`, or undefined (exact, case-sensitive match). */
export function findBuiltinProvider(kind: ProviderKind, name: string): BuiltinProvider | undefined {
  return BUILTIN_PROVIDERS.find((provider) => provider.type === kind && provider.name === name);
}

/**
 * Merges user entries into a base list the way clusterctl does: each valid entry replaces every
 * entry with the same name and type, or is appended; the result is sorted by type order
 * (core, bootstrap, control-plane, infrastructure, ipam, runtime-extension, addon), then by name.
 * Invalid entries are reported (all problems, not only the first) and skipped. URLs are taken as
 * given: clusterctl's envsubst of the URL against the environment is the caller's step.
 */
export function mergeProviderList(
  builtins: readonly BuiltinProvider[],
  userEntries: readonly UserProviderEntry[],
): MergedProviderList {
  const providers = [...builtins];
  const diagnostics: Diagnostic[] = [];
  userEntries.forEach((entry, index) => {
    const problems = validateProviderEntry(entry, entry.where ?? {}, entry.where?.field ?? `providers[${index}]`);
    if (problems.length > 0 || !isProviderKind(entry.type)) {
      diagnostics.push(...problems);
      return;
    }
    const provider: BuiltinProvider = { name: entry.name, type: entry.type, url: entry.url };
    let replaced = false;
    for (let i = 0; i < providers.length; i++) {
      if (providers[i]?.name === provider.name && providers[i]?.type === provider.type) {
        providers[i] = provider;
        replaced = true;
      }
    }
    if (!replaced) providers.push(provider);
  });
  return { providers: providers.sort(compareProviders), diagnostics };
}

/** clusterctl's `Provider.Less`: type order, then name (byte order; names are ASCII). */
export function compareProviders(a: BuiltinProvider, b: BuiltinProvider): number {
  const byOrder = kindInfo(a.type).order - kindInfo(b.type).order;
  if (byOrder !== 0) return byOrder;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
