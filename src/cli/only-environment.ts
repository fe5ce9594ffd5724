/**
 * For commands that work on one environment: the one to use when none was named, found without
 * rendering anything — rendering every environment only to refuse would, in the Argo CD plugin,
 * spend the repo-server's deadline on a hundred environments.
 */
import { UsageError } from '../errors.js';
import { loadConfig } from '../config/load-config.js';
import { discoverEnvironments } from '../overlay/discover-environments.js';

/** `named` when given; else the repository's only environment; else a UsageError listing them (`how` says how to choose). */
export async function onlyEnvironment(
  repoRoot: string,
  named: string | undefined,
  how: (names: string) => string,
): Promise<string> {
  if (named !== undefined) return named;
  const config = await loadConfig(repoRoot);
  const environments = (await discoverEnvironments(repoRoot, config.overlaysDir)).map((e) => e.name);
  if (environments.length === 1) return environments[0]!;
  throw new UsageError(how(environments.join(', ')));
}
