/**
 * The plugin renders Argo CD environments only. An environment prepared for Flux (or for plain
 * kustomize) has no sync waves, no Argo CD sync options and, for Flux, prune-protection annotations
 * Argo CD ignores; applied by Argo CD it installs cert-manager, CRDs and providers in no order and is
 * pruned without protection. So `cmp-generate` refuses it — a usage error (exit 2) naming the
 * environment's overlay — unless the Application says, by name, that it wants that flavour anyway:
 * its plugin env `CAPI_ALLOW_FLAVOUR=<flavour>` (ARGOCD_ENV_CAPI_ALLOW_FLAVOUR in the sidecar) or
 * `--allow-flavour <flavour>` on the command line.
 */
import { UsageError } from '../errors.js';
import type { GitopsFlavour } from '../gitops/options.js';

/** The Application's plugin env entry that allows another flavour, as the repo-server passes it. */
export const ALLOW_FLAVOUR_VARIABLE = 'ARGOCD_ENV_CAPI_ALLOW_FLAVOUR';
/** The flavours `--allow-flavour` may name: every one besides argocd. */
export const OTHER_FLAVOURS = ['flux', 'kustomize'] as const;

const NAMES: Record<GitopsFlavour, string> = {
  argocd: 'Argo CD',
  flux: 'Flux',
  kustomize: 'plain kustomize (no GitOps flavour)',
};

/** The flavour the flag or the plugin env allows besides argocd, or undefined; a value that is no flavour is a usage error. */
export function allowedFlavour(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): GitopsFlavour | undefined {
  const [value, where] =
    flag !== undefined
      ? [flag, '--allow-flavour']
      : [
          env[ALLOW_FLAVOUR_VARIABLE] || undefined,
          `${ALLOW_FLAVOUR_VARIABLE} (the Application's plugin env CAPI_ALLOW_FLAVOUR)`,
        ];
  if (value === undefined) return undefined;
  if ((OTHER_FLAVOURS as readonly string[]).includes(value)) return value as GitopsFlavour;
  throw new UsageError(
    `${where} is "${value}"; it names the one flavour to accept besides argocd: ${OTHER_FLAVOURS.join(' or ')}`,
  );
}

export interface FlavourFacts {
  environment: string;
  flavour: GitopsFlavour;
  /** The environment's overlay.yaml (undefined for the implicit `default` environment). */
  overlayFile: string | undefined;
  /** Where the flavour is set: an overlay of its chain, or capi-render.yaml. */
  flavourFile: string | undefined;
}

/** Throws the usage error described above when `facts` is not an Argo CD environment and its flavour is not the allowed one. */
export function refuseOtherFlavour(facts: FlavourFacts, allowed: GitopsFlavour | undefined): void {
  if (facts.flavour === 'argocd' || facts.flavour === allowed) return;
  const where = facts.overlayFile ?? 'capi-render.yaml';
  const from =
    facts.flavourFile === undefined
      ? ''
      : facts.flavourFile === facts.overlayFile
        ? ' (its gitops.flavour)'
        : ` (gitops.flavour from ${facts.flavourFile})`;
  throw new UsageError(
    `${where}: environment ${facts.environment} is prepared for ${NAMES[facts.flavour]}${from}, not for Argo CD: applied by the plugin it would have no sync waves or Argo CD sync options. ` +
      `Set gitops.flavour: argocd in ${where}, or to apply it through Argo CD as it is, set the Application's plugin env CAPI_ALLOW_FLAVOUR=${facts.flavour}`,
  );
}
