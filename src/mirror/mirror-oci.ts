/**
 * `mirror --format oci`: each pinned provider release becomes one OCI artifact
 * `<prefix>/<manifest label>:<version>` in the layout the operator's `publish` command produces,
 * with the file names the operator looks for first (`{type}-{name}-{version}-components.yaml`,
 * `…-metadata.yaml`). Either tool can then read it through `spec.fetchConfig.oci`.
 */
import { publishOciArtifact } from '../source/oci/oci-publish.js';
import type { OciCredentials } from '../source/oci/oci-credentials.js';
import { kindInfo } from '../declarations/provider-kinds.js';
import type { ResolvedProvider } from '../render/environment-result.js';

export interface PushedArtifact {
  reference: string;
  manifestDigest: string;
}

export async function publishMirror(providers: readonly ResolvedProvider[], prefix: string, credentials: OciCredentials | undefined, fetchImpl?: typeof fetch): Promise<PushedArtifact[]> {
  const seen = new Set<string>();
  const pushed: PushedArtifact[] = [];
  const sorted = [...providers].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : a.version < b.version ? -1 : 1));
  for (const p of sorted) {
    const reference = `${prefix.replace(/\/+$/, '')}/${p.label}:${p.version}`;
    if (seen.has(reference)) continue;
    seen.add(reference);
    const base = `${kindInfo(p.cr.kind).operatorType}-${p.cr.name}-${p.version}`;
    const encoder = new TextEncoder();
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
