/**
 * `capi-render check`: the CI gate. Re-renders every environment in memory from the committed
 * inputs and lock, and compares with the committed rendered/, gitops/ and capi-render.lock. Exit 1
 * with a short report on drift; nothing is written.
 */
import path from 'node:path';
import { DriftError, UsageError, error, warning, type Diagnostic } from '../../errors.js';
import { OWNERSHIP_FILE, parseOwnership } from '../../output/ownership.js';
import { normalizeInputText } from '../../declarations/input-text.js';
import { compareTrees, type FileDrift } from '../../check/compare-output.js';
import { describeLockDifferences } from '../../lock/next-lock.js';
import { readListedOutputFile, regularOutputFolder, type RegularOutputFolder } from '../../output/regular-files.js';
import { readRecordFile } from '../../repository-files.js';
import { isGitopsFileOf } from '../../gitops/layout.js';
import { startRender } from '../../render/render-run.js';
import type { OutputFiles } from '../../plan/output-plan.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const checkCommand = defineCommand({
  name: 'check',
  summary:
    'verify that rendered/, gitops/ and capi-render.lock are exactly what the inputs render (for CI); with --live, what the first sync to a running cluster would change',
  synopsis: '[--env NAME]... [--shard K/N] [--offline] | --live FILE [--env NAME] [--json] [--field-manager NAME]',
  options: {
    ...RENDER_OPTIONS,
    shard: {
      ...RENDER_OPTIONS.shard,
      help: `${RENDER_OPTIONS.shard.help}; shard 1 also checks what belongs to no environment (output of removed environments), so N shards check as much as one full check`,
    },
    live: {
      type: 'string',
      value: 'FILE',
      help: "instead: compare one environment with a kubectl dump of the running cluster, as a server-side apply would (exit 0 when the first sync changes nothing but capi-render's own annotations)",
    },
    json: { type: 'boolean', help: 'with --live: print the report as JSON on stdout' },
    'field-manager': {
      type: 'string',
      value: 'NAME',
      help: "with --live: the applier's field manager, whose earlier applies make removals possible (default argocd-controller and kustomize-controller)",
    },
  },
  async run(ctx) {
    const { io, repoRoot, color, values } = ctx;
    if (values.live !== undefined) return (await import('./check-live.js')).runLiveCheck(ctx, values.live);
    if (values.json || values['field-manager'] !== undefined)
      throw new UsageError('--json and --field-manager go with --live FILE');
    // Nothing but the repository's own regular files is read: a link planted in rendered/ is refused, not followed (prepareRender's gate).
    const prepared = await prepareRender(ctx);
    const { regular } = prepared;
    const listed = async (dir: string) =>
      regular.output.root === dir
        ? regular.output
        : regular.gitops.root === dir
          ? regular.gitops
          : regularOutputFolder(repoRoot, dir);
    // A lock entry the inputs contradict is an error here, never quietly re-resolved (lock-evidence.ts).
    const run = await startRender({ ...prepared.options, lockContradictions: 'refuse', verifySopsRecords: true });
    const names = run.rendering;
    const partial = names.length !== run.allEnvironments.length;
    // What belongs to no environment is checked by a full check, and by shard 1 of a sharded one.
    const unowned = !partial || ((values.shard ?? '').startsWith('1/') && values.env.length === 0);
    const isEnvironment = (top: string) => run.allEnvironments.includes(top);
    const rel = (p: string) => path.relative(repoRoot, p).split(path.sep).join('/');
    const outRel = rel(run.outputDir);
    // The committed output is read environment by environment as each is rendered, and compared
    // then, so neither side of a large fleet is held in memory at once.
    const rendered = await readOutputFolder(await listed(run.outputDir), repoRoot, { contents: false });
    const byEnvironment = groupByTopFolder(rendered.list);
    const planned = new Set<string>();
    const gitopsPlanned: OutputFiles = new Map();
    const drift: FileDrift[] = [];
    const { lock, warnings, fleetGitopsFiles } = await run
      .renderEach(async ({ result, files, gitopsFiles }) => {
        const env = result.environment.name;
        const committed = await readFiles(run.outputDir, byEnvironment.get(env) ?? [], repoRoot);
        drift.push(...compareTrees(files, committed, outRel, rendered.owned));
        for (const p of files.keys()) planned.add(p);
        for (const [p, text] of gitopsFiles) gitopsPlanned.set(p, text);
      })
      .finally(() => prepared.settleCache());
    for (const [p, text] of fleetGitopsFiles) gitopsPlanned.set(p, text);
    if (warnings.length > 0) io.stderr.write(formatDiagnostics(warnings, { color }));
    if (unowned) {
      // Files of environments that no longer exist are stale too.
      const others = [...byEnvironment].filter(([env]) => !isEnvironment(env)).flatMap(([, list]) => list);
      drift.push(...compareTrees(new Map(), new Map(others.map((f) => [f, ''])), outRel, rendered.owned));
    }
    const gitops = await readOutputFolder(await listed(run.gitopsDir), repoRoot, { contents: true });
    const gitopsInScope = (p: string) =>
      gitops.owned(p) &&
      (names.some((n) => isGitopsFileOf(p, n)) || (unowned && !run.allEnvironments.some((n) => isGitopsFileOf(p, n))));
    drift.push(
      ...compareTrees(gitopsPlanned, gitops.files, rel(run.gitopsDir), gitopsInScope),
      ...(partial
        ? [
            ...scopedRecordDrift(
              planned,
              rendered,
              outRel,
              (f) => names.includes(f.split('/')[0]!) || (unowned && !isEnvironment(f.split('/')[0]!)),
            ),
            ...scopedRecordDrift(new Set(gitopsPlanned.keys()), gitops, rel(run.gitopsDir), gitopsInScope),
          ]
        : [
            ...recordDrift(planned, rendered, outRel),
            ...recordDrift(new Set(gitopsPlanned.keys()), gitops, rel(run.gitopsDir)),
          ]),
    );
    drift.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const foreign = [
      ...rendered.foreign.map((f) => `${outRel}/${f}`),
      ...gitops.foreign.map((f) => `${rel(run.gitopsDir)}/${f}`),
    ];
    if (foreign.length > 0)
      io.stderr.write(
        formatDiagnostics([warning('output-location', `not written by capi-render (ignored): ${foreign.join(', ')}`)], {
          color,
        }),
      );
    const { changes: lockChanges, line: lockLine } = describeLockDifferences(prepared.lockState, lock);
    if (drift.length === 0 && lockChanges.length === 0) {
      io.stderr.write(
        `check: ${names.length} environment${names.length === 1 ? '' : 's'} up to date (${planned.size + gitopsPlanned.size} files, capi-render.lock)\n`,
      );
      return 0;
    }
    const diagnostics: Diagnostic[] = drift.map((d) =>
      error(
        'drift',
        `${d.kind === 'edited' ? 'differs from what the inputs render (edited by hand, or inputs changed without a rebuild)' : d.kind === 'missing' ? 'missing (the inputs render it)' : 'stale (the inputs no longer render it)'}${d.details.length ? `:\n    ${d.details.join('\n    ')}` : ''}`,
        {
          file: d.file,
        },
      ),
    );
    if (lockChanges.length > 0) {
      diagnostics.push(
        error('drift', `capi-render.lock is stale:\n    ${lockChanges.join('\n    ')}`, {
          file: 'capi-render.lock',
          ...(lockLine ? { line: lockLine, col: 1 } : {}),
        }),
      );
    }
    throw new DriftError(
      diagnostics.map((d, i) =>
        i === diagnostics.length - 1
          ? {
              ...d,
              hint: 'run `capi-render build` and commit the result; hand edits belong in providers/ or overlays/',
            }
          : d,
      ),
    );
  },
});

interface CommittedFolder {
  /** Every file, relative, sorted. */
  list: string[];
  /** File texts (when read with contents), CRLF read as LF (a Windows checkout of the same commit is not drift). */
  files: Map<string, string>;
  /** The ownership record's text, when there is one. */
  recordText: string | undefined;
  /** Whether capi-render wrote this file (everything, for a folder from before ownership records). */
  owned: (relative: string) => boolean;
  /** Files the record does not list. */
  foreign: string[];
}

/** A folder `regularOutputFolder` listed (regular files only), read without following links. */
async function readOutputFolder(
  { root: dir, files: list }: RegularOutputFolder,
  repoRoot: string,
  { contents }: { contents: boolean },
): Promise<CommittedFolder> {
  const files = contents ? await readFiles(dir, list, repoRoot) : new Map<string, string>();
  const recordText = (
    await readRecordFile(repoRoot, path.join(dir, OWNERSHIP_FILE), 'ownership', { listed: true })
  )?.toString('utf8');
  const record = recordText === undefined ? undefined : parseOwnership(recordText);
  const owned = (f: string) => !record || record.files.has(f);
  return { list, files, recordText, owned, foreign: list.filter((f) => !owned(f)) };
}

async function readFiles(dir: string, list: readonly string[], repoRoot: string): Promise<Map<string, string>> {
  return new Map(
    await Promise.all(
      list.map(async (f) => [f, normalizeInputText(await readListedOutputFile(dir, f, repoRoot))] as [string, string]),
    ),
  );
}

function groupByTopFolder(files: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    const top = f.split('/')[0]!;
    const list = out.get(top);
    if (list) list.push(f);
    else out.set(top, [f]);
  }
  return out;
}

/** Within `inScope`, the ownership record must list exactly the files the inputs render (a partial check). */
function scopedRecordDrift(
  planned: ReadonlySet<string>,
  committed: CommittedFolder,
  prefix: string,
  inScope: (relative: string) => boolean,
): FileDrift[] {
  if (committed.recordText === undefined)
    return planned.size > 0 ? [{ file: `${prefix}/${OWNERSHIP_FILE}`, kind: 'missing', details: [] }] : [];
  const record = parseOwnership(committed.recordText);
  const listed = [...record.files].filter(inScope);
  const same = listed.length === [...planned].filter(inScope).length && listed.every((f) => planned.has(f));
  if (!same)
    return [
      {
        file: `${prefix}/${OWNERSHIP_FILE}`,
        kind: 'edited',
        details: ['the list of files capi-render wrote differs from what the inputs render'],
      },
    ];
  return record.canonical ? [] : [{ file: `${prefix}/${OWNERSHIP_FILE}`, kind: 'edited', details: [NOT_AS_WRITTEN] }];
}

/** The ownership record must list exactly the files the inputs render. */
function recordDrift(planned: ReadonlySet<string>, committed: CommittedFolder, prefix: string): FileDrift[] {
  if (planned.size === 0 && committed.recordText === undefined) return [];
  const file = `${prefix}/${OWNERSHIP_FILE}`;
  if (committed.recordText === undefined) return [{ file, kind: 'missing', details: [] }];
  // As build decides to rewrite it (output/commit-plan.ts): another list, or its text not what
  // capi-render writes (a line duplicated, reordered or added, merge conflict markers). CRLF line
  // ends and a byte-order mark (a Windows checkout) are not drift.
  const record = parseOwnership(committed.recordText);
  const same =
    !record.conflicted && record.files.size === planned.size && [...planned].every((f) => record.files.has(f));
  if (!same)
    return [
      { file, kind: 'edited', details: ['the list of files capi-render wrote differs from what the inputs render'] },
    ];
  return record.canonical ? [] : [{ file, kind: 'edited', details: [NOT_AS_WRITTEN] }];
}

const NOT_AS_WRITTEN =
  'not what capi-render writes for this list (a line duplicated, reordered, commented or added by hand); a build rewrites it';
