/**
 * Digests for the pinning stage, shared by every environment of one build: a digest the lock
 * records is used as it is (the registry is never asked again); any other image is resolved once
 * per build, however many environments use it; `--offline` resolves nothing.
 */
import { FetchError, SpecError, error } from '../errors.js';
import type { DigestLookup } from './pin-images.js';
import { parseImageLocation, type ImageRegistry, type ResolvedImage } from './registry/image-registry.js';

/** How one environment's registries are reached (imagePolicy, with credentials from its pull secret). */
export interface RegistryPolicy {
  insecureRegistries: readonly string[];
  /** Per registry host; secret: never printed. */
  credentials?: Readonly<Record<string, { username: string; password: string }>>;
}

export interface ImageResolverOptions {
  /** image reference → digest, from the lock. */
  locked: ReadonlyMap<string, string>;
  offline: boolean;
  /** Images to resolve again although the lock has them (`upgrade --images`). Default: none. */
  refresh?: (image: string) => boolean;
  /** A registry client for a policy (created once per distinct policy). */
  registry: (policy: RegistryPolicy) => ImageRegistry;
}

export interface ImageResolver {
  /** The lookup for environments with `policy`. */
  lookup(policy: RegistryPolicy): DigestLookup;
  /** What this build asked registries, by image (for `plan` and the report). */
  resolved(): ReadonlyMap<string, ResolvedImage>;
}

/** One registry client per distinct policy (so each keeps its tokens and connections for the whole run). */
export function registryPool(create: (policy: RegistryPolicy) => ImageRegistry): (policy: RegistryPolicy) => ImageRegistry {
  const registries = new Map<string, ImageRegistry>();
  return (policy) => {
    const key = JSON.stringify([[...policy.insecureRegistries].sort(), Object.entries(policy.credentials ?? {}).sort()]);
    let registry = registries.get(key);
    if (!registry) registries.set(key, (registry = create(policy)));
    return registry;
  };
}

export function createImageResolver(options: ImageResolverOptions): ImageResolver {
  const asked = new Map<string, Promise<ResolvedImage>>();
  const answers = new Map<string, ResolvedImage>();
  const registryFor = registryPool(options.registry);
  return {
    lookup(policy) {
      return async (image) => {
        const locked = options.locked.get(image);
        if (locked !== undefined && !options.refresh?.(image)) return locked;
        if (options.offline) {
          throw new FetchError(
            error('offline', `--offline: image ${image} has no digest in capi-render.lock`, {
              hint: 'build once online with imagePolicy.pinDigests (the digest is then locked), or turn pinning off for this environment',
            }),
          );
        }
        const location = parseImageLocation(image);
        if (!location) {
          throw new SpecError(
            error('image', `cannot pin image ${JSON.stringify(image)}: it is not a registry/repository:tag reference`, {
              hint: 'write the fully qualified reference (an image override, or a patch of the provider CR)',
            }),
          );
        }
        let pending = asked.get(image);
        if (!pending) {
          const request = registryFor(policy).resolve({ registry: location.registry, repository: location.repository, tag: location.tag || 'latest' });
          request.then((r) => answers.set(image, r), () => undefined);
          asked.set(image, (pending = request));
        }
        return (await pending).digest;
      };
    },
    resolved: () => answers,
  };
}
