/**
 * `capi-render diff`: the object-level diff and safety report between the rendered output committed
 * at a git revision (default HEAD) and the working tree's, with contract changes from the two
 * capi-render.lock files. A report: exit 0 whether or not anything changed.
 */
import path from 'node:path';
import { SpecError, error } from '../../errors.js';
import { unknownEnvironments } from '../../overlay/discover-environments.js';
import { formatReportMarkdown } from '../../diff/format-markdown.js';
import { formatDiffText } from '../../diff/format-text.js';
import { loadConfig } from '../../config/load-config.js';
import { parseLock, readLockFile } from '../../lock/lock-file.js';
import { emptyLock, LOCK_FILE } from '../../lock/lock-types.js';
import { createGitRunner } from '../../upgrade/git-command.js';
import { hasInterruptedWrite } from '../../output/transaction.js';
import { readFileAtRef, readTreeAtRef, readTreeFromDisk } from '../../upgrade/git-rendered.js';
import { compareRendered, storageMigrationFindings } from '../../upgrade/upgrade-report.js';
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
    const base = String(values.base ?? 'HEAD');
    const environments = (values.env as string[] | undefined) ?? [];
    const config = await loadConfig(repoRoot);
    const outRel = config.outputDir.replace(/\/+$/, '');
    const git = createGitRunner({ cwd: repoRoot, env: io.env });
    const beforeFiles = await readTreeAtRef(git, base, outRel);
    const beforeLockText = await readFileAtRef(git, base, LOCK_FILE);
    const afterFiles = await readTreeFromDisk(path.join(repoRoot, outRel));
    const known = new Set([...beforeFiles.keys(), ...afterFiles.keys()].filter((p) => p.includes('/')).map((p) => p.split('/')[0]!));
    const unknown = environments.filter((e) => !known.has(e));
    if (unknown.length > 0) {
      throw unknownEnvironments(unknown, [...known].sort(), ` (neither ${base} nor the working tree has ${outRel}/${unknown[0]}/)`);
    }
    const report = compareRendered(
      { files: beforeFiles, lock: beforeLockText === undefined ? emptyLock() : parseLock(beforeLockText) },
      { files: afterFiles, lock: (await readLockFile(repoRoot)).lock },
      { where: outRel, environments },
    );
    io.stdout.write(values.markdown ? formatReportMarkdown(report.changes, report.findings) : formatDiffText(report.changes, report.findings, { color }));
    const storage = storageMigrationFindings(report.findings);
    if (storage.length > 0) {
      io.stderr.write(`${storage.length} finding(s) remove or stop serving CRD versions objects may still be stored in: do their steps before syncing (capi-render upgrade refuses these without --confirm-storage-migration)\n`);
    }
    return 0;
  },
};
