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
  /**
   * Parses a components text once per distinct content, however many environments render it; a
   * text without secret values is also kept in the on-disk parse cache for later builds.
   */
  parse(text: string, source: string, options: ParseOptions): Resource[];
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

/** What the caller of {@link RenderSession.parse} knows about the text. */
export interface ParseOptions {
  /**
   * A value from a secret source (a provider's configSecret, a variable mapped `fromEnv`) was
   * substituted into the text. Required, so that no caller can forget to say.
   */
  secret: boolean;
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
    parse(text, source, options) {
      const key = createHash('sha256').update(text).digest('hex');
      let resources = parsed.get(key);
      if (resources) return resources;
      // The rule that keeps secrets off disk: a text that had a secret-sourced value substituted
      // into it is parsed in memory only. Why this rule:
      // - an entry is keyed by the substituted text and holds the objects parsed from it, so it
      //   holds every substituted value verbatim — and the cache folder is saved by CI
      //   (actions/cache) and read by nobody who would notice (issue 17);
      // - caching before substitution instead is not possible here: clusterctl substitutes on the
      //   raw text (a value may change the YAML's structure), so parsing must follow substitution;
      // - the decision goes by where values came from, not by searching the text for them: string
      //   functions (`${V:0:8}`, `${V^^}`, `${V/#p/r}`) put transformed pieces of a value in the text;
      // - it ignores the secret guard's mode and its "not sensitive" exemptions: those decide what
      //   may go to git, where it is reviewed; the cache is a side channel nobody reviews.
      // The cost is parsing such a text once per build (still once for every environment); every
      // other text — cert-manager, providers without secret values — is cached as before.
      if (options.secret) {
        resources = parseManifests(text, source);
        // A build in which the same values came from files (before the user moved one to a secret
        // source) may have cached this very text: once a value is secret, the cache keeps no copy.
        init.parseCache?.delete(key);
      } else {
        resources = init.parseCache?.get(key, source);
        if (!resources) {
          resources = parseManifests(text, source);
          init.parseCache?.put(key, resources);
        }
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
