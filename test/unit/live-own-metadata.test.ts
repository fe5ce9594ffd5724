/**
 * `check --live` never counts capi-render's own annotations and labels as changes, and counts every
 * other key capi-render writes. The keys are found in src/ itself (every `withAnnotation` and every
 * `setIn` on metadata.annotations/labels), so a key added there fails this test until
 * adopt/live/own-metadata.ts says whose it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLiveReport } from '../../src/adopt/live/live-report.js';
import { WRITTEN_METADATA } from '../../src/adopt/live/own-metadata.js';
import type { KubeObject } from 'capi-render';
import { REPO_ROOT } from '../helpers/fixtures.js';

const SRC = path.join(REPO_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Every metadata key src/ writes on an object, resolved from its constant. */
function writtenKeys(): Map<string, string> {
  const texts = sourceFiles(SRC).map((f) => ({ file: path.relative(REPO_ROOT, f), text: readFileSync(f, 'utf8') }));
  const constants = new Map<string, string>();
  for (const { text } of texts)
    for (const m of text.matchAll(/\bconst ([A-Z][A-Z0-9_]*) = '([^']+)'/g)) constants.set(m[1]!, m[2]!);
  const keys = new Map<string, string>();
  // A call may name its type argument (setIn<KubeObject>(…)).
  const WRITES = [
    /withAnnotation(?:<[^<>()]+>)?\([^,()]+,\s*([A-Z][A-Z0-9_]*|'[^']+')\s*,/g,
    /setIn(?:<[^<>()]+>)?\([^,()]+,\s*\['metadata',\s*'(?:annotations|labels)',\s*([A-Z][A-Z0-9_]*|'[^']+')\]/g,
  ];
  for (const { file, text } of texts) {
    if (file.startsWith('src/adopt/')) continue;
    for (const pattern of WRITES) {
      for (const m of text.matchAll(pattern)) {
        const key = m[1]!.startsWith("'") ? m[1]!.slice(1, -1) : constants.get(m[1]!);
        expect(key, `${file}: the constant ${m[1]} is not a string constant this test can read`).toBeDefined();
        keys.set(key!, file);
      }
    }
  }
  return keys;
}

const object = (
  annotations: Record<string, string>,
  labels: Record<string, string> = {},
  replicas = 1,
): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'capi-controller-manager',
    namespace: 'capi-system',
    annotations,
    labels: { 'cluster.x-k8s.io/provider': 'cluster-api', ...labels },
  },
  spec: { replicas },
});

const reportFor = (rendered: KubeObject, live: KubeObject) =>
  buildLiveReport(
    [{ name: 'cluster-api', objects: [rendered], files: ['rendered/mgmt/cluster-api/deployment.yaml'] }],
    { file: 'cluster.yaml', objects: [{ object: live, document: 1 }], hasManagedFields: false },
    { environment: 'mgmt', fieldManagers: [], variablesFile: 'capi-render.yaml' },
  );

const OWN = [...WRITTEN_METADATA].filter(([, owner]) => owner === 'own').map(([key]) => key);
const COMPARED = [...WRITTEN_METADATA].filter(([, owner]) => owner === 'clusterctl').map(([key]) => key);

describe('the metadata capi-render writes', () => {
  it("every key src/ writes on an object is classified (own, clusterctl's, or the server's)", () => {
    const keys = writtenKeys();
    // The scan works: it finds the nine keys written today (a new one adds to them).
    expect(keys.size).toBeGreaterThanOrEqual(9);
    for (const [key, file] of keys)
      expect(WRITTEN_METADATA.has(key), `${key} (written in ${file}) is not in adopt/live/own-metadata.ts`).toBe(true);
    // The Argo CD and Flux keys the GitOps stage writes are among them, and are capi-render's own.
    for (const key of [
      'argocd.argoproj.io/sync-wave',
      'argocd.argoproj.io/sync-options',
      'kustomize.toolkit.fluxcd.io/prune',
      'kustomize.toolkit.fluxcd.io/substitute',
    ]) {
      expect(keys.has(key), key).toBe(true);
      expect(WRITTEN_METADATA.get(key)).toBe('own');
    }
  });

  it.each(OWN)('%s: not live, or live with another value: never a change', (key) => {
    for (const live of [object({}), object({ [key]: 'another' })]) {
      const report = reportFor(object({ [key]: '1' }), live);
      expect(report.changed).toEqual([]);
      expect(report.ownMetadataOnly.map((o) => o.fields.map((f) => f.path))).toEqual([
        [`metadata.annotations[${JSON.stringify(key)}]`],
      ]);
      expect(report.clean).toBe(true);
    }
  });

  it.each(OWN)('%s beside a real change: only the real change is counted', (key) => {
    const report = reportFor(object({ [key]: '1' }, {}, 3), object({}, {}, 1));
    expect(report.changed.map((o) => o.fields.map((f) => f.path))).toEqual([['spec.replicas']]);
    expect(report.changed[0]!.ownFields?.map((f) => f.path)).toEqual([`metadata.annotations[${JSON.stringify(key)}]`]);
    expect(report.clean).toBe(false);
  });

  it.each(COMPARED)('%s (written as clusterctl writes it): a differing live value is a change', (key) => {
    const asAnnotation = reportFor(object({ [key]: 'rendered' }), object({ [key]: 'live' }));
    const asLabel = reportFor(object({}, { [key]: 'rendered' }), object({}, { [key]: 'live' }));
    for (const report of [asAnnotation, asLabel]) {
      expect(report.changed).toHaveLength(1);
      expect(report.clean).toBe(false);
    }
  });
});
