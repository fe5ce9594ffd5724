/**
 * The default ProviderCatalog: clusterctl's provider list (built-in, plus capi-render.yaml
 * `providers:`) decides asset names and which providers are predefined, and URLs — a provider's
 * `fetchConfig.url` or its list entry — become sources: GitHub releases (`https://github.com/…` or a
 * configured GitHub Enterprise origin) or a clusterctl local repository (`file:///root/<label>/<version>/<file>`).
 * GitHub clients are created on first use, so a build that needs no network opens no connection.
 */
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import type { RenderConfig } from '../config/config-types.js';
import type { FetchProgressListener } from '../source/fetch-progress.js';
import { BUILTIN_PROVIDERS, mergeProviderList, type BuiltinProvider } from '../source/github/builtin-providers.js';
import { createGitHubClient, createGitHubSource, type GitHubClient } from '../source/github/github-source.js';
import { GITHUB_API_BASE_URL, isGitHubUrl, parseGitHubReleaseUrl } from '../source/github/github-url.js';
import { createLocalRepositorySource } from '../source/local-repository.js';
import { readOciCredentials } from '../source/oci/oci-credentials.js';
import { createOciSource } from '../source/oci/oci-source.js';
import { kindInfo, manifestLabel } from '../spec/provider-kinds.js';
import type { ProviderCR } from '../spec/provider-spec.js';
import { ref } from '../spec/preflight.js';
import type { ProviderCatalog, ProviderSource } from './provider-source.js';

export interface CatalogOptions {
  config?: Pick<RenderConfig, 'github' | 'providers'>;
  /** Token for GitHub (the CLI reads GITHUB_TOKEN / GH_TOKEN). Never printed. */
  githubToken?: string;
  onProgress?: FetchProgressListener;
  /** Retry tuning, for tests. */
  githubRetry?: { retries?: number; retryAfterBaseMs?: number };
}

export function createDefaultCatalog(options: CatalogOptions = {}): ProviderCatalog {
  const merged = mergeProviderList(BUILTIN_PROVIDERS, options.config?.providers ?? []);
  if (merged.diagnostics.length > 0) throw new SpecError(merged.diagnostics.map((d) => ({ ...d, file: d.file ?? 'capi-render.yaml' })));
  const list = merged.providers;
  const find = (cr: ProviderCR): BuiltinProvider | undefined => list.find((p) => p.type === cr.kind && p.name === cr.name);
  const enterpriseHosts = options.config?.github?.enterpriseHosts ?? [];
  const clients = new Map<string, GitHubClient>();
  const clientFor = (apiBaseUrl: string): GitHubClient => {
    let client = clients.get(apiBaseUrl);
    if (!client) {
      client = createGitHubClient({ baseUrl: apiBaseUrl, token: options.githubToken, onProgress: options.onProgress, ...options.githubRetry });
      clients.set(apiBaseUrl, client);
    }
    return client;
  };

  const fromUrl = (cr: ProviderCR, url: string, field: string): ProviderSource =>
    sourceFromUrl(url, { label: manifestLabel(cr.kind, cr.name), kind: cr.kind, ref: ref(cr), file: cr.file, line: cr.line, field });

  const sourceFromUrl = (url: string, at: UrlSite): ProviderSource => {
    if (url.startsWith('file://')) return fileSource(url, at);
    if (!isGitHubUrl(url, enterpriseHosts)) {
      throw new SpecError(
        error('source-unsupported', `${at.field} of ${at.ref} is ${url}: only GitHub releases (https://github.com/{owner}/{repo}/releases/…) and file:// local repositories are supported`, {
          file: at.file,
          line: at.line,
          field: at.field,
          object: at.ref,
          hint: 'for other hosts mirror the release into a local repository (capi-render mirror) or an OCI registry',
        }),
      );
    }
    const parsed = parseGitHubReleaseUrl(url, { kind: at.kind, enterpriseHosts, where: { file: at.file, line: at.line, field: at.field, object: at.ref } });
    const apiBaseUrl = parsed.origin === 'https://github.com' ? (options.config?.github?.apiUrl ?? GITHUB_API_BASE_URL) : parsed.apiBaseUrl;
    return {
      source: createGitHubSource(clientFor(apiBaseUrl), { owner: parsed.owner, repo: parsed.repo, rootPath: parsed.rootPath, webHost: new URL(parsed.origin).host }),
      componentsFile: parsed.componentsFile,
      latestRule: 'clusterctl',
      defaultVersion: parsed.version && parsed.version !== 'latest' ? parsed.version : undefined,
    };
  };

  return {
    componentsFile(cr) {
      const entry = find(cr);
      return entry ? entry.url.slice(entry.url.lastIndexOf('/') + 1) : kindInfo(cr.kind).componentsAsset;
    },
    isPredefined(cr) {
      return find(cr) !== undefined;
    },
    defaultRemoteSource(cr) {
      const entry = find(cr);
      return entry ? fromUrl(cr, entry.url, 'the clusterctl provider list') : undefined;
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
        });
        // Files are chosen by the operator's title precedence; the components "file name" is only a role here.
        return { source: created.source, componentsFile: kindInfo(cr.kind).componentsAsset, latestRule: 'clusterctl', pinnedVersion: created.pinnedVersion };
      }
      return url ? fromUrl(cr, url, 'spec.fetchConfig.url') : undefined;
    },
  };
}

/** Where a URL was written, for messages; `label` is the folder a file:// URL must name. */
export interface UrlSite {
  label: string;
  kind?: ProviderCR['kind'];
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
  if (!path.isAbsolute(filePath) || parts.length < 4 || labelPart !== label) {
    throw new SpecError(
      error('source-unsupported', `${at.field} of ${at.ref} must be file:///<root>/${label}/<version>/<file> (clusterctl's local repository layout), got ${url}`, {
        file: at.file,
        line: at.line,
        field: at.field,
        object: at.ref,
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
