/**
 * `capi-render report`: one self-contained HTML page with the fleet's versions (the `plan` data as a
 * providers × environments matrix), each environment's objects, CRDs, images and applier RBAC, and
 * with `--base` the upgrade review (the `diff` findings and object diff). Printed on stdout, or
 * written to the file `--out` names.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { makeReport } from '../../report/make-report.js';
import { displayPath } from '../../output/write-errors.js';
import { refuseIrregularRepositoryFiles } from '../../output/regular-files.js';
import { assertReportTarget, writeReportFile } from '../../report/write-report-file.js';
import { loadConfig } from '../../config/load-config.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const reportCommand = defineCommand({
  name: 'report',
  summary:
    "write one self-contained HTML page: the fleet's versions per environment and, with --base, the upgrade review",
  synopsis: '[--base REV] [--out FILE | --json] [--env NAME]... [--offline]',
  options: {
    base: {
      type: 'string',
      value: 'REV',
      help: 'review the rendered output in the working tree against this revision (branch, tag or commit): findings ranked, object diff',
    },
    out: {
      type: 'string',
      value: 'FILE',
      help: 'write the page to FILE (atomically; an existing FILE must be a report capi-render wrote) instead of stdout',
    },
    json: {
      type: 'boolean',
      help: "print the page's data (what the template sees; fields in bundled-templates/README.md) as JSON instead of HTML",
    },
    env: RENDER_OPTIONS.env,
    offline: RENDER_OPTIONS.offline,
    'cache-dir': RENDER_OPTIONS['cache-dir'],
  },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    if (values.json && values.out !== undefined)
      throw new UsageError('--json prints to stdout; it does not go with --out');
    // The page is made from the repository's own regular files only: a link in rendered/ is refused, not followed.
    const regular = await refuseIrregularRepositoryFiles(repoRoot);
    // A target --out must refuse is refused before the work, not after it.
    const target =
      values.out === undefined
        ? undefined
        : {
            file: path.resolve(io.cwd, values.out),
            flag: '--out',
            repoRoot,
            config: await loadConfig(repoRoot),
          };
    if (target) await assertReportTarget(target);
    const prepared = await prepareRender(ctx, { gated: regular });
    const report = await makeReport({
      render: prepared.options,
      ...(values.base !== undefined ? { base: values.base } : {}),
      processEnv: io.env,
    });
    if (report.warnings.length > 0) io.stderr.write(formatDiagnostics(report.warnings, { color }));
    if (values.json) {
      io.stdout.write(`${JSON.stringify(report.model, null, 2)}\n`);
    } else if (target === undefined) {
      io.stdout.write(report.html);
    } else {
      const { file } = target;
      await writeReportFile(target, report.html);
      io.stderr.write(`wrote ${displayPath(file, io.cwd)} (${Math.ceil(Buffer.byteLength(report.html) / 1024)} KiB)\n`);
    }
    io.stderr.write(`${report.model.summary}\n`);
    return 0;
  },
});
