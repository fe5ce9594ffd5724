/** An environment's inputs after composition, without rendering anything (for `capi-render inputs`). */
import { throwIfErrors } from '../errors.js';
import { composeEnvironment } from '../overlay/compose-environment.js';
import { discoverEnvironments, unknownEnvironments } from '../overlay/discover-environments.js';
import { classifyInputs, type InputSet } from '../declarations/inputs.js';
import { loadRepository, readDocuments, readInputTree } from './load-repository.js';

export interface EffectiveInputs {
  name: string;
  inputs: InputSet;
  chain: string[];
}

/** Undefined when `env` is not given and the repository has several environments. */
export async function effectiveInputs(repoRoot: string, env: string | undefined): Promise<EffectiveInputs | undefined> {
  const repo = await loadRepository(repoRoot);
  const environments = await discoverEnvironments(repoRoot, repo.config.overlaysDir);
  const entry =
    env === undefined
      ? environments.length === 1
        ? environments[0]
        : undefined
      : environments.find((e) => e.name === env);
  if (env !== undefined && !entry) {
    throw unknownEnvironments(
      [env],
      environments.map((e) => e.name),
    );
  }
  if (!entry) return undefined;
  if (!entry.overlayDir) {
    const classified = classifyInputs(repo.base);
    throwIfErrors(classified.diagnostics);
    return { name: entry.name, inputs: classified.inputs, chain: [] };
  }
  const composed = await composeEnvironment(entry.overlayDir, {
    repoRoot,
    providersDir: repo.config.providersDir,
    readDocuments: (relative) =>
      relative === repo.config.providersDir ? Promise.resolve(repo.base) : readDocuments(repoRoot, relative),
    contentHash: async (relative) =>
      relative === repo.config.providersDir ? repo.baseHash : (await readInputTree(repoRoot, relative)).sha256,
  });
  return { name: entry.name, inputs: composed.inputs, chain: composed.chain };
}
