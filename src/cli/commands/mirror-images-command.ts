/**
 * `mirror --images`: the pinned images of the lock, registry to registry (`--images R/P`), into a
 * folder or archive to carry across an air gap (`--images --to DIR`), and from that folder into
 * the site's registry (`--images --from DIR --to R/P`).
 */
import path from 'node:path';
import { replaceFileDurably } from '../../durable-replace.js';
import { SpecError, UsageError, error } from '../../errors.js';
import {
  copyImages,
  mirrorOverrideText,
  planImageCopies,
  type CopiedSignatures,
  type ImageCopy,
  type PinnedImage,
} from '../../images/mirror-images.js';
import { createImageRegistry, type ImageRegistry } from '../../images/registry/image-registry.js';
import { listEnvironmentImages } from '../../images/image-list.js';
import { writeImageFolder, type ImageFolderFormat } from '../../images/layout/write-image-layout.js';
import { openImageFolder } from '../../images/layout/read-image-layout.js';
import { pushImageFolder } from '../../images/layout/push-image-layout.js';
import { render } from '../../render/render.js';
import type { RenderResult } from '../../render/render-options.js';
import { lockKeyOf } from '../../render/environment-result.js';
import { asFetch } from '../../source/http/network-fetch.js';
import { isOneOf } from '../options.js';
import { IMAGE_FOLDER_FORMATS, type MirrorContext } from './mirror-options.js';
import { prepareRender } from '../render-options.js';
import { assertMirrorTarget } from './mirror-target.js';
import { failpointFromEnv } from '../failpoint.js';

/** `mirror --images …` (`prefix`: its value, '' when given without one): picks the form from it and --from. */
export async function mirrorPinnedImages(ctx: MirrorContext, prefix: string): Promise<number> {
  const { values } = ctx;
  if (values.compress || values['oci-layout'] !== undefined)
    throw new UsageError('--images goes without --compress and --oci-layout');
  if (prefix !== '') {
    if (values.to !== undefined || values.format !== undefined || values.from !== undefined)
      throw new UsageError(
        '--images REGISTRY/PREFIX goes without --to, --from and --format (to write a folder: --images --to DIR)',
      );
    return copyToRegistry(ctx, prefix);
  }
  const { to } = values;
  if (!to)
    throw new UsageError(
      '--images needs a REGISTRY/PREFIX, or --to DIR (a folder to carry), or --from DIR --to REGISTRY/PREFIX',
    );
  if (values.from !== undefined) {
    if (values.format !== undefined)
      throw new UsageError(
        '--format goes with --images --to DIR, not with --from (the folder or archive is recognised)',
      );
    return pushFromFolder(ctx, values.from, to);
  }
  if (values['write-overrides'] !== undefined)
    throw new UsageError(
      '--write-overrides goes with --images REGISTRY/PREFIX or --images --from DIR --to REGISTRY/PREFIX',
    );
  const format = values.format ?? 'oci-layout';
  if (!isOneOf(IMAGE_FOLDER_FORMATS, format))
    throw new UsageError(`with --images, --format must be one of ${IMAGE_FOLDER_FORMATS.join(', ')}`);
  return writeToFolder(ctx, to, format);
}

/** The render of the repository, its pinned images, and a registry client with its settings. */
async function pinnedImages(
  ctx: MirrorContext,
): Promise<{ result: RenderResult; pinned: PinnedImage[]; registry: ImageRegistry }> {
  const { io } = ctx;
  const prepared = await prepareRender(ctx);
  const result = await render(prepared.options).finally(() => prepared.settleCache());
  // Named as the lock names them (as released), read where the output pulls them from.
  const pinned = [
    ...new Map(
      result.environments.flatMap((e) =>
        e.pinnedImages.map(
          ([at, digest]) => [`${lockKeyOf(e, at)}\u0000${at}`, { image: lockKeyOf(e, at), digest, at }] as const,
        ),
      ),
    ).values(),
  ];
  if (pinned.length === 0) {
    throw new SpecError(
      error('image', 'no image is pinned: mirror --images copies the images capi-render.lock pins', {
        file: 'capi-render.yaml',
        hint: 'set imagePolicy.pinDigests: true and build once online',
      }),
    );
  }
  const insecure = [...new Set(result.environments.flatMap((e) => e.imageRegistries?.insecureRegistries ?? []))];
  const credentials = Object.assign({}, ...result.environments.map((e) => e.imageRegistries?.credentials ?? {}));
  const registry = createImageRegistry({
    env: io.env,
    ...(prepared.options.fetch ? { fetch: asFetch(prepared.options.fetch) } : {}),
    insecureRegistries: insecure,
    credentials,
    onProgress: (p) =>
      io.stderr.write(`  ${p.image}: ${p.blobsDone}/${p.blobsTotal} blobs, ${p.copiedBytes}/${p.totalBytes} bytes\n`),
  });
  return { result, pinned, registry };
}

async function copyToRegistry(ctx: MirrorContext, prefix: string): Promise<number> {
  const { result, pinned, registry } = await pinnedImages(ctx);
  const copies = planImageCopies(pinned, prefix);
  let done = 0;
  await copyImages(copies, registry, (c, signatures) =>
    ctx.io.stderr.write(
      `[${++done}/${copies.length}] mirrored ${c.at}@${c.digest}${withSignatures(signatures)} to ${c.target}\n`,
    ),
  );
  return finishWithOverrides(ctx, result, prefix);
}

async function writeToFolder(ctx: MirrorContext, to: string, format: ImageFolderFormat): Promise<number> {
  const { io } = ctx;
  const target = path.resolve(io.cwd, to);
  const { result, pinned, registry } = await pinnedImages(ctx);
  await assertMirrorTarget(ctx.repoRoot, target, result, { writes: 'image blobs', example: 'vendor/images' });
  // The names the site's push will use must not collide; say so here, before anything is carried.
  planImageCopies(pinned, 'mirror.invalid/check');
  // One entry per image as the lock names it (wherever else an environment pulls it from: one digest).
  const images = [
    ...new Map(
      [...pinned].reverse().map((p) => [p.image, { image: p.image, digest: p.digest, from: p.at ?? p.image }]),
    ).values(),
  ];
  const failpoint = failpointFromEnv(io.env);
  let done = 0;
  await writeImageFolder({
    images,
    registry,
    target,
    format,
    ...(failpoint ? { failpoint } : {}),
    onImage: (w) =>
      io.stderr.write(
        `[${++done}/${images.length}] wrote ${w.image}@${w.digest}${withSignatures({ legacy: w.legacySignature, referrers: w.referrers })} (${w.fetched} blobs fetched, ${w.kept} already there)\n`,
      ),
  });
  io.stderr.write(
    `wrote ${images.length} image${images.length === 1 ? '' : 's'} as ${format === 'oci-layout' ? 'an OCI image layout' : 'an OCI archive'} to ${path.relative(io.cwd, target) || target}\n`,
  );
  return 0;
}

async function pushFromFolder(ctx: MirrorContext, from: string, prefix: string): Promise<number> {
  const { io } = ctx;
  const source = path.resolve(io.cwd, from);
  const folder = await openImageFolder(source);
  try {
    const { result, pinned, registry } = await pinnedImages(ctx);
    const copies: ImageCopy[] = planImageCopies(pinned, prefix);
    let done = 0;
    await pushImageFolder(folder, copies, registry, `--from ${from}`, (c, signatures) =>
      io.stderr.write(
        `[${++done}/${copies.length}] pushed ${c.image}@${c.digest}${withSignatures(signatures)} to ${c.target}\n`,
      ),
    );
    return await finishWithOverrides(ctx, result, prefix);
  } finally {
    await folder.close();
  }
}

/** Prints (and with --write-overrides writes) the images: override that points the environments at the mirror. */
async function finishWithOverrides(ctx: MirrorContext, result: RenderResult, prefix: string): Promise<number> {
  const { io, values } = ctx;
  const overrides = mirrorOverrideText(prefix);
  const byFlag = result.environments.flatMap((e) =>
    listEnvironmentImages(e.environment, new Set())
      .filter((i) => i.usedBy.some((u) => u.endsWith('(argument)')))
      .map((i) => i.image),
  );
  if (byFlag.length > 0)
    io.stderr.write(
      `note: passed as a controller argument, not redirected by images: (patch the argument to the mirror): ${[...new Set(byFlag)].sort().join(', ')}\n`,
    );
  if (values['write-overrides']) {
    const file = path.resolve(io.cwd, values['write-overrides']);
    await replaceFileDurably(file, overrides, { createFolders: false });
    io.stderr.write(`wrote the images: override to ${path.relative(io.cwd, file) || file}\n`);
  }
  io.stdout.write(overrides);
  return 0;
}

function withSignatures(s: CopiedSignatures): string {
  const parts = [
    s.legacy ? 'its .sig signatures' : '',
    s.referrers > 0 ? `${s.referrers} referrer${s.referrers === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` with ${parts.join(' and ')}` : '';
}
