/** `capi-render build`: render environments and write rendered/ atomically (or print with --stdout). */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { environmentStream } from '../../output/plan.js';
import { writeOutputTree } from '../../output/write.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { formatDiagnostics } from '../format.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'render every environment (or those named) into rendered/',
  usage: '[--env NAME]... [--out DIR] [--stdout]',
  help: [
    ['--env NAME', 'render only this environment (repeatable); the others in rendered/ are kept as they are'],
    ['--out DIR', 'write to DIR instead of the configured output folder (default rendered/)'],
    ['--stdout', 'print the objects of one environment as a multi-document YAML stream; write nothing'],
  ],
  options: {
    env: { type: 'string', multiple: true },
    out: { type: 'string' },
    stdout: { type: 'boolean' },
  },
  async run({ io, values, repoRoot, color }) {
    const envs = (values.env as string[] | undefined) ?? [];
    const result = await render({ repoRoot, environments: envs, env: io.env });
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    if (values.stdout) {
      if (result.environments.length !== 1) {
        throw new UsageError(`--stdout prints one environment; choose one with --env (${result.allEnvironments.join(', ')})`);
      }
      io.stdout.write(environmentStream(result.environments[0]!.environment));
      return 0;
    }
    const outDir = values.out ? path.resolve(io.cwd, String(values.out)) : result.outputDir;
    const summary = await writeOutputTree(outDir, result.files, { replace: envs.length > 0 ? result.environments.map((e) => e.environment.name) : 'all' });
    const shown = path.relative(io.cwd, outDir) || '.';
    for (const e of result.environments) {
      const versions = e.providers.map((p) => `${p.label} ${p.version}`).join(', ');
      io.stderr.write(`rendered ${e.environment.name}: ${versions}\n`);
    }
    io.stderr.write(`${shown}: ${summary.written.length} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed\n`);
    return 0;
  },
};
