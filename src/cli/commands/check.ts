/**
 * `capi-render check`: the CI gate. Re-renders every environment in memory from the committed
 * inputs and lock, and compares with the committed rendered/, gitops/ and capi-render.lock. Exit 1
 * with a short report on drift; nothing is written.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DriftError, UsageError, error, warning, type Diagnostic } from '../../errors.js';
import { OWNERSHIP_FILE, ownershipText, parseOwnership } from '../../output/ownership.js';
import { normalizeInputText } from '../../spec/input-text.js';
import { compareTrees, type FileDrift } from '../../check/compare-output.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { listFiles } from '../../output/list-files.js';
import { isGitopsFileOf } from '../../render/gitops-stage.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

export const checkCommand: Command = {
  name: 'check',
  summary: 'verify that rendered/, gitops/ and capi-render.lock are exactly what the inputs render (for CI); with --live, what the first sync to a running cluster would change',
  usage: '[--env NAME]... [--offline] | --live FILE [--env NAME] [--json] [--field-manager NAME]',
  help: [
    ...RENDER_FLAG_HELP,
    ['--live FILE', 'instead: compare one environment with a kubectl dump of the running cluster, as a server-side apply would (exit 0 when the first sync changes nothing but capi-render\'s own annotations)'],
    ['--json', 'with --live: print the report as JSON on stdout'],
    ['--field-manager NAME', 'with --live: the applier\'s field manager, whose earlier applies make removals possible (default argocd-controller and kustomize-controller)'],
  ],
  options: { ...RENDER_FLAGS, live: { type: 'string' }, json: { type: 'boolean' }, 'field-manager': { type: 'string' } },
  async run(ctx) {
    const { io, repoRoot, color, values } = ctx;
    if (values.live !== undefined) return (await import('./check-live.js')).runLiveCheck(ctx);
    if (values.json || values['field-manager'] !== undefined) throw new UsageError('--json and --field-manager go with --live FILE');
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options);
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const names = result.environments.map((e) => e.environment.name);
    const partial = names.length !== result.allEnvironments.length;
    const rel = (p: string) => path.relative(repoRoot, p).split(path.sep).join('/');
    const rendered = await readOutputFolder(result.outputDir);
    const gitops = await readOutputFolder(result.gitopsDir);
    const drift: FileDrift[] = [
      ...compareTrees(result.files, rendered.files, rel(result.outputDir), (p) => rendered.owned(p) && (!partial || names.includes(p.split('/')[0]!))),
      ...compareTrees(result.gitopsFiles, gitops.files, rel(result.gitopsDir), (p) => gitops.owned(p) && (!partial || names.some((n) => isGitopsFileOf(p, n)))),
      ...(partial ? [] : [...recordDrift(result.files, rendered, rel(result.outputDir)), ...recordDrift(result.gitopsFiles, gitops, rel(result.gitopsDir))]),
    ];
    const foreign = [...rendered.foreign.map((f) => `${rel(result.outputDir)}/${f}`), ...gitops.foreign.map((f) => `${rel(result.gitopsDir)}/${f}`)];
    if (foreign.length > 0) io.stderr.write(formatDiagnostics([warning('output-location', `not written by capi-render (ignored): ${foreign.join(', ')}`)], { color }));
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

interface CommittedFolder {
  /** File texts, CRLF read as LF (a Windows checkout of the same commit is not drift). */
  files: Map<string, string>;
  /** The ownership record's text, when there is one. */
  recordText: string | undefined;
  /** Whether capi-render wrote this file (everything, for a folder from before ownership records). */
  owned: (relative: string) => boolean;
  /** Files the record does not list. */
  foreign: string[];
}

async function readOutputFolder(dir: string): Promise<CommittedFolder> {
  const list = await listFiles(dir);
  const files = new Map(await Promise.all(list.map(async (f) => [f, normalizeInputText(await fs.readFile(path.join(dir, f), 'utf8'))] as [string, string])));
  const recordText = await fs.readFile(path.join(dir, OWNERSHIP_FILE), 'utf8').catch(() => undefined);
  const record = recordText === undefined ? undefined : parseOwnership(recordText);
  const owned = (f: string) => !record || record.files.has(f);
  return { files, recordText, owned, foreign: list.filter((f) => !owned(f)) };
}

/** The ownership record must list exactly the files the inputs render. */
function recordDrift(planned: ReadonlyMap<string, string>, committed: CommittedFolder, prefix: string): FileDrift[] {
  if (planned.size === 0 && committed.recordText === undefined) return [];
  const file = `${prefix}/${OWNERSHIP_FILE}`;
  if (committed.recordText === undefined) return [{ file, kind: 'missing', details: [] }];
  const expected = ownershipText(planned.keys());
  return normalizeInputText(committed.recordText) === expected || (planned.size === 0 && parseOwnership(committed.recordText).files.size === 0)
    ? []
    : [{ file, kind: 'edited', details: ['the list of files capi-render wrote differs from what the inputs render'] }];
}
