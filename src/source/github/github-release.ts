/**
 * The parts of GitHub's release and release-asset objects that capi-render reads, and guards that
 * turn the API's untyped JSON into them. Unknown fields are ignored; a response that lacks a field
 * we need is reported as a `fetch` problem (the server did not answer like GitHub), not a crash.
 */
import { FetchError, error } from '../../errors.js';

/** A release asset (GET /repos/{owner}/{repo}/releases/assets/{id} and `release.assets[]`). */
export interface GitHubAsset {
  id: number;
  name: string;
  size: number;
  /** The public download address, e.g. `https://github.com/o/r/releases/download/v1.0.0/file.yaml`. */
  browserDownloadUrl: string;
}

/** A release (GET /repos/{owner}/{repo}/releases/tags/{tag} and the list endpoint's elements). */
export interface GitHubRelease {
  id: number;
  tagName: string;
  draft: boolean;
  prerelease: boolean;
  assets: GitHubAsset[];
}

/** Reads one release object; `where` names the request for the error message. */
export function toGitHubRelease(value: unknown, where: string): GitHubRelease {
  const object = asRecord(value, where);
  const assets = object['assets'] ?? [];
  if (!Array.isArray(assets)) throw malformed(where, 'assets is not a list');
  return {
    id: numberField(object, 'id', where),
    tagName: stringField(object, 'tag_name', where),
    draft: object['draft'] === true,
    prerelease: object['prerelease'] === true,
    assets: assets.map((asset) => toGitHubAsset(asset, where)),
  };
}

/** Reads a page of the list-releases endpoint. */
export function toGitHubReleases(value: unknown, where: string): GitHubRelease[] {
  if (!Array.isArray(value)) throw malformed(where, 'expected a list of releases');
  return value.map((release) => toGitHubRelease(release, where));
}

function toGitHubAsset(value: unknown, where: string): GitHubAsset {
  const object = asRecord(value, where);
  return {
    id: numberField(object, 'id', where),
    name: stringField(object, 'name', where),
    size: typeof object['size'] === 'number' ? object['size'] : 0,
    browserDownloadUrl: typeof object['browser_download_url'] === 'string' ? object['browser_download_url'] : '',
  };
}

function asRecord(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(where, 'expected an object');
  return value as Record<string, unknown>;
}

function stringField(object: Record<string, unknown>, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw malformed(where, `${key} is not a string`);
  return value;
}

function numberField(object: Record<string, unknown>, key: string, where: string): number {
  const value = object[key];
  if (typeof value !== 'number') throw malformed(where, `${key} is not a number`);
  return value;
}

function malformed(where: string, what: string): FetchError {
  return new FetchError(
    error('fetch', `unexpected response from ${where}: ${what}`, {
      hint: 'check that the API base URL points at a GitHub (or GitHub Enterprise) REST API',
    }),
  );
}
