/**
 * The annotations the GitOps stage writes, and how it writes them: always through setIn, so an
 * object is copied only along `metadata.annotations` and everything else stays shared.
 */
import { annotationsOf, setIn, type KubeObject } from '../manifest/object.js';

/** Argo CD: sync wave, a quoted integer; lower waves sync (and prune, in reverse) first. */
export const ARGOCD_SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
/** Argo CD: per-object sync options, a comma list of `Key=value`. */
export const ARGOCD_SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
/** Flux: `disabled` keeps the object when it leaves the Kustomization. */
export const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
/** Flux: `disabled` exempts the object from postBuild `${var}` substitution. */
export const FLUX_SUBSTITUTE = 'kustomize.toolkit.fluxcd.io/substitute';
/** The value both Flux annotations take to switch their behaviour off. */
export const DISABLED = 'disabled';

/** cert-manager cainjector's source annotations: an object carrying one has its caBundle filled in-cluster. */
export const CA_INJECTION_ANNOTATIONS = [
  'cert-manager.io/inject-ca-from',
  'cert-manager.io/inject-ca-from-secret',
  'cert-manager.io/inject-apiserver-ca',
] as const;

/** True when cert-manager's cainjector manages the object's caBundle fields. */
export function isCaInjected(obj: KubeObject): boolean {
  const annotations = annotationsOf(obj);
  return CA_INJECTION_ANNOTATIONS.some((key) => typeof annotations[key] === 'string' && annotations[key] !== '');
}

/** Returns `obj` with the annotation set; the same object when it already has that value. */
export function withAnnotation(obj: KubeObject, key: string, value: string): KubeObject {
  return annotationsOf(obj)[key] === value ? obj : setIn(obj, ['metadata', 'annotations', key], value);
}

/** Result of merging sync options into an existing annotation value. */
export interface MergedOptions {
  /** The comma list: one entry per key, sorted, no duplicates. */
  value: string;
  /** Entries we wanted to add whose key already had another value (the existing one is kept). */
  conflicts: string[];
}

/**
 * Merges `Key=value` entries into an Argo CD sync-options list. Entries already present win over
 * added ones with the same key: a value there came from the artifact or a user patch, so it is a
 * deliberate choice (e.g. `ServerSideApply=false`), reported back as a conflict.
 */
export function mergeSyncOptions(existing: string | undefined, add: readonly string[]): MergedOptions {
  const byKey = new Map<string, string>();
  const conflicts: string[] = [];
  for (const entry of (existing ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    if (!byKey.has(optionKey(entry))) byKey.set(optionKey(entry), entry);
  }
  for (const entry of add) {
    const current = byKey.get(optionKey(entry));
    if (current === undefined) byKey.set(optionKey(entry), entry);
    else if (current !== entry) conflicts.push(entry);
  }
  const value = [...byKey.values()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)).join(',');
  return { value, conflicts };
}

function optionKey(entry: string): string {
  const eq = entry.indexOf('=');
  return eq < 0 ? entry : entry.slice(0, eq);
}
