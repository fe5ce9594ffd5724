/**
 * Everything one build shares between its environments: configuration, the artifact store, the
 * schema validator, the parse cache and serialisation cache. Created per build, never global.
 */
import { createHash } from 'node:crypto';
import type { RenderConfig } from '../config/config-types.js';
import type { KubeObject } from '../manifest/object.js';
import { parseManifests } from '../manifest/parse.js';
import type { Resource } from '../manifest/resource.js';
import type { ProviderValidator } from '../spec/validate-providers.js';
import type { LockFile } from '../lock/lock-types.js';
import type { PinContext } from './pinned-source.js';
import { ArtifactStore } from './artifact-store.js';
import type { ProviderCatalog } from './provider-source.js';

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
  /** Serialised text per object identity, shared by every environment's plan. */
  serialized: WeakMap<KubeObject, string>;
}

export function createSession(init: Omit<RenderSession, 'store' | 'parse' | 'serialized'> & { store?: ArtifactStore }): RenderSession {
  const parsed = new Map<string, Resource[]>();
  return {
    ...init,
    store: init.store ?? new ArtifactStore(),
    parse(text, source) {
      const key = createHash('sha256').update(text).digest('hex');
      let resources = parsed.get(key);
      if (!resources) {
        resources = parseManifests(text, source);
        parsed.set(key, resources);
      }
      return resources;
    },
    serialized: new WeakMap(),
  };
}
