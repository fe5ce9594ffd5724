/**
 * Every cache record a build trusts (output fingerprint, build stamp, parsed artifacts and locks,
 * validated inputs, and whatever else the example's cache holds) — deleted, a byte changed,
 * truncated, swapped for another entry of its folder, a leaf of a JSON record edited — never changes
 * what a build leaves: the output edited by hand since the last build is still repaired, and
 * `check` passes after. npm test damages each kind of entry each way once; RECORDS_ALL=1 every entry.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { suiteTempDir } from '../helpers/tmp.js';
import { cacheMutations } from './record-mutations.js';

const ALL = process.env.RECORDS_ALL === '1';

describe('every cache record a build trusts', () => {
  it(
    'damaged, deleted, swapped or edited, a cache record never changes what a build leaves (a hand edit of the output is still repaired)',
    async () => {
      const base = suiteTempDir('capi-render-records-cache-');
      const repo = path.join(base, 'repo');
      const cache = path.join(base, 'cache');
      copyExample({ committed: true, dir: repo });
      const env = { CAPI_RENDER_CACHE_DIR: cache };
      // Two builds: the first fills the caches, the second (a no-op) leaves the fingerprint and stamp as a developer has them.
      for (let i = 0; i < 2; i++) expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
      const reference = snapshotTree(repo);
      const pristineRepo = path.join(base, 'repo0');
      const pristineCache = path.join(base, 'cache0');
      cpSync(repo, pristineRepo, { recursive: true });
      cpSync(cache, pristineCache, { recursive: true });
      const mutations = cacheMutations(cache);
      // npm test: each way of damaging each kind of entry once, and a few edited leaves of the JSON records.
      const seen = new Set<string>();
      // Every damage of every entry; of a JSON record's leaves (an output fingerprint has four per file), the first 60.
      const perRecord = new Map<string, number>();
      const sample = ALL
        ? mutations.filter(
            (m) =>
              ['file', 'half', 'swapped'].includes(m.leaf) ||
              (perRecord.set(m.record, (perRecord.get(m.record) ?? 0) + 1).get(m.record) ?? 0) <= 60,
          )
        : mutations.filter((m) => {
            const key =
              m.leaf === 'file' || m.leaf === 'half' || m.leaf === 'swapped'
                ? `${m.pattern} ${m.leaf} ${m.kind}`
                : `${m.pattern.split(' ')[0]} json ${seen.size % 4}`;
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
      const results: { name: string; outcome: string }[] = [];
      const handEdited = 'rendered/prod/cluster-api/deployment-capi-controller-manager.yaml';
      for (const m of sample) {
        rmSync(repo, { recursive: true, force: true });
        rmSync(cache, { recursive: true, force: true });
        cpSync(pristineRepo, repo, { recursive: true });
        cpSync(pristineCache, cache, { recursive: true });
        const file = path.join(cache, m.record);
        writeFileSync(file, m.apply(readFileSync(file, 'latin1')), 'latin1');
        // The output edited by hand since the last build: whatever the cache says, the build repairs it.
        writeFileSync(
          path.join(repo, handEdited),
          readFileSync(path.join(repo, handEdited), 'utf8').replace(/replicas: \d+/, 'replicas: 7'),
        );
        const build = await runCli(['build'], { cwd: repo, env });
        const repaired = build.code === 0 && JSON.stringify(snapshotTree(repo)) === JSON.stringify(reference);
        const check = await runCli(['check'], { cwd: repo, env });
        const outcome =
          repaired && check.code === 0
            ? 're-derived'
            : `VIOLATION: build ${build.code} (${build.stderr.split('\n')[0]}), check ${check.code}`;
        results.push({ name: `${m.record} ${m.leaf} (${m.kind})`, outcome });
        if (process.env.RECORDS_VERBOSE) console.info(`${outcome.padEnd(12)} ${m.record} ${m.leaf} (${m.kind})`);
      }
      const counts: Record<string, number> = {};
      for (const r of results)
        counts[r.outcome.startsWith('VIOLATION') ? 'VIOLATION' : r.outcome] =
          (counts[r.outcome.startsWith('VIOLATION') ? 'VIOLATION' : r.outcome] ?? 0) + 1;
      console.info(
        `records cache: ${new Set(sample.map((m) => m.record)).size} cache files, ${results.length} edits: ${JSON.stringify(counts)}`,
      );
      expect(results.filter((r) => r.outcome !== 're-derived')).toEqual([]);
    },
    ALL ? 3_600_000 : 600_000,
  );
});
