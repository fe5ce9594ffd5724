/**
 * `capi-render import` end to end under a power cut: the real command, in process, its
 * writes into the repository recorded through CliIo.durableFs (test/helpers/power-loss-fs.ts). After
 * a cut following any one call, as a kill and as power losses under the disk model, every input file
 * is exactly as before or exactly as the import writes it, and the next import (same flags) leaves
 * exactly the uninterrupted result, no staging file behind.
 */
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import type { DurableFs } from '../../src/durable-replace.js';
import { dumpItems, writeDump } from '../helpers/live-dump-files.js';
import { powerLossFs, survivals } from '../helpers/power-loss-fs.js';
import { makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

type Files = Record<string, string>;
type Obj = Record<string, any>;

/** The inventory and cert-manager objects of the v1.12.0 clusterctl dump: all import reads. */
let small: Obj[];
beforeAll(() => {
  small = dumpItems('clusterctl-v1.12.0').filter(
    (o) => o.kind === 'Provider' || (o.kind === 'Deployment' && o.metadata.namespace === 'cert-manager'),
  );
});

/** Runs `capi-render import` in `repo`; exit code and stderr. */
async function importIn(
  repo: string,
  cache: string,
  args: string[],
  durableFs?: DurableFs,
): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await run(['import', ...args, '--repo', repo], {
    stdout: { write: () => undefined },
    stderr: { write: (t) => void (stderr += t) },
    env: { CAPI_RENDER_CACHE_DIR: cache },
    cwd: repo,
    ...(durableFs ? { durableFs } : {}),
  });
  return { code, stderr };
}

/** The repository's files but the dump, path → bytes; `hidden` lists staging leftovers separately. */
function inputs(repo: string): { files: Files; hidden: string[] } {
  const files: Files = {};
  const hidden: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(repo, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(repo, child)).isDirectory()) walk(child);
      else if (name.startsWith('.')) hidden.push(child);
      else if (child !== 'dump.yaml') files[child] = readFileSync(path.join(repo, child), 'utf8');
    }
  };
  walk('');
  return { files, hidden };
}

function expectOldOrNew(found: Files, before: Files, after: Files, label: string): void {
  for (const p of new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(found)])) {
    expect([before[p], after[p]], `${label}: ${p}`).toContain(found[p]);
  }
}

describe('import: a power cut after any write call leaves each input file old or new, and the next import finishes', () => {
  // A file --force replaces, three new ones beside it, and an overlay in two new folders (--env).
  const scenarios: [string, Files, string[]][] = [
    ['import --force over an existing declaration', { 'providers/cluster-api.yaml': '# mine\n' }, ['--force']],
    ['import --env prod: an overlay in new folders', {}, ['--env', 'prod']],
  ];
  it.each(scenarios)('%s', async (_name, files, flags) => {
    const base = makeRepo(files);
    writeDump(base, 'dump.yaml', small);
    const cache = tempDir();
    const args = ['--from', 'dump.yaml', ...flags];
    if (flags.includes('--env')) {
      // The base declarations first, so that the overlay holds the differences.
      const first = await importIn(base, cache, ['--from', 'dump.yaml']);
      expect(first.code, first.stderr).toBe(0);
    }
    const before = inputs(base).files;
    const reference = tempDir();
    cpSync(base, reference, { recursive: true });
    const full = powerLossFs(reference, { modelOnly: true });
    const done = await importIn(reference, cache, args, full.tfs);
    expect(done.code, done.stderr).toBe(0);
    const after = inputs(reference).files;
    expect(Object.keys(after).filter((f) => after[f] !== before[f]).length).toBeGreaterThanOrEqual(1);
    const total = full.calls.length;
    const decided = full.calls.findLastIndex((c) => c.op !== 'rm') + 1;
    expect(full.calls.filter((c) => c.op === 'syncFile').length).toBeGreaterThanOrEqual(1);

    let checked = 0;
    for (let cut = 0; cut <= total; cut++) {
      const repo = tempDir();
      cpSync(base, repo, { recursive: true });
      const rec = powerLossFs(repo, { cutAfter: cut, modelOnly: true });
      const cutRun = await importIn(repo, cache, args, rec.tfs);
      // A cut before the last placement's folder fsync fails the import; the removals of backups after it are best effort.
      if (cut < decided) expect(cutRun.code, `cut after ${cut}: ${cutRun.stderr}`).toBe(1);
      const states: [string, string][] = [[`killed after call ${cut}`, repo]];
      for (const [survival, model] of Object.entries(survivals(cut))) {
        const lost = tempDir();
        rec.materializePowerLoss(lost, model);
        states.push([`power lost after call ${cut} (${survival})`, lost]);
      }
      for (const [label, state] of states) {
        expectOldOrNew(inputs(state).files, before, after, label);
        const again = await importIn(state, cache, args);
        expect(again.code, `${label}, then import again: ${again.stderr}`).toBe(0);
        expect(inputs(state), `${label}, then import again`).toEqual({ files: after, hidden: [] });
        checked++;
      }
    }
    expect(checked).toBe((total + 1) * 4);
  });
});
