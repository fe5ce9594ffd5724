/**
 * The `yaml` package where it is needed only when something is reported: the line and column of a
 * problem in an input, a patch or the lock. Loaded on first use, so that a build reporting nothing
 * does not compile it (about 260 KB of the CLI's bundle); the commands that edit YAML (upgrade, init,
 * import) import it as usual.
 */
import { createRequire } from 'node:module';
import type * as YamlLibrary from 'yaml';

const requireFromHere = createRequire(import.meta.url);

/** The `yaml` package (Node's module cache keeps the one loaded). */
export function yamlLibrary(): typeof YamlLibrary {
  return requireFromHere('yaml') as typeof YamlLibrary;
}
