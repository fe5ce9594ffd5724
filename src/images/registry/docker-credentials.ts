/**
 * Registry credentials the way the docker CLI finds them (docker/cli cli/config/configfile/file.go
 * `GetCredentialsStore`, credentials/file_store.go, credentials/native_store.go).
 *
 * Design notes: docs/internals.md "images/registry/docker-credentials.ts".
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FetchError, error } from '../../errors.js';
import type { OciCredentials } from '../../source/oci/oci-credentials.js';

/** Docker Hub's key in config.json and for helpers. */
export const DOCKER_HUB_AUTH_KEY = 'https://index.docker.io/v1/';
/** The names Docker Hub goes by. */
const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
/** What a helper's `Username` is when `Secret` holds an identity token. */
const TOKEN_USERNAME = '<token>';
const DEFAULT_HELPER_TIMEOUT_MS = 30_000;
const HELPER_SUFFIX = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_HELPER_OUTPUT = 1024 * 1024;

/** The outcome of one lookup: credentials, or none, and in both cases where capi-render looked. */
export interface DockerCredentialLookup {
  credentials?: OciCredentials;
  /**
   * Where the credentials came from (`auths["ghcr.io"] in /home/u/.docker/config.json`,
   * `credHelpers (docker-credential-ecr-login)`), or what was searched when there are none. No secret.
   */
  source: string;
}

export interface DockerCredentialOptions {
  /** HOME, DOCKER_CONFIG, DOCKER_AUTH_CONFIG and PATH are read from here; helpers get this environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** How long a credential helper may take. Default: 30 000 ms. */
  timeoutMs?: number;
}

/** Looks up credentials per registry; config.json and DOCKER_AUTH_CONFIG are read once, on first use. */
export interface DockerCredentials {
  lookup(registry: string): Promise<DockerCredentialLookup>;
}

/** Docker's key for a registry: `https://index.docker.io/v1/` for Docker Hub, the host[:port] otherwise. */
export function dockerAuthKey(registry: string): string {
  const host = convertToHostname(registry);
  return DOCKER_HUB_HOSTS.has(host) ? DOCKER_HUB_AUTH_KEY : host;
}

/** The config.json capi-render reads: `$DOCKER_CONFIG/config.json`, else `$HOME/.docker/config.json`; undefined without either variable. */
export function dockerConfigPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.DOCKER_CONFIG) return path.join(env.DOCKER_CONFIG, 'config.json');
  if (env.HOME) return path.join(env.HOME, '.docker', 'config.json');
  return undefined;
}

/**
 * docker's `ConvertToHostname`: a legacy key with a scheme (`https://host:port/v1/`) becomes its
 * host[:port]; a key without one is cut at the first `/`.
 */
export function convertToHostname(key: string): string {
  const scheme = key.indexOf('://');
  const rest = scheme >= 0 ? key.slice(scheme + 3) : key;
  return rest.split('/')[0] ?? '';
}

interface AuthEntry {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
}

interface ConfigFile {
  auths: Record<string, AuthEntry>;
  credHelpers: Record<string, string>;
  credsStore?: string;
}

/** Creates a lookup over one environment. */
export function createDockerCredentials(options: DockerCredentialOptions): DockerCredentials {
  const file = dockerConfigPath(options.env);
  let loaded: Promise<{ config: ConfigFile | undefined; fromEnv: Record<string, AuthEntry> | undefined }> | undefined;
  const load = () =>
    (loaded ??= Promise.all([
      readConfigFile(file),
      Promise.resolve(readEnvConfig(options.env.DOCKER_AUTH_CONFIG)),
    ]).then(([config, fromEnv]) => ({ config, fromEnv })));

  return {
    async lookup(registry) {
      const key = dockerAuthKey(registry);
      const { config, fromEnv } = await load();
      if (fromEnv) {
        const found = findEntry(fromEnv, key);
        if (found) {
          const source = `DOCKER_AUTH_CONFIG auths[${JSON.stringify(found.key)}]`;
          const credentials = entryCredentials(found.entry, source);
          if (credentials) return { credentials, source };
        }
      }
      const inEnv = fromEnv ? 'none in DOCKER_AUTH_CONFIG; ' : '';
      if (!config)
        return {
          source: `no credentials for ${key} (${inEnv}${file ? `${file} does not exist` : 'neither DOCKER_CONFIG nor HOME is set'})`,
        };
      const ownHelper = config.credHelpers[key];
      const helper = ownHelper ?? config.credsStore;
      if (helper) {
        const kind = ownHelper !== undefined ? `credHelpers[${JSON.stringify(key)}]` : 'credsStore';
        const program = `docker-credential-${helper}`;
        const source = `${kind} in ${file} (${program})`;
        const credentials = await runHelper(helper, key, options, `${kind} in ${file}`);
        return credentials ? { credentials, source } : { source: `no credentials for ${key}: ${source} has none` };
      }
      const found = findEntry(config.auths, key);
      if (!found) return { source: `no credentials for ${key} in ${fromEnv ? 'DOCKER_AUTH_CONFIG or ' : ''}${file}` };
      const source = `auths[${JSON.stringify(found.key)}] in ${file}`;
      const credentials = entryCredentials(found.entry, source);
      return credentials ? { credentials, source } : { source: `no credentials for ${key}: ${source} is empty` };
    },
  };
}

/** The entry for `key`: the exact key first, then a legacy key whose host is the same (file_store.go Get). */
function findEntry(auths: Record<string, AuthEntry>, key: string): { key: string; entry: AuthEntry } | undefined {
  const exact = auths[key];
  if (exact) return { key, entry: exact };
  const host = key === DOCKER_HUB_AUTH_KEY ? undefined : key;
  for (const [candidate, entry] of Object.entries(auths)) {
    const name = convertToHostname(candidate);
    if (host === undefined ? DOCKER_HUB_HOSTS.has(name) : name === host) return { key: candidate, entry };
  }
  return undefined;
}

/** An entry's credentials (undefined when it holds none); a bad `auth` fails naming `source`, not the value. */
function entryCredentials(entry: AuthEntry, source: string): OciCredentials | undefined {
  const out: OciCredentials = {};
  if (entry.username) out.username = entry.username;
  if (entry.password) out.password = entry.password;
  if (entry.auth) {
    const decoded = decodeBase64(entry.auth);
    const colon = decoded === undefined ? -1 : decoded.indexOf(':');
    if (decoded === undefined || colon <= 0) {
      throw new FetchError(
        error('auth', `${source}: "auth" is not base64 of user:password`, {
          hint: 'run `docker login` again, or write the entry as base64("user:password")',
        }),
      );
    }
    out.username = decoded.slice(0, colon);
    // docker trims NUL padding some writers left behind.
    out.password = decoded.slice(colon + 1).replace(/^\0+|\0+$/g, '');
  }
  if (entry.identitytoken) out.refreshToken = entry.identitytoken;
  if (entry.registrytoken) out.accessToken = entry.registrytoken;
  return Object.keys(out).length > 0 ? out : undefined;
}

function decodeBase64(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(trimmed)) return undefined;
  return Buffer.from(trimmed, 'base64').toString('utf8');
}

async function readConfigFile(file: string | undefined): Promise<ConfigFile | undefined> {
  if (!file) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    if ((cause as { code?: unknown }).code === 'ENOENT' || (cause as { code?: unknown }).code === 'ENOTDIR')
      return undefined;
    throw new FetchError(
      error('auth', `cannot read the docker config ${file} (${(cause as { code?: string }).code ?? 'error'})`, {
        hint: 'fix its permissions, or point DOCKER_CONFIG at another folder',
      }),
    );
  }
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new FetchError(
      error('auth', `the docker config ${file} is not JSON`, {
        hint: 'fix the file (docker login rewrites it), or point DOCKER_CONFIG at another folder',
      }),
    );
  }
  if (!isRecord(parsed)) throw new FetchError(error('auth', `the docker config ${file} is not a JSON object`));
  return {
    auths: authEntries(parsed.auths),
    credHelpers: isRecord(parsed.credHelpers)
      ? Object.fromEntries(
          Object.entries(parsed.credHelpers).filter(
            (e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '',
          ),
        )
      : {},
    ...(typeof parsed.credsStore === 'string' && parsed.credsStore !== '' ? { credsStore: parsed.credsStore } : {}),
  };
}

/** DOCKER_AUTH_CONFIG's auths; undefined when unset or unusable (docker then falls back to the config file, and so do we). */
function readEnvConfig(text: string | undefined): Record<string, AuthEntry> | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && isRecord(parsed.auths) ? authEntries(parsed.auths) : undefined;
  } catch {
    return undefined;
  }
}

function authEntries(value: unknown): Record<string, AuthEntry> {
  if (!isRecord(value)) return {};
  const out: Record<string, AuthEntry> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!isRecord(entry)) continue;
    const e: AuthEntry = {};
    for (const field of ['username', 'password', 'auth', 'identitytoken', 'registrytoken'] as const) {
      const v = entry[field];
      if (typeof v === 'string' && v !== '') e[field] = v;
    }
    out[key] = e;
  }
  return out;
}

/** Runs `docker-credential-<suffix> get`; undefined for "credentials not found". */
async function runHelper(
  suffix: string,
  key: string,
  options: DockerCredentialOptions,
  configured: string,
): Promise<OciCredentials | undefined> {
  const program = `docker-credential-${suffix}`;
  const fail = (why: string, hint?: string) =>
    new FetchError(error('auth', `${configured}: ${why}`, hint === undefined ? {} : { hint }));
  if (!HELPER_SUFFIX.test(suffix)) throw fail('the helper name is not a plain program name suffix');
  const timeoutMs = options.timeoutMs ?? DEFAULT_HELPER_TIMEOUT_MS;
  const env = Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined));
  const { stdout, failure } = await new Promise<{ stdout: string; failure?: ExecFileException }>((resolve) => {
    const child = execFile(
      program,
      ['get'],
      { env, timeout: timeoutMs, maxBuffer: MAX_HELPER_OUTPUT, encoding: 'utf8', windowsHide: true },
      (err, out) => {
        resolve(err ? { stdout: String(out ?? ''), failure: err } : { stdout: String(out ?? '') });
      },
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(key);
  });
  if (failure) {
    if (/credentials not found/i.test(stdout)) return undefined;
    if (failure.code === 'ENOENT')
      throw fail(`${program} is not on the PATH`, `install ${program}, or remove it from the docker config`);
    if (failure.killed || failure.signal)
      throw fail(
        `${program} did not answer within ${timeoutMs / 1000}s`,
        'a helper that asks for a password on a terminal cannot run here; log in first',
      );
    // Its output is not shown: a helper may print a credential in it.
    throw fail(
      `${program} get failed (exit code ${typeof failure.code === 'number' ? failure.code : String(failure.code ?? '?')})`,
      `run \`echo ${key} | ${program} get\` to see why`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw fail(`${program} get did not print JSON`);
  }
  if (!isRecord(parsed)) throw fail(`${program} get did not print a JSON object`);
  const username = typeof parsed.Username === 'string' ? parsed.Username : '';
  const secret = typeof parsed.Secret === 'string' ? parsed.Secret : '';
  if (secret === '' && username === '') return undefined;
  if (username === TOKEN_USERNAME) return secret === '' ? undefined : { refreshToken: secret };
  return { username, password: secret };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
