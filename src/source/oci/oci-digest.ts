/**
 * Content digests (`algorithm:hex`) as OCI uses them. sha256 and sha512 are the algorithms the
 * image spec registers; anything else is refused rather than trusted unverified.
 */
import { createHash } from 'node:crypto';
import { FetchError, error } from '../../errors.js';

const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** True when `text` is a sha256 or sha512 digest in canonical lowercase form. */
export function isOciDigest(text: string): boolean {
  return DIGEST.test(text);
}

/** The digest of `bytes`, `<algorithm>:<hex>`. Default: sha256. */
export function computeOciDigest(bytes: Uint8Array, algorithm: 'sha256' | 'sha512' = 'sha256'): string {
  return `${algorithm}:${createHash(algorithm).update(bytes).digest('hex')}`;
}

/**
 * Checks the digest a registry states in a header (`Docker-Content-Digest`) against the bytes it
 * sent: a digest is pinned, or trusted, only once the bytes hash to it. Throws a FetchError
 * `digest-mismatch` naming `what` and both digests otherwise.
 */
export function verifyStatedDigest(bytes: Uint8Array, stated: string, what: string): void {
  const actual = computeOciDigest(bytes, stated.startsWith('sha512:') ? 'sha512' : 'sha256');
  if (actual === stated) return;
  throw new FetchError(
    error(
      'digest-mismatch',
      `${what}: the registry states Docker-Content-Digest ${stated}, but the manifest's bytes hash to ${actual}; not trusted`,
      {
        hint: 'the registry, or a proxy or cache between here and it, serves a manifest other than the one it names; check them, and retry once it is fixed',
      },
    ),
  );
}

/**
 * Checks that `bytes` have the digest `expected` (and `size`, when given). Throws a FetchError
 * with code `digest-mismatch` naming `what` otherwise — the registry or something on the way
 * delivered other content than the manifest promised.
 */
export function verifyOciDigest(bytes: Uint8Array, expected: string, what: string, size?: number): void {
  if (!isOciDigest(expected)) {
    throw new FetchError(
      error(
        'digest-mismatch',
        `${what} has digest ${JSON.stringify(expected)}, which is not a sha256 or sha512 digest`,
        {
          hint: 'capi-render verifies every blob; republish the artifact with sha256 digests',
        },
      ),
    );
  }
  const algorithm = expected.startsWith('sha512:') ? 'sha512' : 'sha256';
  const actual = computeOciDigest(bytes, algorithm);
  if (actual !== expected || (size !== undefined && size !== bytes.length)) {
    throw new FetchError(
      error(
        'digest-mismatch',
        `${what}: expected ${expected} (${size ?? '?'} bytes), received ${actual} (${bytes.length} bytes)`,
        {
          hint: 'the registry returned other content than its manifest describes; retry, and check any proxy between here and the registry',
        },
      ),
    );
  }
}
