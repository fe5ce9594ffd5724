/**
 * The seal step as the render holds it: an environment with no Secret marked for SOPS is returned
 * as it is, and the sealer itself (seal-environment.ts, with the age implementation and its
 * cryptography, ~300 KB of code) is imported when the first marked Secret comes, so a build
 * without one never loads or compiles it.
 */
import { hasSopsSecrets } from './pending.js';
import type { SopsSealContext, SopsSealer } from './seal-environment.js';

/** createSopsSealer(ctx), created on the first environment that has a Secret to seal. */
export function createLazySopsSealer(ctx: SopsSealContext): SopsSealer {
  let sealer: Promise<SopsSealer> | undefined;
  return {
    async seal(environment, files, flavour) {
      if (!hasSopsSecrets(environment)) return { environment, warnings: [] };
      sealer ??= import('./seal-environment.js').then((m) => m.createSopsSealer(ctx));
      return (await sealer).seal(environment, files, flavour);
    },
  };
}
