/**
 * `capi-render check`: the CI gate. Re-renders every environment in memory from the committed
 * inputs and lock, and compares with the committed rendered/, gitops/ and capi-render.lock. Exit 1
 * with a short report on drift; nothing is written.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DriftError, error, type Diagnostic } from '../../errors.js';
import { compareTrees, type FileDrift } from '../../check/compare-output.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { listFiles } from '../../output/write.js';
import { isGitopsFileOf } from '../../render/gitops-stage.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

export const checkCommand: Command = {
  name: 'check',
  summary: 'verify that rendered/, gitops/ and capi-render.lock are exactly what the inputs render (for CI)',
  usage: '[--env NAME]... [--offline]',
  help: [...RENDER_FLAG_HELP],
  options: RENDER_FLAGS,
  async run(ctx) {
    const { io, repoRoot, color } = ctx;
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options);
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const names = result.environments.map((e) => e.environment.name);
    const partial = names.length !== result.allEnvironments.length;
    const rel = (p: string) => path.relative(repoRoot, p).split(path.sep).join('/');
    const drift: FileDrift[] = [
      ...compareTrees(result.files, await readTree(result.outputDir), rel(result.outputDir), (p) => !partial || names.includes(p.split('/')[0]!)),
      ...compareTrees(result.gitopsFiles, await readTree(result.gitopsDir), rel(result.gitopsDir), (p) => !partial || names.some((n) => isGitopsFileOf(p, n))),
    ];
    const lockChanges = describeLockChanges(prepared.lock, result.lock);
    if (drift.length === 0 && lockChanges.length === 0) {
      io.stderr.write(`check: ${names.length} environment${names.length === 1 ? '' : 's'} up to date (${result.files.size + result.gitopsFiles.size} files, capi-render.lock)\n`);
      return 0;
    }
    const diagnostics: Diagnostic[] = drift.map((d) =>
      error('drift', `${d.kind === 'edited' ? 'differs from what the inputs render (edited by hand, or inputs changed without a rebuild)' : d.kind === 'missing' ? 'missing (the inputs render it)' : 'stale (the inputs no longer render it)'}${d.details.length ? `:\n    ${d.details.join('\n    ')}` : ''}`, {
        file: d.file,
      }),
    );
    if (lockChanges.length > 0) {
      diagnostics.push(error('drift', `capi-render.lock is stale:\n    ${lockChanges.join('\n    ')}`, { file: 'capi-render.lock' }));
    }
    throw new DriftError(
      diagnostics.map((d, i) => (i === diagnostics.length - 1 ? { ...d, hint: 'run `capi-render build` and commit the result; hand edits belong in providers/ or overlays/' } : d)),
    );
  },
};

async function readTree(dir: string): Promise<Map<string, string>> {
  const files = await listFiles(dir);
  return new Map(await Promise.all(files.map(async (f) => [f, await fs.readFile(path.join(dir, f), 'utf8')] as [string, string])));
}
