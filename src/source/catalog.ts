/**
 * The default ProviderCatalog: clusterctl's provider list (built-in, plus capi-render.yaml
 * `providers:`) decides asset names and which providers are predefined, and URLs — a provider's
 * `fetchConfig.url` or its list entry — become sources: GitHub releases (`https://github.com/…` or a
 * configured GitHub Enterprise origin), GitLab generic packages (`https://gitlab.…/api/v4/projects/…`)
 * or a clusterctl local repository (`file:///root/<label>/<version>/<file>`). Any other URL is
 * refused with clusterctl's "invalid provider url" wording (its repositoryFactory dispatch).
 * Clients are created on first use, so a build that needs no network opens no connection.
 */
import path from 'node:path';
import { SpecError, error, peerWording } from '../errors.js';
import { parseVersion } from '../declarations/versions.js';
import type { FetchProgressListener } from './fetch-progress.js';
import {
  builtinProvidersOf,
  findBuiltinProvider,
  mergeProviderList,
  type BuiltinProvider,
  type UserProviderEntry,
} from './github/builtin-providers.js';
import { baselineOf, type BaselineId } from '../baseline/baseline.js';
import { createGitHubClient, createGitHubSource, type GitHubClient } from './github/github-source.js';
import {
  GITHUB_API_BASE_URL,
  isGitHubUrl,
  parseGitHubReleaseUrl,
  type GitHubEnterpriseHost,
} from './github/github-url.js';
import {
  GITLAB_TOKEN_VARIABLE,
  createGitLabClient,
  createGitLabSource,
  isGitLabUrl,
  parseGitLabPackageUrl,
  type FetchLike,
  type GitLabClient,
} from './gitlab/gitlab-source.js';
import { createLocalRepositorySource } from './local-repository.js';
import { readOciCredentials, type OciCredentials } from './oci/oci-credentials.js';
import { createOciSource } from './oci/oci-source.js';
import { isOciUrl } from './oci/oci-url.js';
import { createOciUrlSource } from './oci/oci-url-source.js';
import { asFetch } from './http/network-fetch.js';
import { kindInfo, manifestLabel } from '../declarations/provider-kinds.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import { ref } from '../declarations/preflight.js';
import type { ProviderCatalog, ProviderSource } from './provider-source.js';

/** The part of capi-render.yaml the catalog reads (config/config-types.ts RenderConfig fits it). */
export interface CatalogConfig {
  github?: { apiUrl?: string; enterpriseHosts?: readonly GitHubEnterpriseHost[] };
  providers?: readonly UserProviderEntry[];
  emulate?: BaselineId;
}

export interface CatalogOptions {
  /** `emulate` picks the built-in provider list: clusterctl v1.14.0's, or v1.12.10's for the operator. */
  config?: CatalogConfig;
  /** Token for GitHub (the CLI reads GITHUB_TOKEN / GH_TOKEN). Never printed. */
  githubToken?: string;
  /**
   * Token for GitLab generic packages (from capi-render.yaml `gitlab.accessToken`); a provider's
   * configSecret key `gitlab-access-token` wins over it. Never printed.
   */
  gitlabToken?: string;
  /** HTTP transport of every network source (GitHub, GitLab, OCI); the CLI passes the proxy-aware one. Default: the global fetch. */
  fetch?: FetchLike;
  onProgress?: FetchProgressListener;
  /** Retry tuning, for tests. */
  githubRetry?: { retries?: number; retryAfterBaseMs?: number };
  /**
   * Registry credentials for `oci://` URLs whose provider's configSecret has none: the render passes
   * the Docker credential chain (images/registry/docker-credentials.ts). Default: none (anonymous).
   */
  registryCredentials?: (registry: string) => Promise<OciCredentials | undefined>;
}

export function createDefaultCatalog(options: CatalogOptions = {}): ProviderCatalog {
  const merged = mergeProviderList(
    builtinProvidersOf(baselineOf(options.config?.emulate).clusterctl),
    options.config?.providers ?? [],
  );
  if (merged.diagnostics.length > 0)
    throw new SpecError(merged.diagnostics.map((d) => ({ ...d, file: d.file ?? 'capi-render.yaml' })));
  const list = merged.providers;
  const find = (cr: ProviderCR): BuiltinProvider | undefined =>
    list.find((p) => p.type === cr.kind && p.name === cr.name);
  const enterpriseHosts = options.config?.github?.enterpriseHosts ?? [];
  const clients = new Map<string, GitHubClient>();
  const gitLabClients = new Map<string, GitLabClient>();
  const clientFor = (apiBaseUrl: string): GitHubClient => {
    let client = clients.get(apiBaseUrl);
    if (!client) {
      client = createGitHubClient({
        baseUrl: apiBaseUrl,
        token: options.githubToken,
        onProgress: options.onProgress,
        fetch: options.fetch,
        ...options.githubRetry,
      });
      clients.set(apiBaseUrl, client);
    }
    return client;
  };

  const fromUrl = (
    cr: ProviderCR,
    url: string,
    field: string,
    secretValues?: () => Record<string, string>,
  ): ProviderSource =>
    sourceFromUrl(
      url,
      {
        label: manifestLabel(cr.kind, cr.name),
        kind: cr.kind,
        name: cr.name,
        ref: ref(cr),
        file: cr.file,
        line: cr.line,
        field,
      },
      secretValues,
    );

  const sourceFromUrl = (url: string, at: UrlSite, secretValues?: () => Record<string, string>): ProviderSource => {
    if (url.startsWith('file://')) return fileSource(url, at);
    if (isOciUrl(url) && at.kind && at.name)
      return ociUrlSource(url, { ...at, kind: at.kind, name: at.name }, secretValues);
    if (isGitLabUrl(url)) return gitLabSource(url, at, secretValues);
    if (!isGitHubUrl(url, enterpriseHosts)) throw unsupportedUrl(url, at);
    const parsed = parseGitHubReleaseUrl(url, {
      kind: at.kind,
      enterpriseHosts,
      where: { file: at.file, line: at.line, field: at.field, object: at.ref },
    });
    const apiBaseUrl =
      parsed.origin === 'https://github.com'
        ? (options.config?.github?.apiUrl ?? GITHUB_API_BASE_URL)
        : parsed.apiBaseUrl;
    return {
      source: createGitHubSource(clientFor(apiBaseUrl), {
        owner: parsed.owner,
        repo: parsed.repo,
        rootPath: parsed.rootPath,
        webHost: new URL(parsed.origin).host,
      }),
      componentsFile: parsed.componentsFile,
      latestRule: 'clusterctl',
      defaultVersion: parsed.version && parsed.version !== 'latest' ? parsed.version : undefined,
    };
  };

  // cluster-api's proposed oci:// scheme (source/oci/oci-url.ts). Credentials: the provider's
  // configSecret OCI_* keys (the operator's), else the Docker credential chain (the proposal's).
  const ociUrlSource = (
    url: string,
    at: UrlSite & { kind: ProviderCR['kind']; name: string },
    secretValues?: () => Record<string, string>,
  ): ProviderSource => {
    const componentsFile = ociComponentsFile(at.kind, at.name);
    const created = createOciUrlSource({
      url,
      providerType: kindInfo(at.kind).operatorType,
      providerName: at.name,
      componentsFile,
      credentials: async (registry) =>
        readOciCredentials(secretValues?.() ?? {}) ?? (await options.registryCredentials?.(registry)),
      where: { file: at.file, line: at.line, field: at.field, object: at.ref },
      onProgress: options.onProgress,
      ...(options.fetch ? { fetchImpl: asFetch(options.fetch) } : {}),
    });
    return { source: created.source, componentsFile, latestRule: 'clusterctl', defaultVersion: created.defaultVersion };
  };

  const gitLabSource = (url: string, at: UrlSite, secretValues?: () => Record<string, string>): ProviderSource => {
    const parsed = parseGitLabPackageUrl(url, { file: at.file, line: at.line, field: at.field, object: at.ref });
    // The operator reads clusterctl's `gitlab-access-token` from the provider's configSecret; the
    // repository-wide token is clusterctl's config equivalent.
    const token = secretValues?.()[GITLAB_TOKEN_VARIABLE] || options.gitlabToken;
    // One client per origin and token, so providers and environments share its listings and ETags.
    const key = `${parsed.origin}\u0000${token ?? ''}`;
    let client = gitLabClients.get(key);
    if (!client) {
      client = createGitLabClient({ token, fetch: options.fetch, onProgress: options.onProgress });
      gitLabClients.set(key, client);
    }
    return {
      source: createGitLabSource(client, parsed),
      componentsFile: parsed.componentsFile,
      latestRule: 'clusterctl',
      defaultVersion: parsed.version === 'latest' ? undefined : parsed.version,
    };
  };

  return {
    componentsFile(cr) {
      const entry = find(cr);
      if (entry && isOciUrl(entry.url)) return ociComponentsFile(cr.kind, cr.name);
      return entry ? entry.url.slice(entry.url.lastIndexOf('/') + 1) : kindInfo(cr.kind).componentsAsset;
    },
    isPredefined(cr) {
      return find(cr) !== undefined;
    },
    defaultRemoteSource(cr, context) {
      const entry = find(cr);
      return entry ? fromUrl(cr, entry.url, 'the clusterctl provider list', context?.configSecret) : undefined;
    },
    sourceForUrl: sourceFromUrl,
    remoteSource(cr, context) {
      const { url, oci } = cr.spec.fetchConfig ?? {};
      if (oci) {
        const created = createOciSource({
          reference: oci,
          providerType: kindInfo(cr.kind).operatorType,
          providerName: cr.name,
          credentials: readOciCredentials(context.configSecret()),
          where: { file: cr.file, line: cr.line, field: 'spec.fetchConfig.oci', object: ref(cr) },
          onProgress: options.onProgress,
          ...(options.fetch ? { fetchImpl: asFetch(options.fetch) } : {}),
        });
        // Files are chosen by the operator's title precedence; the components "file name" is only a role here.
        return {
          source: created.source,
          componentsFile: kindInfo(cr.kind).componentsAsset,
          latestRule: 'clusterctl',
          pinnedVersion: created.pinnedVersion,
        };
      }
      return url ? fromUrl(cr, url, 'spec.fetchConfig.url', context.configSecret) : undefined;
    },
  };
}

/**
 * clusterctl's repositoryFactory refusal of a URL no repository implements: an https host that is
 * neither GitHub nor GitLab, or another scheme. capi-render also reads configured GitHub Enterprise
 * origins, so the hint names them.
 */
function unsupportedUrl(url: string, at: UrlSite): SpecError {
  let scheme = '';
  try {
    scheme = new URL(url).protocol.replace(/:$/, '');
  } catch {
    // No scheme: clusterctl would read a local path; capi-render needs the file:// form.
  }
  if (scheme === '') {
    return new SpecError(
      error('source-unsupported', `${at.field} of ${at.ref} is ${JSON.stringify(url)}, which is not a URL`, {
        file: at.file,
        line: at.line,
        field: at.field,
        object: at.ref,
        hint: 'write a local repository as file:///<absolute root>/<label>/<version>/<file> (clusterctl also reads a bare path; capi-render needs the file:// form)',
      }),
    );
  }
  const phrase =
    scheme === 'https'
      ? 'invalid provider url. Only GitHub and GitLab are supported for "https" schema'
      : `invalid provider url. there are no provider implementation for ${JSON.stringify(scheme)} schema`;
  return new SpecError(
    error('source-unsupported', peerWording('clusterctl', phrase, `${at.field} of ${at.ref} is ${url}`), {
      file: at.file,
      line: at.line,
      field: at.field,
      object: at.ref,
      hint:
        'use https://github.com/{owner}/{repo}/releases/{tag}/{file}, a GitLab generic package https://gitlab.…/api/v4/projects/{project}/packages/generic/{package}/{version}/{file}, ' +
        'a GitHub Enterprise origin listed under github.enterpriseHosts in capi-render.yaml, or file:///<root>/<label>/<version>/<file>; for other hosts mirror the release (capi-render mirror)',
    }),
  );
}

/**
 * The components file an `oci://` artifact is read for: the release asset of clusterctl's built-in
 * entry (an oci:// URL names no file), else the kind's default (`infrastructure-components.yaml`).
 */
function ociComponentsFile(kind: ProviderCR['kind'], name: string): string {
  const builtin = findBuiltinProvider(kind, name);
  return builtin ? builtin.url.slice(builtin.url.lastIndexOf('/') + 1) : kindInfo(kind).componentsAsset;
}

/** Where a URL was written, for messages; `label` is the folder a file:// URL must name. */
export interface UrlSite {
  label: string;
  kind?: ProviderCR['kind'];
  /** The provider's name, when the URL is a provider's (an `oci://` artifact names it). */
  name?: string;
  ref: string;
  file: string;
  line: number;
  field: string;
}

/** clusterctl's local repository URL form: `file:///<root>/<provider-label>/<version>/<file>`. */
function fileSource(url: string, at: UrlSite): ProviderSource {
  const { label } = at;
  const filePath = decodeURIComponent(new URL(url).pathname);
  const parts = filePath.split('/');
  const [file, version, labelPart] = [parts.at(-1)!, parts.at(-2)!, parts.at(-3)!];
  // clusterctl's newLocalRepository checks, in its order and words (repository_local.go).
  const phrase =
    !path.isAbsolute(filePath) || parts.length < 4
      ? 'invalid path: path should be in the form {basepath}/{provider-name}/{version}/{components.yaml}'
      : version !== 'latest' && !parseVersion(version)
        ? `invalid version: ${JSON.stringify(version)}. Version must obey the syntax and semantics of the "Semantic Versioning" specification`
        : labelPart !== label
          ? `invalid path: path ${JSON.stringify(url)} must contain provider ${JSON.stringify(label)} in the format {basepath}/{provider-label}/{version}/{components.yaml}`
          : undefined;
  if (phrase) {
    throw new SpecError(
      error('source-unsupported', peerWording('clusterctl', phrase, `${at.field} of ${at.ref} is ${url}`), {
        file: at.file,
        line: at.line,
        field: at.field,
        object: at.ref,
        hint: `write file:///<root>/${label}/<version>/<file> (clusterctl's local repository layout), <version> a semantic version or latest`,
      }),
    );
  }
  const root = parts.slice(0, -3).join('/') || '/';
  return {
    source: createLocalRepositorySource({ root, displayRoot: root, label }),
    componentsFile: file,
    latestRule: 'clusterctl',
    defaultVersion: version === 'latest' ? undefined : version,
  };
}
