/**
 * `mirror --format oci`: each pinned provider release becomes one OCI artifact, in either layout.
 *
 * Design notes: docs/internals.md "mirror/mirror-oci.ts".
 */
import { publishOciArtifact } from '../source/oci/oci-publish.js';
import type { OciCredentials } from '../source/oci/oci-credentials.js';
import { parseOciReference } from '../source/oci/oci-reference.js';
import { capiRepositoryName } from '../source/oci/oci-capi-layout.js';
import { METADATA_FILE } from '../source/metadata.js';
import { findBuiltinProvider } from '../source/github/builtin-providers.js';
import { kindInfo } from '../declarations/provider-kinds.js';
import { packProviderArtifact, pushProviderArtifact } from '../publish/provider-artifact.js';
import type { ResolvedProvider } from '../render/environment-result.js';

/** The artifact layouts `mirror --format oci` writes (`--oci-layout`). */
export const MIRROR_OCI_LAYOUTS = ['operator', 'cluster-api'] as const;
/** One of {@link MIRROR_OCI_LAYOUTS}. */
export type MirrorOciLayout = (typeof MIRROR_OCI_LAYOUTS)[number];

/** One pushed artifact: the reference pushed and the manifest digest the registry confirmed. */
export interface PushedArtifact {
  reference: string;
  manifestDigest: string;
}

/** Pushes every distinct (provider, version) once, sorted by label then version. */
export async function publishMirror(
  providers: readonly ResolvedProvider[],
  prefix: string,
  credentials: OciCredentials | undefined,
  fetchImpl?: typeof fetch,
  layout: MirrorOciLayout = 'operator',
): Promise<PushedArtifact[]> {
  const seen = new Set<string>();
  const pushed: PushedArtifact[] = [];
  const sorted = [...providers].sort((a, b) =>
    a.label < b.label ? -1 : a.label > b.label ? 1 : a.version < b.version ? -1 : 1,
  );
  const encoder = new TextEncoder();
  for (const p of sorted) {
    const type = kindInfo(p.cr.kind).operatorType;
    const repository = layout === 'operator' ? p.label : capiRepositoryName({ type, name: p.cr.name });
    const reference = `${prefix.replace(/\/+$/, '')}/${repository}:${p.version}`;
    if (seen.has(reference)) continue;
    seen.add(reference);
    if (layout === 'cluster-api') {
      const artifact = packProviderArtifact({
        identity: { type, name: p.cr.name, version: p.version },
        source: sourceRepository(p),
        files: [
          { name: METADATA_FILE, bytes: encoder.encode(p.files.metadata) },
          { name: p.files.componentsFile, bytes: encoder.encode(p.files.components) },
        ],
      });
      const ref = parseOciReference(reference, { field: '--to' });
      const manifestDigest = await pushProviderArtifact({ ...ref, tag: p.version }, artifact, credentials, fetchImpl);
      pushed.push({ reference, manifestDigest });
      continue;
    }
    const base = `${type}-${p.cr.name}-${p.version}`;
    const { manifestDigest } = await publishOciArtifact({
      reference,
      files: [
        { name: `${base}-components.yaml`, bytes: encoder.encode(p.files.components) },
        { name: `${base}-metadata.yaml`, bytes: encoder.encode(p.files.metadata) },
      ],
      ...(credentials ? { credentials } : {}),
      ...(fetchImpl ? { fetchImpl } : {}),
    });
    pushed.push({ reference, manifestDigest });
  }
  return pushed;
}

/**
 * `org.opencontainers.image.source`: the GitHub repository of a built-in provider or of a GitHub
 * source, else the source's id (`local:…`, `oci:…`) — never a path of this machine, so the
 * artifact is the same wherever it is mirrored from.
 */
function sourceRepository(p: ResolvedProvider): string {
  const github = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\//.exec(
    findBuiltinProvider(p.cr.kind, p.cr.name)?.url ?? '',
  );
  if (github) return `https://github.com/${github[1]}/${github[2]}`;
  if (p.sourceId.startsWith('github:')) return `https://github.com/${p.sourceId.slice('github:'.length)}`;
  return p.sourceId;
}
