/**
 * Everything one build shares between its environments: configuration, the artifact store, the
 * schema validator, the parse cache and serialisation cache. Created per build, never global.
 */
import type { RenderConfig } from '../config/config-types.js';
import type { KubeObject } from '../manifest/object.js';
import type { ParseCache } from '../manifest/parse-cache.js';
import { createCachedSerializer, type CachedSerializer } from '../manifest/serialize.js';
import { createSharedObjects, type SharedObjects } from '../manifest/shared-objects.js';
import { BoundedMap } from '../bounded-map.js';
import { createDocumentParser, type DocumentParser } from './document-parser.js';
import type { ProviderValidator } from '../declarations/validate-providers.js';
import type { LockFile } from '../lock/lock-types.js';
import type { LockContradictionRule } from '../lock/lock-evidence.js';
import type { ImageResolver } from '../images/image-resolver.js';
import type { PinContext } from '../source/pinned-source.js';
import { ArtifactStore } from '../source/artifact-store.js';
import type { ProviderCatalog } from '../source/provider-source.js';
import type { ProviderComponents } from '../process/provider-components.js';
import { inventoryCrd } from '../process/inventory.js';
import { baselineOf } from '../baseline/baseline.js';
import { compileTemplate, type CompiledTemplate } from '../process/variables/index.js';

/**
 * The settings an environment's render reads from capi-render.yaml; the rest (folders, gitops,
 * sources) is read by the run once, before any environment.
 */
export type SessionSettings = Pick<
  RenderConfig,
  'repositories' | 'variables' | 'images' | 'secrets' | 'certManager' | 'emulate'
>;

/** What every environment of one build shares: the settings it reads, the sources, the lock, and the per-build caches. */
export interface RenderSession {
  repoRoot: string;
  config: SessionSettings;
  env: Readonly<Record<string, string | undefined>>;
  validator: ProviderValidator;
  catalog: ProviderCatalog;
  store: ArtifactStore;
  /** The lock the build started from. */
  lock: LockFile;
  /** Its text (for line numbers) and what to do with an entry the inputs contradict (lock-evidence.ts). */
  lockEvidence: { text: string | undefined; rule: LockContradictionRule };
  /** Image digests for the pinning stage: from the lock, else resolved once per build. */
  images: ImageResolver;
  /** Lock, cache and offline rules applied to every source. */
  pin: PinContext;
  /** The folder `mirror --to` fills (absolute), which is not read while another source can serve a release. */
  fillingRepository?: string;
  /** Accept a lower minor version than the lock's (the operator never does). */
  allowDowngrade?: boolean;
  /** Parses texts and substituted templates once per build (and through the parse cache across builds). */
  parser: DocumentParser;
  /** One object for equal processed objects of every environment (see shared-objects.ts). */
  sharedObjects: SharedObjects;
  /** Serialisation shared by every environment's plan. */
  serializer: CachedSerializer;
  /** cert-manager's processed objects (and where `images:` sent its images) by artifact, version and images. */
  certManager: Map<string, { objects: KubeObject[]; releasedImages: Map<string, string[]> }>;
  /** Processed provider components by content and effective inputs (processed-components.ts); the most recent only. */
  components: BoundedMap<string, ProviderComponents>;
  /** A components text's template, parsed once per content key. */
  compile(key: string, text: string, source: string): CompiledTemplate;
  /** clusterctl's inventory CRD of the emulated clusterctl, read once per build (one object shared by every environment). */
  inventoryCrd(): KubeObject;
}

/**
 * Provider results remembered whole (same text, values, spec and images: nothing to do at all).
 * Bounded: with distinct values per environment every entry is new, and each holds its objects.
 */
const PROVIDER_MEMO_ENTRIES = 64;

export function createSession(
  init: Omit<
    RenderSession,
    'store' | 'parser' | 'sharedObjects' | 'serializer' | 'certManager' | 'components' | 'inventoryCrd' | 'compile'
  > & { store?: ArtifactStore; parseCache?: ParseCache },
): RenderSession {
  let crd: KubeObject | undefined;
  const templates = new Map<string, CompiledTemplate>();
  return {
    ...init,
    store: init.store ?? new ArtifactStore(),
    parser: createDocumentParser(init.parseCache),
    sharedObjects: createSharedObjects(),
    serializer: createCachedSerializer(),
    certManager: new Map(),
    components: new BoundedMap(PROVIDER_MEMO_ENTRIES),
    compile(key, text, source) {
      let template = templates.get(key);
      if (!template) {
        template = compileTemplate(text, source);
        templates.set(key, template);
      }
      return template;
    },
    inventoryCrd() {
      crd ??= inventoryCrd(baselineOf(init.config.emulate).inventoryCrdGenerator);
      return crd;
    },
  };
}
