/**
 * The Sigstore trust material keyless verification checks against: a `trusted_root.json`
 * (sigstore/protobuf-specs `TrustedRoot`: Fulcio CAs, Rekor and CT log keys, timestamp authorities,
 * each with its validity window). By default the public-good instance's, shipped in the package
 * (`trust/trusted_root.json`, see trust/PROVENANCE.md); or a file the user names — a private
 * Sigstore, or a newer public-good root for an offline update. Parsed with the protobuf-specs
 * package's own `TrustedRoot.fromJSON`, as the `sigstore` package does for a user's root, and
 * turned into @sigstore/verify's trust material (which also parses every key and certificate, so a
 * broken file fails here, naming the file, not in the middle of a build).
 *
 * Nothing is fetched: no TUF client runs at build time, so `--offline` builds verify the same way.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, type KeyFinderFunc, type TrustMaterial } from '@sigstore/verify';
import { SpecError, error } from '../../errors.js';
import { packagePath } from '../../package-files.js';

/** The shipped root, relative to the package root. */
export const PUBLIC_GOOD_TRUSTED_ROOT = 'trust/trusted_root.json';
const TRUSTED_ROOT_MEDIA_TYPE =
  /^application\/vnd\.dev\.sigstore\.trustedroot(?:\.v\d+\.\d+)?\+json(?:;version=\d+\.\d+)?$/;

/** Where trust comes from, parsed once; hand it to every verification of a build. */
export interface TrustMaterialSource {
  /** `public-good`: the root shipped with capi-render; `file`: one the user named. */
  kind: 'public-good' | 'file';
  /** The file read (absolute for the shipped one). */
  file: string;
  /** For messages: "the Sigstore public-good trusted root shipped with capi-render" or "the trusted root <file>". */
  description: string;
  /** `sha256:<hex>` of the file's bytes (what a lock could record). */
  digest: string;
  /** The parsed root. */
  root: TrustedRoot;
  /** @sigstore/verify's trust material over this root; `keys` answers public-key hints (key rules). */
  material(keys?: KeyFinderFunc): TrustMaterial;
}

/**
 * Reads a trusted root: `file` (an absolute path, or relative to the working directory — resolve a
 * repository-relative setting first), or the shipped public-good root when `file` is undefined.
 * `read` reads a user's file (default: a plain read; a build reads it as a repository input, through
 * repository-files.ts). Throws SpecError (`config`) naming the file when it is missing, not JSON, not
 * a trusted root, or holds a key or certificate that does not parse.
 */
export function loadTrustedRoot(
  file: string | undefined,
  read: (file: string) => Buffer = (f) => readFileSync(f),
): TrustMaterialSource {
  const kind = file === undefined ? 'public-good' : 'file';
  const where = file ?? packagePath(PUBLIC_GOOD_TRUSTED_ROOT);
  const description =
    kind === 'public-good'
      ? 'the Sigstore public-good trusted root shipped with capi-render'
      : `the trusted root ${where}`;
  const fail = (why: string, hint: string) =>
    new SpecError(error('config', `${description}: ${why}`, { file: where, hint }));
  const hint =
    kind === 'public-good'
      ? 'the installation is incomplete; reinstall capi-render'
      : 'it must be a Sigstore trusted_root.json (application/vnd.dev.sigstore.trustedroot+json), e.g. the target `trusted_root.json` of a Sigstore TUF repository';
  let bytes: Buffer;
  try {
    bytes = kind === 'public-good' ? readFileSync(where) : read(where);
  } catch (cause) {
    throw fail(`cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`, hint);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw fail('is not JSON', hint);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail('is not a JSON object', hint);
  const mediaType = (parsed as Record<string, unknown>).mediaType;
  if (typeof mediaType !== 'string' || !TRUSTED_ROOT_MEDIA_TYPE.test(mediaType))
    throw fail(`has mediaType ${JSON.stringify(mediaType)}, not a Sigstore trusted root`, hint);
  let root: TrustedRoot;
  try {
    root = TrustedRoot.fromJSON(parsed);
    // Parses every key and certificate: a broken entry fails now, naming the file.
    toTrustMaterial(root);
  } catch (cause) {
    throw fail(`is not a usable trusted root: ${(cause as Error).message}`, hint);
  }
  if (root.certificateAuthorities.length === 0)
    throw fail('lists no certificate authority (Fulcio), so no keyless signature could verify', hint);
  return {
    kind,
    file: where,
    description,
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    root,
    material: (keys) => toTrustMaterial(root, keys),
  };
}
