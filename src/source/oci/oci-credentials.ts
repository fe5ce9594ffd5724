/**
 * Registry credentials as the cluster-api-operator takes them from a provider's configSecret
 * (internal/controller/oci_source.go OCIAuthentication): the keys OCI_USERNAME, OCI_PASSWORD,
 * OCI_ACCESS_TOKEN and OCI_REFRESH_TOKEN become one oras `auth.Credential`. How each field is used
 * follows oras-go v2.6 auth.Client:
 * - a Basic challenge needs username and password;
 * - a Bearer challenge uses `accessToken` as the registry token as is; else, with `refreshToken`,
 *   it asks the realm for a token by OAuth2 (POST, grant_type=refresh_token); else it GETs the realm
 *   with username/password as Basic credentials (anonymously when there are none).
 */

/** One registry credential. Values are secrets: never put them in a message. */
export interface OciCredentials {
  username?: string;
  password?: string;
  /** A registry access token, sent as the Bearer token without asking the realm. */
  accessToken?: string;
  /** An OAuth2 refresh token, exchanged at the realm for an access token. */
  refreshToken?: string;
}

/** The configSecret keys the operator reads, by credential field. */
export const OCI_CREDENTIAL_KEYS = {
  username: 'OCI_USERNAME',
  password: 'OCI_PASSWORD',
  accessToken: 'OCI_ACCESS_TOKEN',
  refreshToken: 'OCI_REFRESH_TOKEN',
} as const satisfies Record<keyof OciCredentials, string>;

/**
 * Reads the four OCI_* keys from a key→value record (a configSecret's decoded data, or the
 * environment). Returns undefined when all four are absent or empty — the operator then uses no
 * credential at all (anonymous, including the anonymous token flow). Empty values are dropped.
 */
export function readOciCredentials(values: Readonly<Record<string, string | undefined>>): OciCredentials | undefined {
  const credentials: OciCredentials = {};
  for (const [field, key] of Object.entries(OCI_CREDENTIAL_KEYS) as [keyof OciCredentials, string][]) {
    const value = values[key];
    if (value !== undefined && value !== '') credentials[field] = value;
  }
  return Object.keys(credentials).length > 0 ? credentials : undefined;
}

/** Every non-empty secret value in the credentials, for redaction checks. */
export function credentialSecrets(credentials: OciCredentials | undefined): string[] {
  if (!credentials) return [];
  return [credentials.password, credentials.accessToken, credentials.refreshToken].filter((v): v is string => !!v);
}
