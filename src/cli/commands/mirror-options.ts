/** `capi-render mirror`'s option table, shared by its two handlers (releases and images). */
import type { CommandContext } from '../command.js';
import { defineOptions, type OptionValues } from '../options.js';
import { RENDER_OPTIONS } from '../render-options.js';

/** The folder formats of `mirror --images --to DIR`. */
export const IMAGE_FOLDER_FORMATS = ['oci-layout', 'oci-archive'] as const;

export const FORMATS = ['repository', 'configmaps', 'oci'] as const;

export const MIRROR_OPTIONS = defineOptions({
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
