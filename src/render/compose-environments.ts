/**
 * Phase 1 of a build (render-run.ts), the part that needs no release: which environments exist and
 * which are asked for, and each one's inputs composed from its overlays. Input folders are read and
 * parsed once per build, however many environments use them.
 */
import { throwIfErrors } from '../errors.js';
import { composeEnvironment, type ComposeContext, type ComposedEnvironment } from '../overlay/compose-environment.js';
import {
  discoverEnvironments,
  selectShard,
  unknownEnvironments,
  type EnvironmentEntry,
} from '../overlay/discover-environments.js';
import type { OverlayLoader } from '../overlay/load-overlay.js';
import { classifyInputs } from '../declarations/inputs.js';
import type { SourceDocument } from '../declarations/yaml-document.js';
import { readInputTree, type LoadedRepository } from './load-repository.js';
import type { RenderOptions } from './render-options.js';

/** Every environment (sorted, with its overlay), and those `options` ask for (`environments`, then `shard`). */
export async function selectEnvironments(
  repoRoot: string,
  overlaysDir: string,
  overlays: OverlayLoader,
  options: Pick<RenderOptions, 'environments' | 'shard'>,
): Promise<{ allEnvironments: string[]; discovered: EnvironmentEntry[]; wanted: EnvironmentEntry[] }> {
  const discovered = await discoverEnvironments(repoRoot, overlaysDir, overlays);
  const allEnvironments = discovered.map((e) => e.name);
  const unknown = (options.environments ?? []).filter((e) => !allEnvironments.includes(e));
  if (unknown.length > 0) throw unknownEnvironments(unknown, allEnvironments);
  let wanted = options.environments?.length
    ? discovered.filter((e) => options.environments!.includes(e.name))
    : discovered;
  if (options.shard) wanted = selectShard(wanted, options.shard);
  return { allEnvironments, discovered, wanted };
}

/**
 * Composes environments of `repo`; folders of inputs are read once for all of them. `context` is
 * what composing reads through, for callers that need a part of an overlay only (its gitops settings).
 */
export function composer(
  repoRoot: string,
  repo: LoadedRepository,
  overlays: OverlayLoader,
): { compose: (entry: EnvironmentEntry) => Promise<ComposedEnvironment>; context: ComposeContext } {
  const trees = new Map<string, Promise<{ documents: SourceDocument[]; sha256: string }>>();
  trees.set(repo.config.providersDir, Promise.resolve({ documents: repo.base, sha256: repo.baseHash }));
  const tree = (relative: string) => {
    let pending = trees.get(relative);
    if (!pending) {
      pending = readInputTree(repoRoot, relative);
      trees.set(relative, pending);
    }
    return pending;
  };
  const ctx: ComposeContext = {
    repoRoot,
    providersDir: repo.config.providersDir,
    readDocuments: async (relative) => (await tree(relative)).documents,
    contentHash: async (relative) => (await tree(relative)).sha256,
    loadOverlay: overlays,
  };
  return {
    compose: async (entry) => (entry.overlayDir ? composeEnvironment(entry.overlayDir, ctx) : baseEnvironment(repo)),
    context: ctx,
  };
}

/** Inputs of the implicit `default` environment: providers/ as it is. */
function baseEnvironment(repo: LoadedRepository): ComposedEnvironment {
  const classified = classifyInputs(repo.base);
  throwIfErrors(classified.diagnostics);
  return {
    inputs: classified.inputs,
    certManager: {},
    gitops: {},
    variables: {},
    images: {},
    imagePolicy: {},
    labels: {},
    chain: [],
    inputsHash: repo.baseHash,
    reads: [`resource ${repo.config.providersDir} ${repo.baseHash}`],
  };
}
