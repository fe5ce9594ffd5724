/** Builders for throw-away capi-render repositories on disk, over the real fixtures. */
import { cpSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { FIXTURES, REPO_ROOT } from './fixtures.js';
import { tempDir } from './tmp.js';

/**
 * Config pointing at the bundled local repository (absolute path, so the temp repo needs no copy).
 * `before`: repositories searched ahead of it. Repositories are searched in order and the first one
 * holding a provider's label is its source, so a fixture tree for a label the bundled repository also
 * has (derived/tanzu-framework: infrastructure-aws, infrastructure-vsphere) must come first.
 */
export function configYaml(extra = '', before: readonly string[] = []): string {
  const repositories = [...before, `${FIXTURES}repository`].map((p) => `  - path: ${p}\n`).join('');
  return `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n${repositories}${extra}`;
}

export const CORE = (version = 'v1.12.0', namespace = 'capi-system', extraSpec = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: ${namespace}\nspec:\n  version: ${version}\n${extraSpec}`;

/** A temp repository with the given files (capi-render.yaml defaults to the fixture repository). */
export function makeRepo(files: Record<string, string>, dir: string = tempDir()): string {
  const all = { 'capi-render.yaml': configYaml(), ...files };
  for (const [rel, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * A temp copy of this repository's own example (capi-render.yaml, providers/, overlays/, fixtures);
 * with `committed`, also its rendered output, gitops/ and lock. `dir` (default: a temp dir removed
 * after the test) is where, for a copy shared by a whole suite.
 */
export function copyExample(options: { committed?: boolean; dir?: string } = {}): string {
  const dir = options.dir ?? tempDir();
  const extra = options.committed ? ['rendered', 'gitops', 'capi-render.lock'] : [];
  for (const entry of ['capi-render.yaml', 'providers', 'overlays', 'test/fixtures/repository', ...extra]) {
    const from = path.join(REPO_ROOT, entry);
    try {
      statSync(from);
    } catch {
      continue;
    }
    cpSync(from, path.join(dir, entry), { recursive: true });
  }
  return dir;
}

/** path → sha256 of every file under dir (for "left untouched" assertions). */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    let entries: string[];
    try {
      entries = readdirSync(path.join(dir, rel));
    } catch {
      return;
    }
    for (const e of entries.sort()) {
      const child = rel ? `${rel}/${e}` : e;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else
        out[child] = createHash('sha256')
          .update(readFileSync(path.join(dir, child)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

/** path → text of every file under dir, paths relative and `/`-separated, in name order. */
export function filesUnder(dir: string, rel = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const child = rel ? `${rel}/${name}` : name;
    if (statSync(path.join(dir, child)).isDirectory()) for (const [k, v] of filesUnder(dir, child)) out.set(k, v);
    else out.set(child, readFileSync(path.join(dir, child), 'utf8'));
  }
  return out;
}
