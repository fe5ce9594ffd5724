/** `capi-render mirror`: copy every pinned release into a folder for air-gapped sites. */
import path from 'node:path';
import { replaceFilesDurably } from '../../durable-replace.js';
import { UsageError } from '../../errors.js';
import { mirrorFiles } from '../../mirror/mirror-layout.js';
import { render } from '../../render/render.js';
import { defineCommand } from '../command.js';
import { isOneOf } from '../options.js';
import { mirrorPinnedImages } from './mirror-images-command.js';
import { FORMATS, IMAGE_FOLDER_FORMATS, MIRROR_OPTIONS } from './mirror-options.js';
import { MIRROR_OCI_LAYOUTS, publishMirror } from '../../mirror/mirror-oci.js';
import { asFetch } from '../../source/http/network-fetch.js';
import { readOciCredentials } from '../../source/oci/oci-credentials.js';
import { prepareRender } from '../render-options.js';
import { assertMirrorTarget } from './mirror-target.js';

export const mirrorCommand = defineCommand({
  name: 'mirror',
  summary:
    'write every release the lock pins as a clusterctl local repository or operator ConfigMaps, or its pinned images to a registry or a folder',
  synopsis:
    '--to DIR|REGISTRY/REPO [--format repository|configmaps|oci [--oci-layout operator|cluster-api]] [--compress] [--env NAME]... [--offline] | --images REGISTRY/PREFIX [--write-overrides FILE] [--env NAME]... | --images --to PATH [--format oci-layout|oci-archive] | --images --from PATH --to REGISTRY/PREFIX [--write-overrides FILE]',
  options: MIRROR_OPTIONS,
  async run(ctx) {
    const { io, values } = ctx;
    if (values.images !== undefined) return mirrorPinnedImages(ctx, values.images);
    if (values['write-overrides'] !== undefined) throw new UsageError('--write-overrides goes with --images');
    if (values.from !== undefined)
      throw new UsageError('--from goes with --images (mirror --images --from DIR --to REGISTRY/PREFIX)');
    const { to } = values;
    if (!to) throw new UsageError('--to DIR is required (or --images REGISTRY/PREFIX)');
    const format = values.format ?? 'repository';
    if (!isOneOf(FORMATS, format))
      throw new UsageError(
        `--format must be one of ${FORMATS.join(', ')}${isOneOf(IMAGE_FOLDER_FORMATS, format) ? ` (${format} goes with --images --to DIR)` : ''}`,
      );
    const layout = values['oci-layout'] ?? 'operator';
    if (values['oci-layout'] !== undefined && format !== 'oci')
      throw new UsageError('--oci-layout goes with --format oci');
    if (!isOneOf(MIRROR_OCI_LAYOUTS, layout))
      throw new UsageError(`--oci-layout must be one of ${MIRROR_OCI_LAYOUTS.join(', ')}`);
    const prepared = await prepareRender(ctx);
    // A `repositories:` entry may name the folder this mirror creates: that is how one is vendored.
    const filling = format === 'repository' ? { fillingRepository: path.resolve(io.cwd, to) } : {};
    const result = await render({ ...prepared.options, ...filling }).finally(() => prepared.settleCache());
    if (format === 'oci') {
      const pushed = await publishMirror(
        result.environments.flatMap((e) => e.providers),
        to,
        readOciCredentials(io.env),
        prepared.options.fetch && asFetch(prepared.options.fetch),
        layout,
      );
      for (const p of pushed) io.stderr.write(`pushed ${p.reference} (${p.manifestDigest})\n`);
      return 0;
    }
    const certManager = result.environments.flatMap((e) =>
      e.certManager
        ? [{ version: e.certManager.version, file: e.certManager.artifact.file, text: e.certManager.artifact.text }]
        : [],
    );
    const files = mirrorFiles(
      result.environments.flatMap((e) => e.providers),
      format,
      { compress: values.compress, certManager },
    );
    const target = path.resolve(io.cwd, to);
    await assertMirrorTarget(ctx.repoRoot, target, result, { writes: 'release files', example: 'vendor/releases' });
    // Each file ends whole, old or new, even after a power loss: an air-gapped site copies this folder.
    await replaceFilesDurably(new Map([...files].map(([rel, content]) => [path.join(target, rel), content])));
    io.stderr.write(`mirrored ${files.size} files (${format}) to ${path.relative(io.cwd, target) || '.'}\n`);
    return 0;
  },
});
