/**
 * `capi-render diff`: the object-level diff and safety report between the rendered output committed
 * at a git revision (default HEAD) and the working tree's, with contract changes from the two
 * capi-render.lock files. A report: exit 0 whether or not anything changed.
 */
import { SpecError, error } from '../../errors.js';
import { formatReportMarkdown } from '../../diff/format-markdown.js';
import { formatDiffText } from '../../diff/format-text.js';
import { refuseIrregularRepositoryFiles } from '../../output/regular-files.js';
import { hasInterruptedWrite } from '../../output/transaction.js';
import { compareWithRevision } from '../../upgrade/compare-revision.js';
import { storageMigrationFindings } from '../../upgrade/upgrade-report.js';
import type { Command } from '../command.js';

export const diffCommand: Command = {
  name: 'diff',
  summary: 'object-level diff and upgrade safety report of rendered/ against a git revision (default HEAD)',
  usage: '[--base REF] [--env NAME]... [--markdown]',
  help: [
    ['--base REF', 'the revision to compare with (branch, tag or commit; default HEAD)'],
    ['--env NAME', 'only this environment (repeatable)'],
    ['--markdown', 'print the report as markdown (for a pull request or CI summary)'],
  ],
  options: { base: { type: 'string' }, env: { type: 'string', multiple: true }, markdown: { type: 'boolean' } },
  async run({ io, values, repoRoot, color }) {
    if (await hasInterruptedWrite(repoRoot)) {
      throw new SpecError(error('write', 'an interrupted build left its output half-installed', { hint: 'run `capi-render build`: it finishes the interrupted write first' }));
    }
    await refuseIrregularRepositoryFiles(repoRoot);
    const { report } = await compareWithRevision({
      repoRoot,
      base: String(values.base ?? 'HEAD'),
      environments: (values.env as string[] | undefined) ?? [],
      processEnv: io.env,
    });
    io.stdout.write(values.markdown ? formatReportMarkdown(report.changes, report.findings) : formatDiffText(report.changes, report.findings, { color }));
    const storage = storageMigrationFindings(report.findings);
    if (storage.length > 0) {
      io.stderr.write(`${storage.length} finding(s) remove or stop serving CRD versions objects may still be stored in: do their steps before syncing (capi-render upgrade refuses these without --confirm-storage-migration)\n`);
    }
    return 0;
  },
};
