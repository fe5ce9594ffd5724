/**
 * A damaged output fingerprint in the cache (output/fingerprint-record.ts) is no fingerprint: the
 * next build renders every environment — the no-op bundle and the CLI alike never skip on it — and
 * repairs a hand edit it can no longer see.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (i: number) =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: ":${8000 + i}"\n`;
const DEPLOYMENT = 'rendered/a/cluster-api/deployment-capi-controller-manager.yaml';

describe('a damaged output fingerprint', () => {
  const damages: { name: string; damage: (text: string) => string }[] = [
    { name: 'truncated', damage: (t) => t.slice(0, Math.floor(t.length / 3)) },
    { name: 'emptied', damage: () => '' },
    { name: 'an index out of range', damage: (t) => t.replace(/"a\/cluster-api":\[\d+/, '"a/cluster-api":[99999') },
  ];
  for (const d of damages) {
    it(`${d.name}: the next build renders every environment and repairs a same-size edit`, async () => {
      const cache = tempDir();
      const dir = makeRepo({
        'providers/core.yaml': CORE(),
        'overlays/a/overlay.yaml': overlay(1),
        'overlays/b/overlay.yaml': overlay(2),
      });
      const env = { CAPI_RENDER_CACHE_DIR: cache };
      const first = await runCli(['build'], { cwd: dir, env });
      expect(first.code).toBe(0);
      const built = snapshotTree(dir);
      const [record] = readdirSync(path.join(cache, 'outputs'));
      const file = path.join(cache, 'outputs', record!);
      writeFileSync(file, d.damage(readFileSync(file, 'utf8')));
      const deployment = path.join(dir, DEPLOYMENT);
      writeFileSync(deployment, readFileSync(deployment, 'utf8').replace('--leader-elect', '--leader-elekt'));
      const r = await runCli(['build'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/unchanged since the last build/);
      expect(r.stderr).toMatch(/rendered a: .*\nrendered b:/);
      expect(snapshotTree(dir)).toEqual(built);
      // The build recorded a sound fingerprint again: the next one is a no-op, counting every file the first build wrote.
      const noop = await runCli(['build'], { cwd: dir, env });
      expect(noop.stderr).toMatch(/^unchanged since the last build/);
      const written = /rendered: (\d+) written/.exec(first.stderr)?.[1];
      expect(Number(written)).toBeGreaterThan(100);
      expect(noop.stderr).toContain(`rendered: 0 written, ${written} unchanged, 0 removed`);
    });
  }
});
