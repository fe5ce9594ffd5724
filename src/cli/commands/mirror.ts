/** `capi-render mirror`: copy every pinned release into a folder for air-gapped sites. */
import path from 'node:path';
import { replaceFilesDurably } from '../../durable-replace.js';
import { UsageError } from '../../errors.js';
import { mirrorFiles } from '../../mirror/mirror-layout.js';
import { render } from '../../render/render.js';
import { defineCommand, type CommandContext } from '../command.js';
import { defineOptions, isOneOf, type OptionValues } from '../options.js';
import { IMAGE_FOLDER_FORMATS, mirrorPinnedImages } from './mirror-images-command.js';
import { MIRROR_OCI_LAYOUTS, publishMirror } from '../../mirror/mirror-oci.js';
import { asFetch } from '../../source/http/network-fetch.js';
import { readOciCredentials } from '../../source/oci/oci-credentials.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';
import { assertMirrorTarget } from './mirror-target.js';

const FORMATS = ['repository', 'configmaps', 'oci'] as const;

const MIRROR_OPTIONS = defineOptions({
  to: {
    type: 'string',
    value: 'DIR',
    help: 'the folder to write (created; existing files of the same names are replaced), or for oci a registry/repository prefix',
  },
  format: {
    type: 'string',
    value: 'F',
    choices: [...FORMATS, ...IMAGE_FOLDER_FORMATS],
    help: "with --images --to: oci-layout (default: an OCI image layout folder) or oci-archive (one tar of it); otherwise repository (default): <label>/<version>/<file>; configmaps: the operator's air-gapped ConfigMaps; oci: push <prefix>/<label>:<version> as the operator's publish does (credentials from OCI_USERNAME/OCI_PASSWORD/OCI_ACCESS_TOKEN/OCI_REFRESH_TOKEN)",
  },
  'oci-layout': {
    type: 'string',
    value: 'L',
    help: "oci: operator (default; what the operator v0.28 reads: one titled layer per file) or cluster-api (the layout of cluster-api's unmerged OCI proposal PR #14033: <prefix>/{type}-{name}:<version>, one tar+gzip layer, its annotations; read back through an oci:// provider URL)",
  },
  compress: {
    type: 'boolean',
    help: 'configmaps: gzip components into binaryData (automatic above the 1 MiB ConfigMap limit)',
  },
  images: {
    type: 'string',
    value: 'R/P',
    optionalValue: true,
    help: 'instead: copy every pinned image (imagePolicy.pinDigests) by digest to R/P/<name>:<tag> — index, platform manifests and blobs, with its cosign signatures (the .sig tag and the referrers); existing blobs are skipped, so an interrupted copy resumes — and print the images: override that points the environments at it (list R in imagePolicy.insecureRegistries for plain HTTP)',
    moreHelp: [
      [
        '--images --to DIR',
        'instead: write every pinned image, with its .sig signatures and referrers, as an OCI image layout (or with --format oci-archive one tar of it) to carry across an air gap; DIR must not exist or be empty (an archive: must not exist); an interrupted run leaves only a hidden .DIR.capi-render-partial beside it, whose verified blobs the next run keeps',
      ],
    ],
  },
  from: {
    type: 'string',
    value: 'PATH',
    help: 'with --images --to REGISTRY/PREFIX: push the images of the folder or archive at PATH (every blob checked against its digest first) to REGISTRY/PREFIX/<name>:<tag>, as --images REGISTRY/PREFIX would, and print the images: override',
  },
  'write-overrides': {
    type: 'string',
    value: 'FILE',
    help: 'with --images REGISTRY/PREFIX or --from: also write that override to FILE (merge it into capi-render.yaml or an overlay)',
  },
  ...RENDER_OPTIONS,
});

/** What mirror's handlers read: its table's values (mirror-images-command.ts reads the same). */
export type MirrorContext = CommandContext<OptionValues<typeof MIRROR_OPTIONS>>;

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
