/**
 * Where sops reads its creation rules: `.sops.yaml` (or `.sops.yml`) at the repository root, beside
 * capi-render.yaml. Kept apart from the encryption code so that what only hashes inputs (the no-op
 * build's stamp check) does not load it.
 */
import { resolveInput } from '../../repository-files.js';

/** The files sops reads its creation rules from, in the order it looks for them. */
export const SOPS_CONFIG_FILES = ['.sops.yaml', '.sops.yml'] as const;

/** The repository-relative name of the `.sops.yaml` sops would read, or undefined. */
export function sopsConfigFile(repoRoot: string): string | undefined {
  for (const f of SOPS_CONFIG_FILES) if (resolveInput(repoRoot, f)?.kind === 'file') return f;
  return undefined;
}
