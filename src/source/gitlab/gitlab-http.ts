/**
 * What the GitLab client's two calls (a generic-package file, the project's package list) share:
 * the token rules and their hint, the redaction of the token from every message, and how progress
 * shows a URL. Pure helpers; no state.
 */

/** clusterctl's variable for the token, and the operator's configSecret key (`config.GitLabAccessTokenVariable`). */
export const GITLAB_TOKEN_VARIABLE = 'gitlab-access-token';

/**
 * The environment variable clusterctl reads that variable from (its viper reader upper-cases the
 * name and turns `-` into `_`), and capi-render's default when capi-render.yaml names none.
 */
export const GITLAB_TOKEN_ENV = 'GITLAB_ACCESS_TOKEN';

/** How to give capi-render a token, for every 401/403/404 of a GitLab call. */
export const TOKEN_HINT =
  `set ${GITLAB_TOKEN_VARIABLE} in the provider's spec.configSecret, or ${GITLAB_TOKEN_ENV} in the environment (or gitlab.accessToken: {fromEnv: NAME} in capi-render.yaml); ` +
  "the token needs read access to the project's package registry (read_api)";

/** Request headers for `url`: the token only to the origin the request started at (never to a redirect target). */
export function gitLabHeaders(
  url: string,
  origin: string,
  token: string | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': 'capi-render', ...extra };
  if (token && new URL(url).origin === origin) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** A URL for progress output: without its query, which may carry a signed download grant. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  return parsed.toString();
}

/** The text with every occurrence of the secret replaced by `***`. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}
