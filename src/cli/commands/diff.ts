/**
 * `capi-render diff`: the object-level diff and safety report between the rendered output committed
 * at a git revision (default HEAD) and the working tree's, with contract changes from the two
 * capi-render.lock files. It opens with the summary table (what moves, findings per severity);
 * `--stat` prints only that. A report: exit 0 whatever it finds, unless `--fail-on` names a
 * severity a finding reaches (exit 1, after printing), so CI can gate on it.
 */
import { didYouMean } from '../../declarations/schema/suggest-field.js';
import { SpecError, UsageError, error } from '../../errors.js';
import { formatReportMarkdown } from '../../diff/format-markdown.js';
import { formatReviewText } from '../../diff/format-review-text.js';
import { buildSummaryRows, summaryTableMarkdown } from '../../diff/summary-table.js';
import type { FindingSeverity } from '../../diff/types.js';
import { refuseIrregularRepositoryFiles } from '../../output/regular-files.js';
import { hasInterruptedWrite } from '../../output/transaction.js';
import { compareWithRevision } from '../../upgrade/compare-revision.js';
import { lockedVersions, storageMigrationFindings } from '../../upgrade/upgrade-report.js';
import { defineCommand } from '../command.js';
import { RENDER_OPTIONS } from '../render-options.js';

/** The severities `--fail-on` takes, and what each fails on: that severity or worse. */
const FAIL_ON: Readonly<Record<string, readonly FindingSeverity[]>> = {
  danger: ['danger'],
  warning: ['danger', 'warning'],
};
const FAIL_ON_CHOICES = Object.keys(FAIL_ON);

export const diffCommand = defineCommand({
  name: 'diff',
  summary: 'object-level diff and upgrade safety report of rendered/ against a git revision (default HEAD)',
  options: {
    base: {
      type: 'string',
      value: 'REF',
      default: 'HEAD',
      help: 'the revision to compare with (branch, tag or commit; default HEAD)',
    },
    env: RENDER_OPTIONS.env,
    markdown: { type: 'boolean', help: 'print the report as markdown (for a pull request or CI summary)' },
    stat: {
      type: 'boolean',
      help: 'print only the summary table: per environment and provider, the version and contract it moves to and its findings per severity',
    },
    verbose: {
      type: 'boolean',
      help: 'also list the info findings that need no action and every field of changed CRDs (their schema changes)',
    },
    'fail-on': {
      type: 'string',
      value: 'SEVERITY',
      choices: FAIL_ON_CHOICES,
      help: 'exit 1 (after printing) when a finding of this severity or worse exists (warning: a warning or a danger), for a CI gate',
    },
  },
  async run({ io, values, repoRoot, color }) {
    const failOn = values['fail-on'];
    if (failOn !== undefined && !FAIL_ON_CHOICES.includes(failOn))
      throw new UsageError(
        `--fail-on must be one of ${FAIL_ON_CHOICES.join(', ')}${didYouMean(failOn, FAIL_ON_CHOICES)}`,
      );
    if (await hasInterruptedWrite(repoRoot)) {
      throw new SpecError(
        error('write', 'an interrupted build left its output half-installed', {
          hint: 'run `capi-render build`: it finishes the interrupted write first',
        }),
      );
    }
    await refuseIrregularRepositoryFiles(repoRoot);
    const environments = values.env;
    const { report, before, after } = await compareWithRevision({
      repoRoot,
      base: values.base,
      environments,
      processEnv: io.env,
    });
    const rows = buildSummaryRows(report.findings, lockedVersions(before, after, environments));
    const options = { verbose: values.verbose, stat: values.stat };
    const review = { rows, changes: report.changes, findings: report.findings };
    if (!values.markdown) io.stdout.write(formatReviewText(review, { color, ...options }));
    else if (!options.stat)
      io.stdout.write(formatReportMarkdown(report.changes, report.findings, { rows, verbose: options.verbose }));
    // --stat --markdown: the table; the text's one line when there is none (it is valid markdown too).
    else
      io.stdout.write(
        rows.length > 0 ? `${summaryTableMarkdown(rows).join('\n')}\n` : formatReviewText(review, { stat: true }),
      );
    const storage = storageMigrationFindings(report.findings);
    if (storage.length > 0) {
      io.stderr.write(
        `${storage.length} finding(s) remove or stop serving CRD versions objects may still be stored in: do their steps before syncing (capi-render upgrade refuses these without --confirm-storage-migration)\n`,
      );
    }
    const failing = failOn === undefined ? [] : report.findings.filter((f) => FAIL_ON[failOn]!.includes(f.severity));
    if (failing.length === 0) return 0;
    io.stderr.write(
      `diff: ${failing.length} ${failing.length === 1 ? 'finding' : 'findings'} of severity ${failOn} or worse (--fail-on ${failOn})\n`,
    );
    return 1;
  },
});
