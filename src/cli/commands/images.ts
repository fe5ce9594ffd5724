/**
 * `capi-render images`: every container image an environment's output runs, with its digest — one
 * reference per line (for `skopeo copy` / `crane copy` loops, like `clusterctl init list-images`),
 * or `--json` with the components and objects that use each. Nothing is written.
 */
import { listEnvironmentImages, type ListedImage } from '../../images/image-list.js';
import { render } from '../../render/render.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { UNSHARDED_RENDER_OPTIONS, prepareRender } from '../render-options.js';

/** `capi-render images --json`. */
export interface ImageListDocument {
  apiVersion: 'capi-render/v1alpha1';
  kind: 'ImageList';
  environments: { environment: string; images: ListedImage[] }[];
}

export const imagesCommand = defineCommand({
  name: 'images',
  summary: "list every container image of the environments' output with its digest (pinned or not) and who uses it",
  options: {
    ...UNSHARDED_RENDER_OPTIONS,
    json: {
      type: 'boolean',
      help: 'print {apiVersion, kind: ImageList, environments: [{environment, images: [{reference, image, digest, pinned, components, usedBy}]}]}',
    },
  },
  async run(ctx) {
    const { io, values, color } = ctx;
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options).finally(() => prepared.settleCache());
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const environments = result.environments.map((e) => ({
      environment: e.environment.name,
      images: listEnvironmentImages(e.environment, new Set(e.pinnedImages.map(([image]) => image))),
    }));
    if (values.json) {
      const doc: ImageListDocument = { apiVersion: 'capi-render/v1alpha1', kind: 'ImageList', environments };
      io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      return 0;
    }
    // One reference per line, each once however many environments run it.
    const references = [...new Set(environments.flatMap((e) => e.images.map((i) => i.reference)))].sort();
    io.stdout.write(references.map((r) => `${r}\n`).join(''));
    const unpinned = [
      ...new Set(environments.flatMap((e) => e.images.filter((i) => i.digest === null).map((i) => i.image))),
    ];
    if (unpinned.length > 0)
      io.stderr.write(
        `${unpinned.length} image${unpinned.length === 1 ? ' runs' : 's run'} by tag alone (set imagePolicy.pinDigests: true to pin ${unpinned.length === 1 ? 'it' : 'them'})\n`,
      );
    return 0;
  },
});
