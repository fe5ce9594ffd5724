/** The closing lines of a command that wrote the output (build, upgrade, the no-op fast path). */
import path from 'node:path';
import { warning } from '../errors.js';
import type { WrittenRenderResult } from '../build/write-render-result.js';
import { displayPath } from '../output/write-errors.js';
import type { CommandContext } from './command.js';
import { formatDiagnostics } from './format.js';

/** The closing lines of a write: what changed where, environments retired, files left alone. */
export function reportWrite(
  ctx: Pick<CommandContext, 'io' | 'repoRoot' | 'color'>,
  summary: WrittenRenderResult,
): void {
  const { io, repoRoot, color } = ctx;
  const foreign = [
    ...summary.foreign.map((f) => displayPath(path.join(summary.outDir, f), repoRoot)),
    ...summary.gitops.foreign.map((f) => displayPath(path.join(summary.gitops.root, f), repoRoot)),
  ];
  if (foreign.length > 0) {
    const shown =
      foreign.length <= 5 ? foreign.join(', ') : `${foreign.slice(0, 5).join(', ')} and ${foreign.length - 5} more`;
    io.stderr.write(
      formatDiagnostics(
        [
          warning('output-location', `left alone (not written by capi-render): ${shown}`, {
            hint: 'Argo CD and Flux apply only what the kustomization.yaml files list; move these files elsewhere to keep the output folders clean',
          }),
        ],
        {
          color,
        },
      ),
    );
  }
  if (summary.retired.length > 0)
    io.stderr.write(`removed the output of environments that no longer exist: ${summarizeNames(summary.retired)}\n`);
  const counts = (s: { written: unknown[]; unchanged: number; removed: unknown[] }) =>
    `${s.written.length} written, ${s.unchanged} unchanged, ${s.removed.length} removed`;
  const gitops = summary.gitops;
  const parts = [`${displayPath(summary.outDir, repoRoot)}: ${counts(summary)}`];
  if (gitops.written.length + gitops.unchanged + gitops.removed.length > 0)
    parts.push(`${displayPath(gitops.root, repoRoot)}: ${counts(gitops)}`);
  parts.push(`capi-render.lock ${summary.lockWritten ? 'updated' : 'unchanged'}`);
  io.stderr.write(`${parts.join('; ')}\n`);
}

/** At most eight names, then how many more. */
export function summarizeNames(names: readonly string[]): string {
  return names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
}
