/**
 * skopeo as an independent OCI client for registry tests: it shares no code with capi-render, so
 * what it reads back is what any registry client would see. `.ci/run` installs it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { filesUnder } from './repo.js';
import { tempDir } from './tmp.js';

export const SKOPEO = '/usr/bin/skopeo';

/** Why skopeo tests cannot run here, or undefined. */
export function skopeoUnavailableReason(): string | undefined {
  return existsSync(SKOPEO) ? undefined : `${SKOPEO} is missing (apt-get install skopeo)`;
}

/** Runs skopeo (no policy file, a throw-away HOME); throws with its stderr on failure. */
export function skopeo(...args: string[]): string {
  const r = spawnSync(SKOPEO, ['--insecure-policy', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tempDir() },
  });
  if (r.status !== 0) throw new Error(`skopeo ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** What skopeo reads of a plain-HTTP artifact: its raw manifest and digest, and every blob by digest (`skopeo copy` to `dir:`). */
export interface SkopeoReadBack {
  /** sha256 of the raw manifest bytes, computed here. */
  digest: string;
  raw: string;
  manifest: any;
  /** Blob bytes by `sha256:<hex>`. */
  blob(digest: string): Buffer;
  /** The files of a tar+gzip blob, unpacked by GNU tar: path → text. */
  unpack(digest: string): Map<string, string>;
}

/** Reads `host/repository:tag` (plain HTTP) back with skopeo. */
export function skopeoReadBack(host: string, repository: string, tag: string): SkopeoReadBack {
  const image = `docker://${host}/${repository}:${tag}`;
  const raw = skopeo('inspect', '--raw', '--tls-verify=false', image);
  const copied = path.join(tempDir(), 'copy');
  // `dir:` keeps every blob as the registry serves it, named by its digest's hex.
  skopeo('copy', '--src-tls-verify=false', '--preserve-digests', image, `dir:${copied}`);
  const blob = (digest: string) => readFileSync(path.join(copied, digest.replace(/^sha256:/, '')));
  return {
    digest: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    raw,
    manifest: JSON.parse(raw),
    blob,
    unpack(digest) {
      const unpacked = path.join(tempDir(), 'unpacked');
      mkdirSync(unpacked);
      const tar = spawnSync('tar', ['-xzf', path.join(copied, digest.replace(/^sha256:/, '')), '-C', unpacked], {
        encoding: 'utf8',
      });
      if (tar.status !== 0) throw new Error(tar.stderr);
      return filesUnder(unpacked);
    },
  };
}
