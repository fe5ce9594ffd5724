/** `capi-render build`: render environments, write rendered/, gitops/ and capi-render.lock as one transaction (or print with --stdout). */
import path from 'node:path';
import { DriftError, UsageError, error } from '../../errors.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { writeRenderRun, type WrittenRenderResult, type WrittenRenderRun } from '../../build/write-render-result.js';
import { environmentUnchanged, fingerprintFile, readFingerprint, takeFingerprint, writeFingerprint } from '../../output/output-fingerprint.js';
import { isGitopsFileOf } from '../../gitops/layout.js';
import { packageVersion } from '../../package-files.js';
import { countRecord } from '../../output/unchanged-summary.js';
import { lockDigest, stampFile, writeStamp } from '../../build/build-stamp.js';
import { reportStampedNoop } from '../no-op-build.js';
import { reportWrite, summarizeNames } from '../report-write.js';
import type { LockFile } from '../../lock/lock-types.js';
import { render } from '../../render/render.js';
import { startRender, type RenderRun } from '../../render/render-run.js';
import type { Command, CommandContext } from '../command.js';
import { failpointFromEnv } from '../failpoint.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender, type PreparedRender } from '../render-options.js';
import { streamEnvironment } from '../environment-stream.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'render every environment (or those named) into rendered/ and pin them in capi-render.lock',
  usage: '[--env NAME]... [--shard K/N] [--out DIR] [--stdout] [--offline] [--frozen] [--force] [--allow-removal]',
  help: [
    ...RENDER_FLAG_HELP,
    ['--out DIR', 'export: write the complete output of the environments into DIR (the GitOps folder goes beside it); the repository\'s rendered/, gitops/ and capi-render.lock are left as they are'],
    ['--force', 'render every environment, even those whose inputs and output are unchanged since the last build'],
    ['--stdout', 'print the objects of one environment as a multi-document YAML stream; write nothing'],
    ['--frozen', 'fail instead of changing capi-render.lock (for CI)'],
    ['--allow-removal', 'accept a build that removes providers, CRDs or whole environments (refused by default: Argo CD / Flux would prune them)'],
  ],
  options: { ...RENDER_FLAGS, out: { type: 'string' }, stdout: { type: 'boolean' }, frozen: { type: 'boolean' }, force: { type: 'boolean' }, 'allow-removal': { type: 'boolean' } },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const prepared = await prepareRender(ctx, { writes: !values.stdout });
    if (values.stdout) return printEnvironment(ctx, prepared);
    const exportDir = values.out ? path.resolve(io.cwd, String(values.out)) : undefined;
    const partial = ((values.env as string[] | undefined) ?? []).length > 0 || values.shard !== undefined;
    const failpoint = failpointFromEnv(io.env);
    const use = prepared.options.cache?.use;
    // A full build whose inputs, lock and output files are exactly as a stamped build left them is
    // a no-op: nothing is loaded or composed (see render/build-stamp.ts). An export always writes.
    if (!exportDir && !values.force && !partial && (await reportStampedNoop({ io, repoRoot, cacheDir: prepared.cacheDir, lockText: prepared.lockText, ...(use ? { use } : {}), color }))) return 0;
    // Environments are skipped only where the output is confirmed to be what the last build wrote
    // (output-fingerprint.ts): anything edited, deleted or added by hand is rendered and repaired.
    const fingerprintAt = fingerprintFile(prepared.cacheDir, repoRoot);
    const previous = exportDir || values.force ? undefined : readFingerprint(fingerprintAt, undefined, use);
    const lines: string[] = [];
    let written: WrittenRenderRun;
    let run: RenderRun;
    try {
      run = await startRender({ ...prepared.options, ...(previous ? { skipUnchanged: (env: string, hash: string) => environmentUnchanged(previous, env, hash) } : {}) });
      const out = exportDir && exportDir !== run.outputDir ? exportDir : undefined;
      written = await writeRenderRun(run, {
        repoRoot,
        ...(out ? { outDir: out, outDirFlag: '--out', exporting: true } : {}),
        partial,
        previousLockText: prepared.lockText,
        previousLock: prepared.lock,
        // An export changes nothing the lock describes: there is nothing to guard.
        allowRemoval: Boolean(values['allow-removal']) || out !== undefined,
        ...(failpoint ? { failpoint } : {}),
        onEnvironment: (e) => {
          const parts = [...(e.certManager ? [`cert-manager ${e.certManager.version}`] : []), ...e.providers.map((p) => `${p.label} ${p.version}`)];
          lines.push(`rendered ${e.environment.name}: ${parts.length > 0 ? parts.join(', ') : 'no providers'}\n`);
        },
        beforeCommit: (lock) => refuseLockChange(values, prepared.lock, lock),
      });
      if (!out) {
        const rendered = new Set(run.rendering);
        const environments = Object.fromEntries(written.lock.environments.filter((e) => rendered.has(e.name) && e.inputs).map((e) => [e.name, e.inputs!]));
        const { outDir: outputDir, gitops } = written.written;
        writeFingerprint(fingerprintAt, takeFingerprint({ previous, outDir: outputDir, gitopsDir: gitops.root, produced: written.produced, environments }), use);
        if (!partial && run.stamp && written.lockText !== undefined) {
          const records = [await countRecord(outputDir), await countRecord(gitops.root)];
          await writeStamp(stampFile(prepared.cacheDir, repoRoot), { version: packageVersion(), outDir: outputDir, gitopsDir: gitops.root, lock: lockDigest(written.lockText), ...run.stamp, records }, use);
        }
      }
    } finally {
      await prepared.settleCache();
    }
    if (written.warnings.length > 0) io.stderr.write(formatDiagnostics(written.warnings, { color }));
    for (const line of lines) io.stderr.write(line);
    if (run.skipped.length > 0) io.stderr.write(`unchanged since the last build (inputs hash in capi-render.lock): ${summarizeNames(run.skipped)}\n`);
    const repaired = repairedFiles(run, written.written, repoRoot);
    if (repaired.length > 0) io.stderr.write(`repaired (edited by hand since the last build; the inputs render otherwise): ${summarizeNames(repaired)}\n`);
    reportWrite(ctx, written.written);
    return 0;
  },
};

/**
 * Files a build changed in environments whose inputs hash equals the lock's: the inputs did not
 * change, so whatever was written or removed there had been edited, deleted or added by hand.
 */
function repairedFiles(run: RenderRun, written: WrittenRenderResult, repoRoot: string): string[] {
  const same = new Set(run.unchangedInputs);
  const shown = (root: string, rel: string) => path.relative(repoRoot, path.join(root, rel)).split(path.sep).join('/');
  const out = [...written.written, ...written.removed].filter((rel) => same.has(rel.split('/')[0]!)).map((rel) => shown(written.outDir, rel));
  const gitops = [...written.gitops.written, ...written.gitops.removed].filter((rel) => run.unchangedInputs.some((env) => isGitopsFileOf(rel, env)) && rel !== 'argocd/applicationset.yaml');
  return [...out, ...gitops.map((rel) => shown(written.gitops.root, rel))].sort();
}

/** `--stdout`: one environment as a multi-document stream; nothing is written. */
async function printEnvironment(ctx: CommandContext, prepared: PreparedRender): Promise<number> {
  const { io, values, color } = ctx;
  const result = await render(prepared.options);
  await prepared.settleCache();
  if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
  refuseLockChange(values, prepared.lock, result.lock);
  if (result.environments.length !== 1) {
    throw new UsageError(`--stdout prints one environment; choose one with --env (${result.allEnvironments.join(', ')})`);
  }
  io.stdout.write(streamEnvironment({ environment: result.environments[0]!, previousLock: prepared.lock, nextLock: result.lock, allowRemoval: Boolean(values['allow-removal']) }));
  return 0;
}

/** `--frozen`: a build that would change the lock fails (before anything is written). */
function refuseLockChange(values: CommandContext['values'], before: LockFile, after: LockFile): void {
  if (!values.frozen) return;
  const changes = describeLockChanges(before, after);
  if (changes.length === 0) return;
  throw new DriftError(
    error('frozen', `--frozen: the build would change capi-render.lock:\n  ${changes.join('\n  ')}`, {
      file: 'capi-render.lock',
      hint: 'run capi-render build without --frozen and commit the updated lock',
    }),
  );
}

