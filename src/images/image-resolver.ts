/**
 * Digests for the pinning stage, shared by every environment of one build: a digest the lock
 * records is used as it is (the registry is never asked again); any other image is resolved once
 * per build, however many environments use it; `--offline` resolves nothing.
 *
 * The lock keys an image by the reference its provider releases (its origin, before `images:`
 * overrides): a mirror's location is configuration, not part of the pin. A digest is resolved where
 * the image is pulled from (the rendered reference), and reused from the lock under its origin
 * wherever it is pulled from. A lock written before keyed images by their rendered reference: that
 * entry is still reused, and the next build records it under the origin (the one lock change).
 */
import path from 'node:path';
import { FetchError, SpecError, error, warning, type Diagnostic } from '../errors.js';
import { readInputFileSync } from '../repository-files.js';
import { LOCK_FILE, type LockedVerification } from '../lock/lock-types.js';
import type { TrustMaterialSource } from './verify/trusted-root.js';
import type { ImageToVerify } from './verify/verify-image.js';
import type { VerifyRule } from './verify/verify-rules-schema.js';
import type { DigestLookup } from './pin-images.js';
import { parseImageLocation, type ImageRegistry, type ResolvedImage } from './registry/image-registry.js';
import type * as VerifyImageModule from './verify/verify-image.js';

/** How one environment's registries are reached (imagePolicy, with credentials from its pull secret). */
export interface RegistryPolicy {
  insecureRegistries: readonly string[];
  /** Per registry host; secret: never printed. */
  credentials?: Readonly<Record<string, { username: string; password: string }>>;
}

export interface ImageResolverOptions {
  /** image reference → digest (and what it was verified against), from the lock. */
  locked: ReadonlyMap<string, { digest: string; verified?: LockedVerification }>;
  /** Key rules' key files are read from here. */
  repoRoot: string;
  offline: boolean;
  /**
   * What to do with a locked verification whose evidence does not verify (or is missing):
   * 'repair' verifies the image again from its registry and says so (build); 'refuse' fails naming
   * the lock line (check, --frozen). Default 'repair'. `lockText` gives the line numbers.
   */
  evidenceRule?: 'repair' | 'refuse';
  lockText?: string;
  /** Images to resolve again although the lock has them (`upgrade --images`), by lock key. Default: none. */
  refresh?: (key: string) => boolean;
  /** A registry client for a policy (created once per distinct policy). */
  registry: (policy: RegistryPolicy) => ImageRegistry;
}

export interface ImageResolver {
  /** The lookup for environments with `policy`. */
  lookup(policy: RegistryPolicy): DigestLookup;
  /**
   * Checks `image@digest` against the rule that matched it (`imagePolicy.verify[index]`), once per
   * build for each image, digest and rule: from the signature evidence the lock keeps for this
   * digest, verified offline (no registry); else — no evidence, or evidence that no longer verifies
   * — from the registry's signatures (`evidenceRule` decides whether that is allowed, and `note`
   * hears the one line saying it happened). `trustedRoot`: a repository-relative file, or the
   * shipped root. `key`: the image's lock key (its origin, pin-images.ts lockKey), default `image`; the
   * signature is looked for where the image is pulled from (`image`), and the record proves the digest.
   */
  verify(
    image: string,
    digest: string,
    match: { rule: VerifyRule; index: number },
    policy: RegistryPolicy,
    trustedRoot: string | undefined,
    note?: (d: Diagnostic) => void,
    key?: string,
  ): Promise<LockedVerification>;
  /** What this build asked registries, by image (for `plan` and the report). */
  resolved(): ReadonlyMap<string, ResolvedImage>;
  /** Entries of a lock from before origin keys that this build reused: the name that lock used → the key now. */
  rekeyed(): ReadonlyMap<string, string>;
}

/** The one line a build (and `check`) says when it reused a lock's entries keyed by the names the output pulls from. */
export function rekeyedImagesWarning(rekeyed: ReadonlyMap<string, string>): Diagnostic {
  const names = [...rekeyed.keys()].sort();
  const shown = names.length > 2 ? `${names.slice(0, 2).join(', ')} and ${names.length - 2} more` : names.join(', ');
  return warning(
    'lock',
    `${LOCK_FILE} names pinned images where the output pulls them from (${shown}, written by an older capi-render): their digests are kept and recorded under the names their providers release, since where an image is pulled from is an images: override, not part of the pin`,
    { file: LOCK_FILE, hint: 'run `capi-render build` and commit capi-render.lock' },
  );
}

/** One registry client per distinct policy (so each keeps its tokens and connections for the whole run). */
export function registryPool(
  create: (policy: RegistryPolicy) => ImageRegistry,
): (policy: RegistryPolicy) => ImageRegistry {
  const registries = new Map<string, ImageRegistry>();
  return (policy) => {
    const key = JSON.stringify([
      [...policy.insecureRegistries].sort(),
      Object.entries(policy.credentials ?? {}).sort(),
    ]);
    let registry = registries.get(key);
    if (!registry) registries.set(key, (registry = create(policy)));
    return registry;
  };
}

export function createImageResolver(options: ImageResolverOptions): ImageResolver {
  const asked = new Map<string, Promise<ResolvedImage>>();
  const answers = new Map<string, ResolvedImage>();
  const registryFor = registryPool(options.registry);
  const verified = new Map<string, Promise<LockedVerification>>();
  const roots = new Map<string, Promise<TrustMaterialSource>>();
  // The lock's entry for an image: under its key, else (a lock from before origin keys) under the
  // reference it is pulled from, which is what such a lock named.
  const rekeyed = new Map<string, string>();
  const lockedFor = (key: string, image: string) => {
    const found = options.locked.get(key);
    if (found || key === image) return found;
    const old = options.locked.get(image);
    if (old) rekeyed.set(image, key);
    return old;
  };
  // Each key resolved this build, and where: two locations of one released image must agree.
  const resolvedKeys = new Map<string, { image: string; digest: string }>();
  // A user's trusted root is a repository input: read as every input is (a link leaving the repository refused).
  const readInput = (absolute: string) => {
    const found = readInputFileSync(
      options.repoRoot,
      path.relative(options.repoRoot, absolute).split(path.sep).join('/'),
    );
    if (!found) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    return found.bytes;
  };
  const trustedRootFor = (file: string | undefined) => {
    const key = file ?? '';
    let root = roots.get(key);
    if (!root)
      roots.set(
        key,
        (root = import('./verify/trusted-root.js').then((m) =>
          m.loadTrustedRoot(file === undefined ? undefined : path.join(options.repoRoot, file), readInput),
        )),
      );
    return root;
  };
  return {
    async verify(image, digest, match, policy, trustedRoot, note, lockKey = image) {
      const { ruleIdIn } = await import('./verify/verify-rules.js');
      const rule = ruleIdIn(options.repoRoot, match.rule);
      const key = `${image}\u0000${digest}\u0000${rule}`;
      let pending = verified.get(key);
      if (!pending) {
        const location = parseImageLocation(image);
        if (!location)
          throw new SpecError(
            error(
              'image',
              `cannot verify image ${JSON.stringify(image)}: it is not a registry/repository:tag reference`,
            ),
          );
        const subject = { reference: image, registry: location.registry, repository: location.repository, digest };
        // The lock's record counts only for the digest it was made for (and not when asked to refresh).
        const locked = lockedFor(lockKey, image);
        const record =
          locked?.digest === digest && !options.refresh?.(lockKey) ? { verified: locked.verified } : undefined;
        pending = (async () => {
          const [verifyModule, root] = await Promise.all([
            import('./verify/verify-image.js'),
            trustedRootFor(trustedRoot),
          ]);
          const ctx = { repoRoot: options.repoRoot, trustedRoot: root };
          const proved = record ? fromEvidence(verifyModule, subject, match, record.verified, ctx) : undefined;
          if (proved && 'verification' in proved) return proved.verification;
          const why = proved?.why;
          const line =
            why === undefined || options.lockText === undefined
              ? undefined
              : lockImageLine(options.lockText, options.locked.has(lockKey) ? lockKey : image);
          const at = { file: LOCK_FILE, ...(line ? { line, col: 1 } : {}) };
          const what = `image ${image}@${digest}: capi-render.lock ${why ?? ''} for imagePolicy.verify[${match.index}] (rule ${rule})`;
          if (why !== undefined && options.evidenceRule === 'refuse') {
            throw new SpecError(
              error('lock', what, {
                ...at,
                hint: 'run `capi-render build` (online) to verify the image from its registry and lock the signature that passes, and commit the result; capi-render.lock records verification only with evidence that proves it',
              }),
            );
          }
          if (options.offline) {
            throw new FetchError(
              error(
                'offline',
                `--offline: image ${image}@${digest} has no signature evidence that verifies against imagePolicy.verify[${match.index}] (rule ${rule}) in capi-render.lock`,
                {
                  ...(why !== undefined ? at : {}),
                  hint: 'build once online: the signature is checked in the registry and locked with its evidence',
                },
              ),
            );
          }
          if (why !== undefined) note?.(warning('lock', `${what}: verified again from the registry`, at));
          try {
            return await verifyModule.verifyImage(subject, match, { ...ctx, registry: registryFor(policy) });
          } catch (e) {
            // A digest the lock pins that fails its rule: the lock line is where it was decided.
            if (why === undefined || !(e instanceof verifyModule.SignatureVerificationError)) throw e;
            throw new SpecError(
              e.diagnostics.map((d) => ({
                ...d,
                ...at,
                hint: `capi-render.lock pins this digest; ${d.hint ?? ''}`.replace(/; $/, ''),
              })),
            );
          }
        })();
        verified.set(key, pending);
      }
      return pending;
    },
    lookup(policy) {
      return async (image, key = image) => {
        const locked = lockedFor(key, image)?.digest;
        if (locked !== undefined && !options.refresh?.(key)) return locked;
        if (options.offline) {
          throw new FetchError(
            error(
              'offline',
              `--offline: image ${image} has no digest in capi-render.lock${key === image ? '' : ` (which names it as released: ${key})`}`,
              {
                hint: 'build once online with imagePolicy.pinDigests (the digest is then locked), or turn pinning off for this environment',
              },
            ),
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
          const request = registryFor(policy).resolve({
            registry: location.registry,
            repository: location.repository,
            tag: location.tag || 'latest',
          });
          request.then(
            (r) => answers.set(image, r),
            () => undefined,
          );
          asked.set(image, (pending = request));
        }
        const { digest } = await pending;
        const earlier = resolvedKeys.get(key);
        if (earlier && earlier.digest !== digest) {
          const [a, b] = [earlier, { image, digest }].sort((x, y) => (x.image < y.image ? -1 : 1));
          throw new SpecError(
            error(
              'image',
              `${a!.image} points to ${a!.digest} but ${b!.image} to ${b!.digest}, and both are ${key} (images: overrides point at a mirror): one released image pins one digest`,
              {
                hint: 'mirror the image again (capi-render mirror --images) so the mirror holds what the release tags, then build',
              },
            ),
          );
        }
        resolvedKeys.set(key, { image, digest });
        return digest;
      };
    },
    resolved: () => answers,
    rekeyed: () => rekeyed,
  };
}

/**
 * The lock's verification record of an image, for the digest it pins, verified from its evidence
 * offline against the rule as it is now: the record this run proves, or why it proves nothing. A
 * key that cannot be read is the inputs' problem, thrown as it is.
 */
function fromEvidence(
  verify: typeof VerifyImageModule,
  subject: ImageToVerify,
  match: { rule: VerifyRule; index: number },
  verified: LockedVerification | undefined,
  ctx: { repoRoot: string; trustedRoot: TrustMaterialSource },
): { verification: LockedVerification } | { why: string } {
  if (!verified) return { why: 'has no verification record' };
  if (verified.evidence === undefined) return { why: 'has no signature evidence' };
  try {
    return { verification: verify.verifyEvidence(subject, match, verified, ctx) };
  } catch (e) {
    if (!(e instanceof verify.SignatureVerificationError) || e.reason === 'key-file') throw e;
    return { why: `keeps signature evidence that does not verify (${e.detail})` };
  }
}

/** 1-based line of the `- image:` entry for `image` in a lock text as serializeLock writes it. */
function lockImageLine(text: string, image: string): number | undefined {
  const lines = text.split('\n');
  let inImages = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (/^[^\s-]/.test(line)) inImages = line === 'images:';
    if (!inImages) continue;
    const m = /^- image: (.*)$/.exec(line);
    if (m && m[1]!.trim().replace(/^(['"])(.*)\1$/, '$2') === image) return i + 1;
  }
  return undefined;
}
