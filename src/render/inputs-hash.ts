/**
 * Whether an environment can be skipped: its inputs hash covers everything its output depends on —
 * capi-render's version (the code), capi-render.yaml (its `emulate:` baseline named too), the user templates, the environment's overlay
 * chain and bases (file contents), and its lock entries (versions and, through the artifacts'
 * digests, the release contents). Values read from the process environment (`fromEnv`) or from files
 * a Secret input names (`{fromFile}`) are never hashed; an environment that uses them is always rendered.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../manifest/canonical-json.js';
import type { LockFile, LockedArtifact, LockedImage, LockedInputFile, LockedProvider } from '../lock/lock-types.js';
import type { ComposedEnvironment } from '../overlay/compose-environment.js';
import type { LoadedRepository } from './load-repository.js';
import { packageVersion } from '../package-files.js';
import { SOPS_CONFIG_FILES } from '../secrets/sops/sops-config-file.js';
import { hasSecretReferences } from '../declarations/secret-values.js';

/**
 * The part of every environment's hash that is the same for the whole build. `inputFiles` are the
 * digests recorded in the lock; every file under the templates folder counts (templates are
 * `*.hbs`, not YAML).
 */
export function buildInputsHash(repo: LoadedRepository, inputFiles: readonly LockedInputFile[]): string {
  const hash = createHash('sha256').update(`capi-render ${packageVersion()}\n`).update(`config ${repo.configHash}\n`);
  // The baseline decides defaults no file spells out (provider list, cert-manager version): named
  // here so that changing it re-renders even where the config hash would not tell.
  if (repo.config.emulate !== undefined) hash.update(`emulate ${repo.config.emulate}\n`);
  const templates = `${repo.config.templatesDir.replace(/\/+$/, '')}/`;
  for (const f of inputFiles) if (f.file.startsWith(templates)) hash.update(`template ${f.file} ${f.sha256}\n`);
  // .sops.yaml (an input only with secrets.mode sops, input-file-digests.ts): its rules choose the recipients.
  for (const f of inputFiles)
    if (SOPS_CONFIG_FILES.includes(f.file as (typeof SOPS_CONFIG_FILES)[number]))
      hash.update(`sops ${f.file} ${f.sha256}\n`);
  // Variables mapped from the environment make the output depend on something no file records, and
  // a plaintext secret mode must warn on every build: never skip then.
  const usesEnv = Object.values(repo.config.variables).some((v) => typeof v === 'object');
  const modes = [repo.config.secrets.mode, ...Object.values(repo.config.secrets.providers ?? {})];
  return usesEnv || modes.includes('plaintext') ? '' : hash.digest('hex');
}

/** undefined when the environment cannot be skipped safely. */
export function environmentInputsHash(
  buildHash: string,
  composed: ComposedEnvironment,
  lockedProviders: readonly LockedProvider[] | undefined,
  artifacts: readonly LockedArtifact[],
  images: readonly LockedImage[] = [],
  /** What else the output depends on that no input file holds: the verify rules' ids with their keys' bytes. */
  extra = '',
): string | undefined {
  if (
    !buildHash ||
    Object.values(composed.variables).some((v) => typeof v === 'object') ||
    hasSecretReferences(composed.inputs.secrets)
  )
    return undefined;
  const used = new Set((lockedProviders ?? []).map((p) => `${p.source}\u0000${p.version}`));
  const digests = artifacts
    .filter((a) => used.has(`${a.source}\u0000${a.version}`))
    .map((a) => `${a.source} ${a.version} ${a.file} ${a.sha256}`)
    .sort();
  const lockPart = lockedProviders
    ? canonicalJson([...lockedProviders].sort((a, b) => (a.provider < b.provider ? -1 : 1)))
    : '';
  const hash = createHash('sha256')
    .update(buildHash)
    .update('\n')
    .update(composed.inputsHash)
    .update('\n')
    .update(lockPart)
    .update('\n')
    .update(digests.join('\n'));
  // Pinned image digests (absent without pinning, so hashes of earlier locks stay the same), with the
  // whole verification record: evidence edited in the lock must be verified again, not skipped.
  if (images.length > 0)
    hash.update('\nimages\n').update(
      images
        .map(
          (i) =>
            `${i.image} ${i.digest}${i.verified ? ` ${createHash('sha256').update(canonicalJson(i.verified)).digest('hex')}` : ''}`,
        )
        .sort()
        .join('\n'),
    );
  if (extra !== '') hash.update('\nextra\n').update(extra);
  return hash.digest('hex');
}

/** The pinned images `lock` records for environment `env`, with their digests. */
export function lockedImagesOf(lock: LockFile, env: string): LockedImage[] {
  const refs = new Set(lock.environments.find((e) => e.name === env)?.images ?? []);
  return (lock.images ?? []).filter((i) => refs.has(i.image));
}
