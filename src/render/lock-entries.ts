/** The lock entries one rendered environment contributes: its providers, cert-manager and their artifacts. */
import type { RenderedLockEntries } from '../lock/next-lock.js';
import { nameOf } from '../manifest/object.js';
import { lockKeyOf, type EnvironmentResult } from './environment-result.js';

export function lockEntriesOf(r: EnvironmentResult): RenderedLockEntries {
  return {
    environment: r.environment.name,
    providers: [
      ...r.providers.map((p) => ({
        provider: `${p.cr.kind}/${p.cr.namespace}/${p.cr.name}`,
        requested: p.cr.spec.version ?? '',
        version: p.version,
        contract: p.contract,
        source: p.sourceId,
        variables: p.variables,
      })),
      ...(r.certManager ? [r.certManager.lock] : []),
    ],
    crds: r.environment.components.flatMap((c) =>
      c.objects.filter((o) => o.kind === 'CustomResourceDefinition').map(nameOf),
    ),
    artifacts: [
      ...r.providers.flatMap((p) =>
        p.artifacts.map((a) => ({
          source: p.sourceId,
          version: p.version,
          file: a.file,
          url: a.url,
          sha256: a.sha256,
        })),
      ),
      ...(r.certManager
        ? [
            {
              source: r.certManager.sourceId,
              version: r.certManager.version,
              file: r.certManager.artifact.file,
              url: r.certManager.artifact.url,
              sha256: r.certManager.artifact.sha256,
            },
          ]
        : []),
    ],
    // Keyed by origin: where the image is pulled from is configuration, not part of the pin.
    images: r.pinnedImages.map(([image, digest]) => ({
      image: lockKeyOf(r, image),
      digest,
      ...(r.imageVerifications[image] ? { verified: r.imageVerifications[image] } : {}),
    })),
  };
}
