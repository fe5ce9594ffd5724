/**
 * Everything one build shares between its environments: configuration, the artifact store, the
 * schema validator, the parse cache and serialisation cache. Created per build, never global.
 */
import { createHash } from 'node:crypto';
import type { RenderConfig } from '../config/config-types.js';
import type { KubeObject } from '../manifest/object.js';
import { parseManifests } from '../manifest/parse.js';
import type { ParseCache } from '../manifest/parse-cache.js';
import { createCachedSerializer, type CachedSerializer } from '../manifest/serialize.js';
import type { Resource } from '../manifest/resource.js';
import type { ProviderValidator } from '../spec/validate-providers.js';
import type { LockFile } from '../lock/lock-types.js';
import type { PinContext } from './pinned-source.js';
import { ArtifactStore } from './artifact-store.js';
import type { ProviderCatalog } from './provider-source.js';
import type { ProviderComponents } from '../process/provider-components.js';
import { inventoryCrd } from '../process/inventory.js';
import { compileTemplate, type CompiledTemplate } from '../process/variables/index.js';

export interface RenderSession {
  repoRoot: string;
  config: RenderConfig;
  env: Readonly<Record<string, string | undefined>>;
  validator: ProviderValidator;
  catalog: ProviderCatalog;
  store: ArtifactStore;
  /** The lock the build started from. */
  lock: LockFile;
  /** Lock, cache and offline rules applied to every source. */
  pin: PinContext;
  /** Accept a lower minor version than the lock's (the operator never does). */
  allowDowngrade?: boolean;
  /** Parses a components text once per distinct content, however many environments render it. */
  parse(text: string, source: string): Resource[];
  /** Serialisation shared by every environment's plan. */
  serializer: CachedSerializer;
  /** cert-manager's processed objects by artifact, version and images. */
  certManager: Map<string, KubeObject[]>;
  /** Processed provider components by content (see ProviderComponentsInput.memo). */
  components: Map<string, ProviderComponents>;
  /** A components text's template, parsed once per content key. */
  compile(key: string, text: string, source: string): CompiledTemplate;
  /** clusterctl's inventory CRD, read once per build (one object shared by every environment). */
  inventoryCrd(): KubeObject;
}

export function createSession(
  init: Omit<RenderSession, 'store' | 'parse' | 'serializer' | 'certManager' | 'components' | 'inventoryCrd' | 'compile'> & { store?: ArtifactStore; parseCache?: ParseCache },
): RenderSession {
  const parsed = new Map<string, Resource[]>();
  let crd: KubeObject | undefined;
  const templates = new Map<string, CompiledTemplate>();
  return {
    ...init,
    store: init.store ?? new ArtifactStore(),
    parse(text, source) {
      const key = createHash('sha256').update(text).digest('hex');
      let resources = parsed.get(key) ?? init.parseCache?.get(key, source);
      if (!resources) {
        resources = parseManifests(text, source);
        init.parseCache?.put(key, resources);
      }
      parsed.set(key, resources);
      return resources;
    },
    serializer: createCachedSerializer(),
    certManager: new Map(),
    components: new Map(),
    compile(key, text, source) {
      let template = templates.get(key);
      if (!template) {
        template = compileTemplate(text, source);
        templates.set(key, template);
      }
      return template;
    },
    inventoryCrd() {
      crd ??= inventoryCrd();
      return crd;
    },
  };
}
