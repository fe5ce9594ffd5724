/**
 * Where a customisation comes from and goes to, so every error can name the provider CR, the
 * CR field and the Deployment it was applied to.
 */
import { error, peerWording, SpecError, type Diagnostic } from '../errors.js';

/** One (customisation block → Deployment) application. */
export interface CustomizeContext {
  /** The provider CR, e.g. `InfrastructureProvider/capd-system/docker`. */
  providerRef: string;
  /** Path of the block's parent in the CR: `spec` or `spec.additionalDeployments.<name>`. */
  base: string;
  /** The Deployment being customised, `Deployment/<namespace>/<name>`. */
  deployment: string;
}

/** A `customize` error diagnostic on field `field` of the provider CR. */
export function customizeDiagnostic(providerRef: string, field: string, message: string, hint?: string): Diagnostic {
  return error(
    'customize',
    `${providerRef}: ${message}`,
    hint === undefined ? { object: providerRef, field } : { object: providerRef, field, hint },
  );
}

/**
 * Throws a SpecError (code `customize`) for `field`, naming the Deployment in the message; with
 * `operatorPhrase`, the message starts with the operator's own words for the failure.
 */
export function failCustomize(
  ctx: CustomizeContext,
  field: string,
  message: string,
  hint?: string,
  operatorPhrase?: string,
): never {
  const own = `${field}: ${message} (in ${ctx.deployment})`;
  const diagnostic = customizeDiagnostic(ctx.providerRef, field, own, hint);
  if (operatorPhrase !== undefined)
    diagnostic.message = peerWording('cluster-api-operator', operatorPhrase, diagnostic.message);
  throw new SpecError(diagnostic);
}

/** The Deployment's own name (`Deployment/<namespace>/<name>` → `<name>`), as the operator prints it. */
export function deploymentName(ctx: CustomizeContext): string {
  return ctx.deployment.slice(ctx.deployment.lastIndexOf('/') + 1);
}
