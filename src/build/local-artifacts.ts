/**
 * Whether the release files the lock pins from local repositories are still the files that were
 * pinned. A local repository is files on disk, edited like any other, so a skipped environment (or a
 * stamped no-op build) would keep output rendered from old files while `check` renders from new ones.
 * An environment is skipped only while every local artifact it uses still has the lock's sha256, and a
 * stamp holds only while those files keep their size and times. A configured repository's entry
 * (`local:<label>`) is looked for in the first of capi-render.yaml's `repositories:` with `<label>/`.
 */
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { readBoundedSync } from '../bounded-read.js';
import { RELEASE_ASSET_LIMIT } from '../source/http/body-limits.js';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { LockFile, LockedArtifact } from '../lock/lock-types.js';
import { existsSync } from 'node:fs';
import { configuredLocalLabel } from '../source/local-source-id.js';

const LOCAL = 'local:';

/** A file as a stamp records it: absolute path, size, mtime and ctime (ms). */
export type LocalFileStat = [file: string, size: number, mtimeMs: number, ctimeMs: number];

/** A predicate over environment names; it reads files, so it is built once per build. */
export function localArtifactsIntact(
  repoRoot: string,
  lock: LockFile,
  repositories: readonly { path: string }[],
): (env: string) => boolean {
  const digests = new Map<string, string | undefined>();
  const digestOf = (file: string): string | undefined => {
    if (!digests.has(file)) digests.set(file, readDigest(file));
    return digests.get(file);
  };
  return (env) => {
    const entry = lock.environments.find((e) => e.name === env);
    if (!entry) return false;
    const used = new Set(
      entry.providers.filter((p) => p.source.startsWith(LOCAL)).map((p) => `${p.source}\u0000${p.version}`),
    );
    return lock.artifacts
      .filter((a) => used.has(`${a.source}\u0000${a.version}`))
      .every((a) => {
        const file = artifactPath(repoRoot, a, repositories);
        return file !== undefined && digestOf(file) === a.sha256;
      });
  };
}

/** Stats of every local artifact file of the lock (plain or `.gz`, whichever is there), sorted. */
export function localArtifactStats(
  repoRoot: string,
  lock: LockFile,
  repositories: readonly { path: string }[],
): LocalFileStat[] {
  const files = new Set<string>();
  for (const a of lock.artifacts) {
    const file = a.source.startsWith(LOCAL) ? artifactPath(repoRoot, a, repositories) : undefined;
    if (file !== undefined) files.add(file);
  }
  const out: LocalFileStat[] = [];
  for (const file of [...files].sort()) {
    for (const candidate of [file, `${file}.gz`]) {
      const stat = statOf(candidate);
      if (stat) {
        out.push(stat);
        break;
      }
    }
  }
  return out;
}

/** Whether every recorded file still has its recorded size and times. */
export function localFilesUnchanged(recorded: readonly LocalFileStat[]): boolean {
  return recorded.every((r) => {
    const now = statOf(r[0]);
    return now !== undefined && now[1] === r[1] && now[2] === r[2] && now[3] === r[3];
  });
}

/** Where the build reads a local artifact; undefined when no configured repository has its label. */
function artifactPath(
  repoRoot: string,
  a: LockedArtifact,
  repositories: readonly { path: string }[],
): string | undefined {
  const label = configuredLocalLabel(a.source);
  if (label === undefined) return path.resolve(repoRoot, a.source.slice(LOCAL.length), a.version, a.file);
  const root = repositories.map((r) => path.resolve(repoRoot, r.path)).find((r) => existsSync(path.join(r, label)));
  return root === undefined ? undefined : path.join(root, label, a.version, a.file);
}

function statOf(file: string): LocalFileStat | undefined {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat?.isFile() ? [file, stat.size, stat.mtimeMs, stat.ctimeMs] : undefined;
}

/** sha256 of a regular file (or of `<file>.gz` decompressed), undefined when neither can be read. */
function readDigest(file: string): string | undefined {
  for (const [candidate, gz] of [
    [file, false],
    [`${file}.gz`, true],
  ] as const) {
    try {
      // A link or anything but a regular file is not what the lock pinned: render, and let the source
      // say so; so is one past the release-file limit (bounded, as the source reads it).
      const read = readBoundedSync(candidate, { limit: RELEASE_ASSET_LIMIT.maxBytes, follow: false });
      if (read.outcome === 'missing') continue;
      if (read.outcome !== 'read') return undefined;
      return createHash('sha256')
        .update(gz ? gunzipSync(read.bytes, { maxOutputLength: RELEASE_ASSET_LIMIT.maxBytes }) : read.bytes)
        .digest('hex');
    } catch {
      continue;
    }
  }
  return undefined;
}
