/**
 * The shape of an `imagePolicy.verify` rule, with no dependencies: the config and overlay schemas
 * import it at start-up, and the Sigstore libraries behind verify-rules.ts load only for a build
 * that verifies.
 */

/** One rule of `imagePolicy.verify`. Exactly one of `keyless` and `key`. */
export interface VerifyRule {
  /** Glob over the image name before its tag and digest; `*` matches within and across `/` (see the module comment). */
  images: string;
  /** cosign keyless: the certificate's OIDC issuer and identity (SAN), each exact or a regexp. */
  keyless?: { issuer?: string; issuerRegExp?: string; identity?: string; identityRegExp?: string };
  /** cosign key: a PEM public key file, relative to the repository root. No transparency-log entry is required (as Flux does for keys). */
  key?: string;
}

/** The schema fragment of one rule for the config and overlay JSON Schemas (ajv); {@link checkRules} adds what a schema cannot say. */
export const VERIFY_RULES_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['images'],
    properties: {
      images: { type: 'string', minLength: 1 },
      keyless: {
        type: 'object',
        additionalProperties: false,
        properties: {
          issuer: { type: 'string', minLength: 1 },
          issuerRegExp: { type: 'string', minLength: 1 },
          identity: { type: 'string', minLength: 1 },
          identityRegExp: { type: 'string', minLength: 1 },
        },
      },
      key: { type: 'string', minLength: 1 },
    },
  },
} as const;
