/**
 * What `capi-render mirror` writes, as pure data: every provider release a build pinned, either in
 * clusterctl's local-repository layout (`<label>/<version>/<file>` — usable by clusterctl's overrides
 * folder and by capi-render's `repositories:`) or as the operator's air-gapped ConfigMaps
 * (`{type}-{name}-{version}`, labels name/type/version, gzip'd `binaryData.components` behind the
 * compressed annotation when asked or when the data passes the 1 MiB ConfigMap limit, as the
 * operator's own downloader does).
 */
import { gzipSync } from 'node:zlib';
import type { KubeObject } from '../manifest/object.js';
import { serializeObject } from '../manifest/serialize.js';
import { COMPRESSED_ANNOTATION, VERSION_LABEL } from '../source/configmap-source.js';
import { METADATA_FILE } from '../source/metadata.js';
import { kindInfo } from '../declarations/provider-kinds.js';
import type { ResolvedProvider } from '../render/environment-result.js';

export type MirrorFormat = 'repository' | 'configmaps';

/** The operator's ConfigMap size limit (manifests_downloader.go maxConfigMapSize). */
const MAX_CONFIGMAP_BYTES = 1024 * 1024;

/** Files to write, path (relative to the mirror folder) → content; deterministic and de-duplicated. */
export function mirrorFiles(
  providers: readonly ResolvedProvider[],
  format: MirrorFormat,
  options: { compress?: boolean; certManager?: readonly { version: string; file: string; text: string }[] } = {},
): Map<string, string | Uint8Array> {
  const out = new Map<string, string | Uint8Array>();
  // cert-manager has no operator ConfigMap format; in a local repository it sits beside the providers.
  if (format === 'repository')
    for (const cm of options.certManager ?? []) out.set(`cert-manager/${cm.version}/${cm.file}`, cm.text);
  for (const p of providers) {
    if (format === 'repository') {
      out.set(`${p.label}/${p.version}/${p.files.componentsFile}`, p.files.components);
      out.set(`${p.label}/${p.version}/${METADATA_FILE}`, p.files.metadata);
      continue;
    }
    const type = kindInfo(p.cr.kind).operatorType;
    const name = `${type}-${p.cr.name}-${p.version}`;
    const size = Buffer.byteLength(p.files.components) + Buffer.byteLength(p.files.metadata);
    const compress = options.compress || size > MAX_CONFIGMAP_BYTES;
    const data: Record<string, string> = compress
      ? { metadata: p.files.metadata }
      : { components: p.files.components, metadata: p.files.metadata };
    const configMap: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: p.cr.namespace,
        labels: {
          'provider.cluster.x-k8s.io/name': p.cr.name,
          'provider.cluster.x-k8s.io/type': type,
          [VERSION_LABEL]: p.version,
        },
        ...(compress ? { annotations: { [COMPRESSED_ANNOTATION]: 'true' } } : {}),
      },
      data,
      ...(compress
        ? { binaryData: { components: gzipSync(p.files.components, { level: 9 }).toString('base64') } }
        : {}),
    };
    out.set(`${p.cr.namespace}/${name}.yaml`, serializeObject(configMap));
  }
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
