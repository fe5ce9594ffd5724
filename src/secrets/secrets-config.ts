/**
 * The `secrets:` setting of capi-render.yaml: what the secret guard does with values from secret
 * sources. Owned here, composed into the settings by config/config-types.ts.
 */

/** What happens to a secret value that would reach git: fail, leave it out, an ExternalSecret, SOPS-encrypted, or plain text. */
export type SecretMode = 'fail' | 'omit' | 'external-secrets' | 'sops' | 'plaintext';

/** The secret guard: what happens to values from secret sources (configSecret, `fromEnv`) that would reach git. */
export interface SecretsConfig {
  /** Default `fail`. */
  mode?: SecretMode;
  /** Per provider (manifest label, e.g. `infrastructure-aws`), overriding `mode`. */
  providers?: Record<string, SecretMode>;
  /** Variables from secret sources that are not sensitive (feature gates, addresses) and may be rendered. */
  notSecret?: string[];
  /** For `external-secrets`: the store the ExternalSecrets read from. */
  externalSecrets?: {
    storeRef: { name: string; kind?: 'SecretStore' | 'ClusterSecretStore' };
    keyPrefix?: string;
    refreshInterval?: string;
  };
  /** For `sops`: the Flux side (recipients come from the repository's .sops.yaml). */
  sops?: { decryptionSecret?: string };
}
