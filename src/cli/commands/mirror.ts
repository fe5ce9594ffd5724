/** `capi-render mirror`: copy every pinned release into a folder for air-gapped sites. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { mirrorFiles, type MirrorFormat } from '../../mirror/mirror-layout.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

const FORMATS: MirrorFormat[] = ['repository', 'configmaps'];

export const mirrorCommand: Command = {
  name: 'mirror',
  summary: 'write every release the lock pins as a clusterctl local repository or operator ConfigMaps',
  usage: '--to DIR [--format repository|configmaps] [--compress] [--env NAME]... [--offline]',
  help: [
    ['--to DIR', 'the folder to write (created; existing files of the same names are replaced)'],
    ['--format F', 'repository (default): <label>/<version>/<file>; configmaps: the operator\'s air-gapped ConfigMaps'],
    ['--compress', 'configmaps: gzip components into binaryData (automatic above the 1 MiB ConfigMap limit)'],
    ...RENDER_FLAG_HELP,
  ],
  options: { ...RENDER_FLAGS, to: { type: 'string' }, format: { type: 'string' }, compress: { type: 'boolean' } },
  async run(ctx) {
    const { io, values } = ctx;
    if (!values.to) throw new UsageError('--to DIR is required');
    const format = String(values.format ?? 'repository') as MirrorFormat;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (OCI: see README "OCI registries")`);
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options);
    const files = mirrorFiles(result.environments.flatMap((e) => e.providers), format, { compress: Boolean(values.compress) });
    const target = path.resolve(io.cwd, String(values.to));
    for (const [rel, content] of files) {
      const file = path.join(target, rel);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(tmp, content);
      await fs.rename(tmp, file);
    }
    io.stderr.write(`mirrored ${files.size} files (${format}) to ${path.relative(io.cwd, target) || '.'}\n`);
    return 0;
  },
};
