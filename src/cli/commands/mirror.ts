/** `capi-render mirror`: copy every pinned release into a folder for air-gapped sites. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { mirrorFiles, type MirrorFormat } from '../../mirror/mirror-layout.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { publishMirror } from '../../mirror/mirror-oci.js';
import { readOciCredentials } from '../../source/oci/oci-credentials.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

const FORMATS = ['repository', 'configmaps', 'oci'] as const;

export const mirrorCommand: Command = {
  name: 'mirror',
  summary: 'write every release the lock pins as a clusterctl local repository or operator ConfigMaps',
  usage: '--to DIR|REGISTRY/REPO [--format repository|configmaps|oci] [--compress] [--env NAME]... [--offline]',
  help: [
    ['--to DIR', 'the folder to write (created; existing files of the same names are replaced), or for oci a registry/repository prefix'],
    ['--format F', 'repository (default): <label>/<version>/<file>; configmaps: the operator\'s air-gapped ConfigMaps; oci: push <prefix>/<label>:<version> as the operator\'s publish does (credentials from OCI_USERNAME/OCI_PASSWORD/OCI_ACCESS_TOKEN/OCI_REFRESH_TOKEN)'],
    ['--compress', 'configmaps: gzip components into binaryData (automatic above the 1 MiB ConfigMap limit)'],
    ...RENDER_FLAG_HELP,
  ],
  options: { ...RENDER_FLAGS, to: { type: 'string' }, format: { type: 'string' }, compress: { type: 'boolean' } },
  async run(ctx) {
    const { io, values } = ctx;
    if (!values.to) throw new UsageError('--to DIR is required');
    const format = String(values.format ?? 'repository');
    if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options);
    if (format === 'oci') {
      const pushed = await publishMirror(result.environments.flatMap((e) => e.providers), String(values.to), readOciCredentials(io.env));
      for (const p of pushed) io.stderr.write(`pushed ${p.reference} (${p.manifestDigest})\n`);
      return 0;
    }
    const certManager = result.environments.flatMap((e) => (e.certManager ? [{ version: e.certManager.version, file: e.certManager.artifact.file, text: e.certManager.artifact.text }] : []));
    const files = mirrorFiles(result.environments.flatMap((e) => e.providers), format as MirrorFormat, { compress: Boolean(values.compress), certManager });
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
