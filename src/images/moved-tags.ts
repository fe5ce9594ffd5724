/**
 * Moved tags: for every image an environment pinned, what its tag points to now, against the digest
 * the lock records. A tag that moved is news for the review (`plan`, the report); the pin holds
 * until `upgrade --images` re-resolves it. Each distinct image is asked once.
 */
import { RenderError } from '../errors.js';
import { registryPool, type RegistryPolicy } from './image-resolver.js';
import { parseImageLocation, type ImageRegistry } from './registry/image-registry.js';

export interface ImageTagState {
  image: string;
  /** The digest the lock pins. */
  locked: string;
  /** What the tag points to now; null when it could not be asked (see `error`). */
  current: string | null;
  moved: boolean;
  /** Why `current` is unknown (offline, registry unreachable, tag gone). */
  error?: string;
}

export interface PinnedEnvironment {
  name: string;
  pinnedImages: readonly [string, string][];
  imageRegistries?: RegistryPolicy;
}

/** Per environment, the state of every pinned image's tag. `offline`: nothing is asked. */
export async function checkMovedTags(
  environments: readonly PinnedEnvironment[],
  options: { offline: boolean; registry: (policy: RegistryPolicy) => ImageRegistry },
): Promise<Map<string, ImageTagState[]>> {
  const asked = new Map<string, Promise<{ digest: string } | { error: string }>>();
  const registryFor = registryPool(options.registry);
  const ask = (image: string, policy: RegistryPolicy): Promise<{ digest: string } | { error: string }> => {
    const earlier = asked.get(image);
    if (earlier) return earlier;
    let pending: Promise<{ digest: string } | { error: string }>;
    const location = parseImageLocation(image);
    if (options.offline || !location) {
      pending = Promise.resolve({ error: options.offline ? 'not asked (--offline)' : 'not a registry reference' });
    } else {
      pending = registryFor(policy)
        .resolve({ registry: location.registry, repository: location.repository, tag: location.tag || 'latest' })
        .then(
          (r) => ({ digest: r.digest }),
          (e: unknown) => ({ error: e instanceof RenderError ? e.diagnostics[0]!.message : String(e) }),
        );
    }
    asked.set(image, pending);
    return pending;
  };
  const out = new Map<string, ImageTagState[]>();
  for (const env of environments) {
    const states: ImageTagState[] = [];
    for (const [image, locked] of env.pinnedImages) {
      const answer = await ask(image, env.imageRegistries ?? { insecureRegistries: [] });
      states.push(
        'digest' in answer
          ? { image, locked, current: answer.digest, moved: answer.digest !== locked }
          : { image, locked, current: null, moved: false, error: answer.error },
      );
    }
    out.set(env.name, states);
  }
  return out;
}
