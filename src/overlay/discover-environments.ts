/**
 * The environments of a repository: every folder directly under overlays/ whose overlay.yaml is not
 * `abstract: true`, sorted by name. Without any, the repository has one environment, `default`,
 * made of providers/ alone.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UsageError, error, throwIfErrors, type Diagnostic } from '../errors.js';
import { objectNameFrom } from '../gitops/layout.js';
import { resolveInput } from '../repository-files.js';
import { suggestField } from '../declarations/schema/suggest-field.js';
import { loadOverlay, type LoadedOverlay, type OverlayLoader } from './load-overlay.js';
import { OVERLAY_FILE } from './overlay-types.js';

export interface EnvironmentEntry {
  name: string;
  /** Repository-relative overlay folder; undefined for the implicit `default`. */
  overlayDir?: string;
}

export const DEFAULT_ENVIRONMENT = 'default';

export async function discoverEnvironments(
  repoRoot: string,
  overlaysDir: string,
  load: OverlayLoader = loadOverlay,
): Promise<EnvironmentEntry[]> {
  // overlays/ and its folders are inputs: a link among them is followed inside the repository and
  // refused out of it (src/repository-files.ts), never skipped without a word.
  const top = resolveInput(repoRoot, overlaysDir);
  const entries =
    top?.kind === 'folder' ? await fs.readdir(path.join(repoRoot, overlaysDir), { withFileTypes: true }) : [];
  const dirs = entries
    .filter(
      (x) =>
        x.isDirectory() ||
        (x.isSymbolicLink() &&
          !x.name.startsWith('.') &&
          resolveInput(repoRoot, `${overlaysDir}/${x.name}`)?.kind === 'folder'),
    )
    .map((x) => x.name)
    .sort((a, b) => (a < b ? -1 : 1))
    .filter((name) => resolveInput(repoRoot, `${overlaysDir}/${name}/${OVERLAY_FILE}`) !== undefined);
  // Read in parallel (a hundred environments are a hundred files), but fail on the first bad
  // overlay in name order, so the error does not depend on which read finished first.
  const loaded = await Promise.allSettled(dirs.map((name) => load(repoRoot, `${overlaysDir}/${name}/${OVERLAY_FILE}`)));
  const failed = loaded.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const found = dirs
    .filter((_, i) => !(loaded[i] as PromiseFulfilledResult<LoadedOverlay>).value.spec.abstract)
    .map((name) => ({ name, overlayDir: `${overlaysDir}/${name}` }));
  throwIfErrors(nameCollisions(found));
  return found.length > 0 ? found : [{ name: DEFAULT_ENVIRONMENT }];
}

/**
 * Environments whose names differ only in case, `.`, `_` or `-` get the same Argo CD Application and
 * Flux Kustomization names (gitops/layout.ts objectNameFrom), and one would overwrite the other in the
 * cluster; names differing in case alone are also one folder on a case-insensitive checkout. Refused
 * whatever the flavour: an environment's name outlives the flavour it is built for today.
 */
function nameCollisions(found: readonly Required<EnvironmentEntry>[]): Diagnostic[] {
  const first = new Map<string, Required<EnvironmentEntry>>();
  const problems: Diagnostic[] = [];
  for (const entry of found) {
    const objectName = objectNameFrom(entry.name);
    const earlier = first.get(objectName);
    if (!earlier) {
      first.set(objectName, entry);
      continue;
    }
    problems.push(
      error(
        'overlay',
        `environment ${entry.name} (${entry.overlayDir}) and environment ${earlier.name} (${earlier.overlayDir}) would both be capi-${objectName} in Argo CD and Flux`,
        {
          file: `${entry.overlayDir}/${OVERLAY_FILE}`,
          line: 1,
          col: 1,
          hint: 'rename one of the overlay folders: GitOps names lower-case an environment\'s name and turn "." and "_" into "-", so environment names must differ after that',
        },
      ),
    );
  }
  return problems;
}

/**
 * The usage error for `--env` names that are not environments of the repository: the closest
 * existing name for each, and the list. `extra` says why, where that is not obvious.
 */
export function unknownEnvironments(unknown: readonly string[], known: readonly string[], extra = ''): UsageError {
  const guesses = unknown.map((u) => suggestField(u, known)).filter((g): g is string => g !== undefined);
  const mean = guesses.length > 0 ? `; did you mean ${guesses.map((g) => `--env ${g}`).join(', ')}?` : '';
  return new UsageError(
    `unknown environment${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}${extra}${mean} (environments: ${known.join(', ') || 'none'})`,
  );
}

/** `K/N` → the environments of shard K (1-based): a round-robin over the sorted names. */
export function selectShard<T extends { name: string }>(environments: readonly T[], shard: string): T[] {
  const m = /^(\d+)\/(\d+)$/.exec(shard);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(
      `--shard must be K/N with 1 ≤ K ≤ N, got "${shard}" (e.g. --shard 2/4 renders the second quarter of the environments)`,
    );
  }
  return [...environments].sort((a, b) => (a.name < b.name ? -1 : 1)).filter((_, i) => i % count === index - 1);
}
