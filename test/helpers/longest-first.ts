/**
 * Vitest's file order: longest first, so that three workers finish together instead of one running
 * a long file alone at the end. Vitest does this itself from the durations it cached on the last run
 * (node_modules/.vite); a fresh clone (every CI run) has none, and vitest then orders by file size,
 * which put the 30-second fuzz campaign last. test/durations.json holds the seconds each file over 5 s
 * took from a fresh clone; only their order matters (regenerate it with scripts/test-durations.mjs).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known = JSON.parse(readFileSync(path.join(root, 'test/durations.json'), 'utf8')) as Record<string, number>;
    const seconds = (spec: TestSpecification): number => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return cached ? cached.duration / 1000 : (known[file] ?? 0);
    };
    return [...files].sort((a, b) => seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
  }
}
