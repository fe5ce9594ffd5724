/**
 * Writes the report to the file `--out` names, with the care of every other write into a place the
 * user chose: refused before anything is written when the path is a folder, a symbolic link, a
 * file capi-render did not write, inside `.git`, an input (or inside one), or inside the output
 * folders (their files are owned by the build); written atomically and durably (a temporary file
 * created exclusively beside it, fsynced, then renamed over it), so a reader never sees half a report
 * and a planted link is never followed; a file-system failure is one `error[write]` line with the
 * path and reason.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { replaceFileDurably } from '../durable-replace.js';
import { UsageError } from '../errors.js';
import type { RenderConfig } from '../config/config-types.js';
import { inputLocations, isInside, realPath } from '../config/output-location.js';
import { displayPath, guarded } from '../output/write-errors.js';
import { REPORT_MARKER } from './render-report-html.js';

/** Where to write and what guards it. */
export interface ReportFileTarget {
  /** Absolute path of the file. */
  file: string;
  /** The flag that named it, for messages (`--out`). */
  flag: string;
  repoRoot: string;
  config: Pick<
    RenderConfig,
    'providersDir' | 'overlaysDir' | 'templatesDir' | 'repositories' | 'outputDir' | 'gitopsDir'
  >;
  /** What is written, when it is not the HTML report (`capi-render sbom --out`). Default: the report. */
  kind?: ReportFileKind;
}

/** A kind of file written with these guards: how messages name it, and how an earlier one is recognised. */
export interface ReportFileKind {
  /** `the report`, `the SBOM`. */
  noun: string;
  /** `a report`, `an SBOM`. */
  one: string;
  /** A file name to suggest. */
  example: string;
  /** Whether a file starting with `head` (its first 4 KiB) is one capi-render wrote, so it may be replaced. */
  recognize(head: string): boolean;
}

const REPORT_KIND: ReportFileKind = {
  noun: 'the report',
  one: 'a report',
  example: 'capi-render-report.html',
  recognize: (head) => head.includes(REPORT_MARKER),
};

/** Refuses a dangerous target (UsageError, exit 2) or writes `html` to it atomically (WriteError on failure). */
export async function writeReportFile(target: ReportFileTarget, html: string): Promise<void> {
  await assertReportTarget(target);
  // durable-replace.ts: a temporary file created exclusively beside it (a planted link is never
  // followed), fsynced, renamed over it, the folder fsynced — whole after a kill or a power loss.
  await guarded('write', target.file, target.repoRoot, () =>
    replaceFileDurably(target.file, html, { createFolders: false }),
  );
}

/** The checks of {@link writeReportFile}, without writing. */
export async function assertReportTarget(target: ReportFileTarget): Promise<void> {
  const { file, flag, repoRoot } = target;
  const shown = displayPath(file, repoRoot);
  const refuse = (problem: string, hint: string): never => {
    throw new UsageError(`${flag} ${shown} ${problem}; ${hint}`);
  };
  const kind = target.kind ?? REPORT_KIND;
  const elsewhere = `write ${kind.noun} elsewhere, e.g. --out ${kind.example}`;
  const stat = await fs.lstat(file).catch(() => undefined);
  if (stat?.isSymbolicLink())
    refuse(
      `is a symbolic link (to ${await fs.readlink(file).catch(() => '?')}): capi-render does not write through links`,
      'name the file itself',
    );
  if (stat?.isDirectory()) refuse('is a folder', `name a file in it, e.g. --out ${path.join(shown, kind.example)}`);
  if (stat && !stat.isFile()) refuse('is not a regular file', elsewhere);
  const real = path.join(await realPath(path.dirname(file)), path.basename(file));
  const root = await realPath(repoRoot);
  if (real.split(path.sep).includes('.git')) refuse('is inside a .git folder', elsewhere);
  const inputs = await Promise.all(
    inputLocations(repoRoot, target.config).map(async ([label, p]) => [label, await realPath(p)] as const),
  );
  for (const [label, input] of inputs) {
    if (real === input) refuse(`is ${label}`, elsewhere);
    if (isInside(real, input)) refuse(`is inside ${label} (${displayPath(input, root)})`, elsewhere);
  }
  for (const [setting, folder] of [
    ['outputDir', target.config.outputDir],
    ['gitopsDir', target.config.gitopsDir],
  ] as const) {
    const out = await realPath(path.resolve(repoRoot, folder));
    if (real === out || isInside(real, out))
      refuse(`is inside the ${setting} output folder ${folder} (its files belong to capi-render build)`, elsewhere);
  }
  if (stat && stat.size > 0 && !(await isReport(file, kind))) {
    refuse(
      `exists and is not ${kind.one} capi-render wrote`,
      'remove it first if it may be replaced, or name another file',
    );
  }
}

/** Whether the file starts like one `kind` recognises (the report: its marker within the first 4 KiB). */
async function isReport(file: string, kind: ReportFileKind): Promise<boolean> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    return kind.recognize(buffer.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await handle.close();
  }
}
