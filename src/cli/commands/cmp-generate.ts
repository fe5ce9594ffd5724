/**
 * `capi-render cmp-generate`: the `generate` command of the Argo CD Config Management Plugin (CMP
 * v2 sidecar of argocd-repo-server; README "Argo CD plugin and source hydrator"). The repo-server
 * runs it in the Application's source path inside a fresh copy of the repository, with the
 * sidecar's environment plus ARGOCD_APP_* and ARGOCD_ENV_* variables and no TTY, and applies
 * whatever it prints. So it:
 *   - takes the environment from ARGOCD_ENV_CAPI_ENV (the Application's `plugin.env` CAPI_ENV) —
 *     no shell, so nothing the Application says is ever interpreted; ARGOCD_APP_NAMESPACE is the
 *     *destination* namespace and is never read;
 *   - renders from the files in git only: the lock must pin everything (always `--frozen`), since
 *     Argo CD caches the output per commit and would not re-run a generate whose result depended
 *     on the network; with `--offline` (or ARGOCD_ENV_CAPI_OFFLINE=true) it never connects at all;
 *   - writes nothing into the checkout (the artifact cache must live elsewhere);
 *   - never prints an empty or shrunken stream: exit 1 instead (Argo CD would prune);
 *   - prints exactly what `build --stdout` prints, which is what rendered/<env> holds.
 * Logs go to stderr, which Argo CD shows on failure. The repo-server's deadline ends it with
 * SIGTERM; it installs no handler, writes nothing and starts no child process, so it simply stops.
 */
import path from 'node:path';
import { DriftError, SpecError, error } from '../../errors.js';
import { PLUGIN_ENV_VARIABLE } from '../../gitops/argocd-applications.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { render } from '../../render/render.js';
import { defaultCacheDir } from '../../source/artifact-cache.js';
import type { Command } from '../command.js';
import { streamEnvironment } from '../environment-stream.js';
import { formatDiagnostics } from '../format.js';
import { onlyEnvironment } from '../only-environment.js';
import { RENDER_FLAGS, prepareRender } from '../render-options.js';

/** The Application's `plugin.env` entry CAPI_ENV, as the repo-server passes it. */
const ENV_VARIABLE = `ARGOCD_ENV_${PLUGIN_ENV_VARIABLE}`;
const OFFLINE_VARIABLE = 'ARGOCD_ENV_CAPI_OFFLINE';

export const cmpGenerateCommand: Command = {
  name: 'cmp-generate',
  summary: "the Argo CD Config Management Plugin's generate command: print one environment's objects from the committed inputs and lock",
  usage: '[--env NAME] [--offline] [--cache-dir DIR]',
  help: [
    ['--env NAME', `the environment (default $${ENV_VARIABLE}, the Application's plugin env CAPI_ENV; may be left out when there is only one)`],
    ['--offline', `never use the network: every artifact must be in the cache (also $${OFFLINE_VARIABLE}=true)`],
    ['--cache-dir DIR', 'artifact cache, outside the checkout (default $CAPI_RENDER_CACHE_DIR, …); mount a volume there'],
  ],
  options: { env: { type: 'string' }, offline: RENDER_FLAGS.offline!, 'cache-dir': RENDER_FLAGS['cache-dir']! },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const env = await onlyEnvironment(repoRoot, (values.env as string | undefined) ?? (io.env[ENV_VARIABLE] || undefined), (names) => `set the Application's plugin env ${PLUGIN_ENV_VARIABLE} to one of ${names} (${ENV_VARIABLE} is not set)`);
    const offline = Boolean(values.offline) || io.env[OFFLINE_VARIABLE] === 'true';
    // Before anything reads through the cache (the lock's parse is cached there too).
    refuseCacheInCheckout(values['cache-dir'] ? path.resolve(io.cwd, String(values['cache-dir'])) : defaultCacheDir(io.env), repoRoot);
    const prepared = await prepareRender({ ...ctx, values: { ...values, env: [env], offline } });
    const result = await render(prepared.options);
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const changes = describeLockChanges(prepared.lock, result.lock);
    if (changes.length > 0) {
      throw new DriftError(
        error('frozen', `capi-render.lock does not pin what environment ${result.environments[0]!.environment.name} renders:\n  ${changes.join('\n  ')}`, {
          file: 'capi-render.lock',
          hint: 'run capi-render build and commit the lock: the plugin renders from git alone, and Argo CD caches its output per commit',
        }),
      );
    }
    io.stdout.write(streamEnvironment({ environment: result.environments[0]!, previousLock: prepared.lock, nextLock: result.lock }));
    return 0;
  },
};

/** The checkout is a fresh copy per generate, so a cache there is lost — and the plugin must not write into it. */
function refuseCacheInCheckout(cacheDir: string, repoRoot: string): void {
  const relative = path.relative(repoRoot, cacheDir);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    throw new SpecError(
      error('plugin', `the artifact cache ${cacheDir} is inside the checkout ${repoRoot}; the plugin writes nothing there`, {
        hint: 'set CAPI_RENDER_CACHE_DIR in the sidecar to a volume of its own, e.g. /cache',
      }),
    );
  }
}
