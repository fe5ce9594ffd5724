/**
 * `capi-render cmp-generate`: the `generate` command of the Argo CD Config Management Plugin (docs/argocd.md
 * "Argo CD plugin and source hydrator"). The repo-server runs it in a fresh copy of the repository and
 * applies whatever it prints, so it prints exactly what `build --stdout` prints for the environment
 * named by ARGOCD_ENV_CAPI_ENV, renders only from what git pins (always `--frozen`), writes nothing
 * into the checkout, and exits 1 rather than print an empty or shrunken stream.
 *
 * Design notes: docs/internals.md "cli/commands/cmp-generate.ts".
 */
import path from 'node:path';
import { DriftError, InternalError, SpecError, error, type Diagnostic } from '../../errors.js';
import { PLUGIN_ENV_VARIABLE } from '../../gitops/argocd-applications.js';
import type { LockFile } from '../../lock/lock-types.js';
import { artifactKey } from '../../lock/lock-file.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { canonicalJson } from '../../manifest/canonical-json.js';
import { sortObjects } from '../../manifest/order.js';
import { OVERLAY_FILE } from '../../overlay/overlay-types.js';
import type { OutputFiles } from '../../plan/output-plan.js';
import { assignFileNames } from '../../plan/file-names.js';
import { committedFromLock, removalProblems } from '../../output/removal-guard.js';
import { OTHER_FLAVOURS, allowedFlavour, refuseOtherFlavour } from '../../plugin/flavour-rule.js';
import { probeEnvironment } from '../../plugin/probe.js';
import { readStream, writeStream } from '../../plugin/stream-cache.js';
import { render } from '../../render/render.js';
import type { EnvironmentResult } from '../../render/environment-result.js';
import { createCacheUse } from '../../cache/cache-use.js';
import { defineCommand } from '../command.js';
import { cacheSettings } from '../cache-settings.js';
import { formatDiagnostics } from '../format.js';
import { onlyEnvironment } from '../only-environment.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

/** The Application's `plugin.env` entry CAPI_ENV, as the repo-server passes it. */
const ENV_VARIABLE = `ARGOCD_ENV_${PLUGIN_ENV_VARIABLE}`;
const OFFLINE_VARIABLE = 'ARGOCD_ENV_CAPI_OFFLINE';

export const cmpGenerateCommand = defineCommand({
  name: 'cmp-generate',
  summary:
    "the Argo CD Config Management Plugin's generate command: print one environment's objects from the committed inputs and lock",
  options: {
    env: {
      type: 'string',
      value: 'NAME',
      help: `the environment (default $${ENV_VARIABLE}, the Application's plugin env CAPI_ENV; may be left out when there is only one)`,
    },
    offline: {
      ...RENDER_OPTIONS.offline,
      help: `never use the network: every artifact must be in the cache (also $${OFFLINE_VARIABLE}=true)`,
    },
    'cache-dir': {
      ...RENDER_OPTIONS['cache-dir'],
      help: 'artifact cache, outside the checkout (default $CAPI_RENDER_CACHE_DIR, …); mount a volume there',
    },
    'allow-flavour': {
      type: 'string',
      value: 'F',
      choices: OTHER_FLAVOURS,
      help: 'render an environment prepared for F (flux or kustomize) too; refused by default (also $ARGOCD_ENV_CAPI_ALLOW_FLAVOUR=F, the plugin env CAPI_ALLOW_FLAVOUR)',
    },
  },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const env = await onlyEnvironment(
      repoRoot,
      values.env ?? (io.env[ENV_VARIABLE] || undefined),
      (names) =>
        `set the Application's plugin env ${PLUGIN_ENV_VARIABLE} to one of ${names} (${ENV_VARIABLE} is not set)`,
    );
    const offline = values.offline || io.env[OFFLINE_VARIABLE] === 'true';
    const allowed = allowedFlavour(values['allow-flavour'], io.env);
    const { dir: cacheDir } = cacheSettings(ctx);
    // Before anything reads through the cache (the lock's parse is cached there too).
    refuseCacheInCheckout(cacheDir, repoRoot);

    // The asked environment alone: its flavour, and whether the committed lock is current for it. The
    // probe reads the lock through the repository reader (a lock that is not a regular file is refused
    // as check refuses it); a stored stream reads nothing of rendered/, so the whole gate waits for a
    // render — on the repo-server's hot path it would list every output file of the fleet.
    const use = createCacheUse();
    const probe = await probeEnvironment(repoRoot, env, cacheDir, use);
    if (probe) refuseOtherFlavour({ environment: env, ...probe }, allowed);
    const cached = probe?.streamKey ? readStream(cacheDir, probe.streamKey, use) : undefined;
    if (cached) {
      if (cached.warnings.length > 0) io.stderr.write(formatDiagnostics(cached.warnings, { color }));
      io.stdout.write(cached.text);
      return 0;
    }

    const prepared = await prepareRender({ ...ctx, values: { ...values, env: [env], offline } });
    const result = await render(prepared.options);
    const rendered = result.environments[0]!;
    if (!probe) {
      const overlayFile = `${result.config.overlaysDir.replace(/\/+$/, '')}/${env}/${OVERLAY_FILE}`;
      refuseOtherFlavour(
        {
          environment: env,
          flavour: rendered.gitopsFlavour ?? 'kustomize',
          overlayFile: result.allEnvironments.length === 1 && env === 'default' ? undefined : overlayFile,
          flavourFile: undefined,
        },
        allowed,
      );
    }
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    // The probe found the lock current for every other environment, so the render can only have
    // changed this environment's part of it; when that part is the same, nothing changed at all.
    const unchanged =
      probe?.streamKey !== undefined && lockPart(prepared.lockState.lock, env) === lockPart(result.lock, env);
    const changes = unchanged ? [] : describeLockChanges(prepared.lockState.lock, result.lock);
    if (changes.length > 0) {
      throw new DriftError(
        error(
          'frozen',
          `capi-render.lock does not pin what environment ${rendered.environment.name} renders:\n  ${changes.join('\n  ')}`,
          {
            file: 'capi-render.lock',
            hint: 'run capi-render build and commit the lock: the plugin renders from git alone, and Argo CD caches its output per commit',
          },
        ),
      );
    }
    const documents = streamDocuments(
      rendered,
      result.files,
      unchanged ? undefined : { previous: prepared.lockState.lock, next: result.lock },
    );
    if (probe?.streamKey)
      await writeStream(cacheDir, probe.streamKey, documents, result.warnings, prepared.options.cache?.use ?? use);
    io.stdout.write(documents.join('---\n'));
    await prepared.settleCache();
    return 0;
  },
});

/**
 * The environment's objects as the documents of `build --stdout` (components in install order,
 * objects in apply order: rendered/<env>'s order), taken from the files the render serialised.
 * Refused when the stream would make Argo CD prune: the environment lost providers or CRDs since
 * the lock (the removal guard), or renders nothing at all — a plugin that prints nothing and exits
 * 0 has "succeeded", and Argo CD then prunes the whole app.
 */
function streamDocuments(
  result: EnvironmentResult,
  files: OutputFiles,
  locks: { previous: LockFile; next: LockFile } | undefined,
): string[] {
  const env = result.environment;
  // Without `locks` the environment's lock entries did not change: nothing was removed.
  const committed = result.committed;
  const problems: Diagnostic[] = locks
    ? removalProblems({
        committed: committed ? () => committed : committedFromLock(locks.previous),
        next: locks.next,
        rendered: [env.name],
        retired: [],
        outputOf: () => 'the printed stream',
      })
    : [];
  if (problems.length > 0) throw new SpecError(problems);
  if (env.components.every((c) => c.objects.length === 0)) {
    throw new SpecError(
      error(
        'removal',
        `environment ${env.name} renders no objects: printing an empty stream would make Argo CD prune everything it applied`,
        {
          hint: 'declare its providers (providers/ or its overlay); an environment is retired by deleting its overlay, not by emptying it',
        },
      ),
    );
  }
  const documents: string[] = [];
  for (const component of env.components) {
    const folder = `${env.name}/${component.name}`;
    const sorted = sortObjects(component.objects.map((object) => ({ object }))).map((x) => x.object);
    for (const name of assignFileNames(sorted, folder)) {
      const text = files.get(`${folder}/${name}`);
      if (text === undefined) throw new InternalError(`the render planned no file ${folder}/${name}`);
      documents.push(text);
    }
  }
  return documents;
}

/**
 * What `lock` records for environment `env`, as a build would write it: its entry, the artifacts of
 * the provider versions it uses and the digests of its pinned images.
 */
function lockPart(lock: LockFile, env: string): string {
  const entry = lock.environments.find((e) => e.name === env);
  if (!entry) return '';
  const versions = new Set(entry.providers.map((p) => `${p.source}\u0000${p.version}`));
  const images = new Set(entry.images ?? []);
  return canonicalJson({
    entry: {
      ...entry,
      providers: [...entry.providers].sort((a, b) => (a.provider < b.provider ? -1 : 1)),
      crds: [...(entry.crds ?? [])].sort(),
      images: [...images].sort(),
    },
    artifacts: lock.artifacts
      .filter((a) => versions.has(`${a.source}\u0000${a.version}`))
      .map((a) => ({ source: a.source, version: a.version, file: a.file, url: a.url, sha256: a.sha256 }))
      .sort((a, b) => (artifactKey(a.source, a.version, a.file) < artifactKey(b.source, b.version, b.file) ? -1 : 1)),
    images: (lock.images ?? [])
      .filter((i) => images.has(i.image))
      .map((i) => ({ image: i.image, digest: i.digest }))
      .sort((a, b) => (a.image < b.image ? -1 : 1)),
  });
}

/** The checkout is a fresh copy per generate, so a cache there is lost — and the plugin must not write into it. */
function refuseCacheInCheckout(cacheDir: string, repoRoot: string): void {
  const relative = path.relative(repoRoot, cacheDir);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    throw new SpecError(
      error(
        'plugin',
        `the artifact cache ${cacheDir} is inside the checkout ${repoRoot}; the plugin writes nothing there`,
        {
          hint: 'set CAPI_RENDER_CACHE_DIR in the sidecar to a volume of its own, e.g. /cache',
        },
      ),
    );
  }
}
