/**
 * Every record proves itself: each leaf of capi-render.lock (the example's, and one with pinned,
 * key-verified images from a registry this test starts) and each line of both ownership records is
 * edited three ways — another valid value of its kind, deleted, its entry duplicated — and put
 * through `check` and `build` (record-cases.ts says what must hold). npm test runs one leaf of
 * each pattern (and, for the pinned lock, each kind); RECORDS_ALL=1 runs every leaf and every kind
 * and prints the count per outcome.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestSigstore, signImageLegacy, type KeySigner } from '../helpers/cosign-signatures.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';
import { runCase, type CaseResult, type Scenario } from './record-cases.js';
import {
  lockMutations,
  onePerPattern,
  ownershipMutations,
  representatives,
  type Leaf,
  type RecordMutation,
} from './record-mutations.js';

const ALL = process.env.RECORDS_ALL === '1';
const skipRegistry = skipWithout(registryUnavailableReason(), 'the record property test of pinned, verified images');

/** Other valid values for the leaves of the example's lock: another environment's, provider's or artifact's value of the same field. */
function otherOf(extra: Record<string, Leaf['value']> = {}) {
  return (leaf: Leaf, all: Leaf[]): Leaf['value'] | undefined => {
    if (extra[leaf.pattern] !== undefined && extra[leaf.pattern] !== leaf.value) return extra[leaf.pattern];
    const sibling = all.find((l) => l.pattern === leaf.pattern && l.value !== leaf.value);
    return sibling?.value;
  };
}

function mutationsOf(
  repo: string,
  extra: Record<string, Leaf['value']> = {},
  sample: (all: RecordMutation[]) => RecordMutation[] = representatives,
): RecordMutation[] {
  const lock = lockMutations(
    'capi-render.lock',
    readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'),
    otherOf(extra),
  );
  // Every build owns rendered/; gitops/ only with a GitOps flavour configured.
  const records = ['rendered/.capi-render-owned', 'gitops/.capi-render-owned'].filter(
    (record) => !record.startsWith('gitops/') || existsSync(path.join(repo, record)),
  );
  const owned = records.flatMap((record) => {
    const text = readFileSync(path.join(repo, record), 'utf8');
    const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
    // Another valid value: the path of another file the record lists.
    return ownershipMutations(
      record,
      text,
      (line) => lines.find((l) => l !== line && l.split('/')[0] === line.split('/')[0]) ?? `${line}.moved`,
    );
  });
  const all = [...lock, ...owned];
  return ALL ? all : sample(all);
}

function report(name: string, results: readonly CaseResult[]): void {
  if (process.env.RECORDS_VERBOSE)
    for (const r of results)
      console.info(
        `${r.outcome.padEnd(20)} ${r.mutation.record} ${r.mutation.leaf} (${r.mutation.kind}) check=${r.checkCode} build=${r.buildCode} ${r.firstLine}${r.why ? ` — ${r.why}` : ''}`,
      );
  const counts: Record<string, number> = {};
  for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  const leaves = new Set(results.map((r) => `${r.mutation.record} ${r.mutation.leaf}`)).size;
  console.info(`records ${name}: ${leaves} leaves, ${results.length} edits: ${JSON.stringify(counts)}`);
}

async function runAll(scenario: Scenario, mutations: readonly RecordMutation[]): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  // An edit that leaves the text as it is (a field outside any list, duplicated) is not run.
  const text = (record: string) => readFileSync(path.join(scenario.repo, record), 'utf8');
  for (const m of mutations.filter((m) => m.apply(text(m.record)) !== text(m.record)))
    results.push(await runCase(scenario, m));
  report(scenario.name, results);
  return results;
}

function violations(results: readonly CaseResult[]): string[] {
  return results
    .filter((r) => r.outcome === 'VIOLATION')
    .map((r) => `${r.mutation.record} ${r.mutation.leaf} (${r.mutation.kind}): ${r.why}`);
}

describe('every record proves itself', () => {
  it(
    'the example: every leaf of its lock and every line of its ownership records',
    async () => {
      const repo = copyExample({ committed: true, dir: suiteTempDir('capi-render-records-example-') });
      const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
      const built = await runCli(['build'], { cwd: repo, env });
      expect(built.code, built.stderr).toBe(0);
      const scenario: Scenario = { name: 'example', repo, env, reference: snapshotTree(repo), authoritative: {} };
      // Its builds are the slowest (two environments, five providers, two GitOps flavours): npm test
      // edits one leaf of each pattern, each kind of edit in turn; the pinned scenario below runs every kind.
      const results = await runAll(scenario, mutationsOf(repo, {}, onePerPattern));
      expect(violations(results)).toEqual([]);
    },
    ALL ? 3_600_000 : 600_000,
  );

  describe.skipIf(skipRegistry)('pinned, key-verified images', () => {
    let registry: TestRegistry;
    let key: KeySigner;
    const dir = suiteTempDir('capi-render-records-images-');
    beforeAll(async () => {
      registry = await startRegistry();
      key = (await createTestSigstore(path.join(dir, 'sigstore'))).key();
    });
    afterAll(async () => {
      await registry?.stop();
    });

    it(
      'every leaf of a lock with pinned images, their verification evidence and a version range',
      async () => {
        const signed = await pushTestImage(registry.host, 'records/cluster-api-controller', 'v1.12.0');
        await signImageLegacy(registry.host, 'records/cluster-api-controller', signed.digest, key);
        const otherSigned = await pushTestImage(registry.host, 'records/cluster-api-controller', 'v1.12.0-other', {
          layers: 3,
        });
        await signImageLegacy(registry.host, 'records/cluster-api-controller', otherSigned.digest, key);
        const unsigned = await pushTestImage(registry.host, 'records/cluster-api-controller', 'unsigned', {
          layers: 4,
        });
        const config = [
          'apiVersion: capi-render/v1alpha1',
          'kind: Config',
          'certManager:',
          '  install: false',
          'repositories:',
          `  - path: ${FIXTURES}repository`,
          'images:',
          `  all: {repository: ${registry.host}/records}`,
          'imagePolicy:',
          '  pinDigests: true',
          `  insecureRegistries: [${registry.host}]`,
          '  verify:',
          '    - images: "registry.k8s.io/cluster-api/*"',
          '      key: keys/cosign.pub',
          '',
        ].join('\n');
        const core =
          'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: ">=1.11.0"\n';
        const repo = makeRepo({ 'capi-render.yaml': config, 'providers/core.yaml': core }, path.join(dir, 'repo'));
        mkdirSync(path.join(repo, 'keys'), { recursive: true });
        writeFileSync(path.join(repo, 'keys/cosign.pub'), key.publicKeyPem);
        const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
        const built = await runCli(['build'], { cwd: repo, env });
        expect(built.code, built.stderr).toBe(0);
        expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toContain(`digest: ${signed.digest}`);
        const offlineCheck = async (at: string) => {
          const r = await runCli(['check', '--offline'], { cwd: at, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
          return r.code === 0 ? undefined : `check --offline after the build: ${r.stderr.split('\n')[0]}`;
        };
        const scenario: Scenario = {
          name: 'pinned images',
          repo,
          env,
          reference: snapshotTree(repo),
          // Which image runs, and which release a range picked: kept, as long as the evidence proves the
          // digest and every policy holds (check --offline verifies the evidence with no registry).
          authoritative: { 'images[].digest': offlineCheck, 'environments[].providers[].version': offlineCheck },
        };
        const mutations = mutationsOf(repo, {
          'images[].digest': unsigned.digest,
          'environments[].providers[].version': 'v1.11.0',
        });
        // The digest edited to another image that is signed: a choice the lock may make, still verified.
        const lockText = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
        const toOther = lockMutations('capi-render.lock', lockText, (leaf) =>
          leaf.pattern === 'images[].digest' ? otherSigned.digest : undefined,
        ).filter((m) => m.pattern === 'images[].digest' && m.kind === 'other-value');
        const results = await runAll(scenario, [...mutations, ...toOther]);
        expect(violations(results)).toEqual([]);
        cpSync(repo, path.join(dir, 'last'), { recursive: true });
      },
      ALL ? 3_600_000 : 600_000,
    );
  });
});
