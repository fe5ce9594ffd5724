/**
 * The data behind the fake GitHub API: releases built from a clusterctl local-repository tree
 * (`<dir>/<label>/<version>/<file>`, `<file>.gz` served gunzipped), shaped like the objects recorded
 * in test/fixtures/github-api (octokit/fixtures; see test/fixtures/PROVENANCE.md, section 5). Deterministic: the same
 * options always give the same ids, dates and order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import semver from 'semver';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** Fixture tree used when no directory is given. */
export const DEFAULT_REPOSITORY_DIR = fileURLToPath(new URL('repository/', FIXTURES));

/** `{owner}/{repo}` → provider labels whose versions make up its releases, like the real releases. */
export const DEFAULT_REPOS: Readonly<Record<string, readonly string[]>> = {
  // One cluster-api release carries core, kubeadm bootstrap/control-plane and CAPD assets; the
  // first label that has metadata.yaml for a tag provides it.
  'kubernetes-sigs/cluster-api': ['cluster-api', 'bootstrap-kubeadm', 'control-plane-kubeadm', 'infrastructure-docker'],
  'cert-manager/cert-manager': ['cert-manager'],
  'vmware/cluster-api-provider-cloud-director': ['infrastructure-vcd'],
  'rancher-sandbox/cluster-api-provider-harvester': ['infrastructure-harvester'],
};

/** A release added on top of the tree (pagination tests, drafts, odd tags). */
export interface FakeReleaseSpec {
  tag: string;
  draft?: boolean;
  prerelease?: boolean;
  /** Asset name → content. Default: none. */
  assets?: Record<string, string | Uint8Array>;
}

export interface FakeAsset {
  id: number;
  name: string;
  bytes: Uint8Array;
  json: Record<string, unknown>;
}

export interface FakeRelease {
  id: number;
  tag: string;
  assets: FakeAsset[];
  json: Record<string, unknown>;
}

export interface FakeRepo {
  id: number;
  owner: string;
  repo: string;
  /** In list order: newest first, like GitHub (which orders by creation date). */
  releases: FakeRelease[];
}

interface Templates {
  release: Record<string, unknown>;
  asset: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Release and asset objects and the response headers of the recorded exchanges. */
export function loadTemplates(): Templates {
  const exchanges = JSON.parse(
    readFileSync(new URL('github-api/octokit-release-assets.normalized-fixture.json', FIXTURES), 'utf8'),
  ) as Array<{ method: string; path: string; response: Record<string, unknown>; headers: Record<string, unknown> }>;
  const release = exchanges.find((e) => e.method === 'get' && e.path.includes('/releases/tags/'));
  const asset = exchanges.find((e) => e.method === 'get' && /\/releases\/assets\/\d+$/.test(e.path));
  if (!release || !asset) throw new Error('github-api fixture lacks the release or asset exchange');
  // Per-response headers are computed by the server; keep the constant ones GitHub always sends.
  const dropped = new Set(['content-length', 'date', 'etag', 'last-modified', 'connection', 'x-github-request-id']);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(release.headers)) {
    if (!dropped.has(name) && !name.startsWith('x-ratelimit-')) headers[name] = String(value);
  }
  return { release: release.response, asset: asset.response, headers };
}

/** Builds every repository's releases. `apiBase` is the fake's own URL (for `url`/`assets_url`). */
export function buildRepos(
  apiBase: string,
  repositoryDir: string,
  repos: Readonly<Record<string, readonly string[]>>,
  extra: Readonly<Record<string, readonly FakeReleaseSpec[]>>,
): Map<string, FakeRepo> {
  const templates = loadTemplates();
  const ids = { release: 1_000_000, asset: 2_000_000 };
  const result = new Map<string, FakeRepo>();
  const slugs = [...new Set([...Object.keys(repos), ...Object.keys(extra)])].sort();
  slugs.forEach((slug, index) => {
    const [owner = '', repo = ''] = slug.split('/');
    const specs = [...releasesFromTree(repositoryDir, repos[slug] ?? []), ...(extra[slug] ?? [])];
    specs.sort((a, b) => compareTags(b.tag, a.tag));
    const releases = specs.map((spec, position) => {
      const created = new Date(Date.UTC(2017, 9, 10, 16) - position * 86_400_000).toISOString().replace('.000', '');
      const apiRepo = `${apiBase}/repos/${owner}/${repo}`;
      const releaseId = ++ids.release;
      const assets = Object.entries(spec.assets ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, content]) => {
          const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
          const id = ++ids.asset;
          const json = {
            ...templates.asset,
            url: `${apiRepo}/releases/assets/${id}`,
            id,
            node_id: `RA_${id}`,
            name,
            label: '',
            content_type: 'application/octet-stream',
            size: bytes.length,
            download_count: 0,
            created_at: created,
            updated_at: created,
            browser_download_url: `https://github.com/${owner}/${repo}/releases/download/${spec.tag}/${name}`,
          };
          return { id, name, bytes, json };
        });
      const json = {
        ...templates.release,
        url: `${apiRepo}/releases/${releaseId}`,
        assets_url: `${apiRepo}/releases/${releaseId}/assets`,
        upload_url: `https://uploads.github.com/repos/${owner}/${repo}/releases/${releaseId}/assets{?name,label}`,
        html_url: `https://github.com/${owner}/${repo}/releases/tag/${spec.tag}`,
        id: releaseId,
        node_id: `RE_${releaseId}`,
        tag_name: spec.tag,
        name: spec.tag,
        draft: spec.draft ?? false,
        prerelease: spec.prerelease ?? semver.prerelease(spec.tag) !== null,
        created_at: created,
        published_at: spec.draft ? null : created,
        assets: assets.map((asset) => asset.json),
        tarball_url: `${apiRepo}/tarball/${spec.tag}`,
        zipball_url: `${apiRepo}/zipball/${spec.tag}`,
        body: `Release ${spec.tag}`,
      };
      return { id: releaseId, tag: spec.tag, assets, json };
    });
    result.set(slug, { id: 1000 + index, owner, repo, releases });
  });
  return result;
}

/** One release per version folder found under any of the labels; first label wins a file name. */
function releasesFromTree(dir: string, labels: readonly string[]): FakeReleaseSpec[] {
  const byTag = new Map<string, Record<string, Uint8Array>>();
  for (const label of labels) {
    const labelDir = join(dir, label);
    if (!existsSync(labelDir)) throw new Error(`fake GitHub: no folder ${labelDir}`);
    for (const version of readdirSync(labelDir).sort()) {
      const versionDir = join(labelDir, version);
      if (!statSync(versionDir).isDirectory()) continue;
      const assets = byTag.get(version) ?? {};
      for (const file of readdirSync(versionDir).sort()) {
        const name = file.endsWith('.gz') ? file.slice(0, -3) : file;
        // An earlier label beats a later one; a plain file sorts before (and beats) its .gz twin.
        if (name in assets) continue;
        const raw = readFileSync(join(versionDir, file));
        assets[name] = new Uint8Array(file.endsWith('.gz') ? gunzipSync(raw) : raw);
      }
      byTag.set(version, assets);
    }
  }
  return [...byTag].map(([tag, assets]) => ({ tag, assets }));
}

/** Semver order where both are versions; non-versions sort below versions, then by text. */
function compareTags(a: string, b: string): number {
  const va = semver.valid(a);
  const vb = semver.valid(b);
  if (va && vb) return semver.compare(va, vb);
  if (va) return 1;
  if (vb) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
