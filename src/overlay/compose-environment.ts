/**
 * Builds an environment's inputs from its overlay: resolve `resources` (input folders or files,
 * or other overlays — composed first, recursively, with cycles refused), check that no object is
 * declared twice, apply the overlay's patches in order, and merge the settings (a child's
 * variables, images and labels override its bases', key by key). Files are read once per build.
 */
import { readInputFile, resolveInput } from '../repository-files.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { RenderError, SpecError, error, type Diagnostic } from '../errors.js';
import { isJsonObject, nameOf, namespaceOf } from '../manifest/object.js';
import type { CertManagerConfig, ImageOverrideConfig, VariableValue } from '../config/config-types.js';
import type { GitopsConfig } from '../gitops/options.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import { classifyInputs, type InputObject, type InputSet } from '../declarations/inputs.js';
import type { SourceDocument } from '../declarations/yaml-document.js';
import { loadOverlay, type OverlayLoader } from './load-overlay.js';
import { applyOverlayPatch } from './overlay-patch.js';
import { OVERLAY_FILE } from './overlay-types.js';

/** The settings an overlay chain layers, base first, child winning key by key. */
export interface OverlaySettings {
  certManager: CertManagerConfig;
  gitops: GitopsConfig;
  variables: Record<string, VariableValue>;
  images: Record<string, ImageOverrideConfig>;
  /** The overlays' imagePolicy settings (without capi-render.yaml's), field by field, innermost last. */
  imagePolicy: ImagePolicyConfig;
  labels: Record<string, string>;
  /** The overlay chain, base first (repository-relative overlay.yaml paths). */
  chain: string[];
}

export interface ComposedEnvironment extends OverlaySettings {
  inputs: InputSet;
  /** sha256 over every file the composition read (overlays, patch files, bases), for skipping unchanged environments. */
  inputsHash: string;
  /**
   * What the composition read, one line each: `overlay <file> <sha256>`, `resource <path> <sha256>`
   * (a folder or file of inputs, see spec/read-input-files.ts inputTreeDigest) or `patch <file> <sha256>`.
   */
  reads: string[];
}

export interface ComposeContext {
  repoRoot: string;
  providersDir: string;
  /** Reads every YAML document under a repository-relative folder or file (memoised by the caller). */
  readDocuments(relative: string): Promise<SourceDocument[]>;
  /** sha256 of the files under a repository-relative folder or file (memoised by the caller). */
  contentHash(relative: string): Promise<string>;
  /** Reads overlay files; default: read each time. */
  loadOverlay?: OverlayLoader;
}

/** Composes the overlay in `overlayDir` (repository-relative). */
export async function composeEnvironment(overlayDir: string, ctx: ComposeContext): Promise<ComposedEnvironment> {
  const composed = await compose(overlayDir, ctx, []);
  const { hashes, ...rest } = composed;
  return {
    ...rest,
    inputs: split(composed.objects),
    inputsHash: createHash('sha256').update(hashes.join('\n')).digest('hex'),
    reads: hashes,
  };
}

interface Partial extends OverlaySettings {
  /** What was read, in order: `<kind> <path> <sha256>` lines. */
  hashes: string[];
  objects: InputObject[];
}

async function compose(overlayDir: string, ctx: ComposeContext, stack: string[]): Promise<Partial> {
  const file = `${overlayDir}/${OVERLAY_FILE}`;
  if (stack.includes(overlayDir)) {
    throw new SpecError(
      error('overlay', `overlays form a cycle: ${[...stack, overlayDir].join(' → ')}`, {
        file,
        hint: 'an overlay cannot be its own base, directly or through others',
      }),
    );
  }
  const overlay = await (ctx.loadOverlay ?? loadOverlay)(ctx.repoRoot, file);
  const resources = overlay.spec.resources ?? [path.relative(overlayDir, ctx.providersDir) || '.'];
  const result: Partial = {
    hashes: [`overlay ${file} ${createHash('sha256').update(overlay.text).digest('hex')}`],
    objects: [],
    certManager: {},
    gitops: {},
    variables: {},
    images: {},
    imagePolicy: {},
    labels: {},
    chain: [],
  };
  const problems: Diagnostic[] = [];
  for (const [index, entry] of resources.entries()) {
    // Positions are only computed when a problem is reported (locating re-parses the file).
    const at = () => ({ file, ...overlay.doc.locate(['resources', index]), field: `resources[${index}]` });
    const target = path.posix.normalize(path.posix.join(overlayDir, entry));
    if (target.startsWith('..') || path.isAbsolute(entry)) {
      problems.push(
        error('overlay', `resource "${entry}" is outside the repository`, {
          ...at(),
          hint: 'bases must live inside the repository',
        }),
      );
      continue;
    }
    try {
      // Links on the way are followed inside the repository and refused out of it, as for every input.
      const found = resolveInput(ctx.repoRoot, target);
      if (!found) {
        problems.push(
          error('overlay', `resource "${entry}" does not exist (${target})`, {
            ...at(),
            hint: 'paths are relative to the overlay folder',
          }),
        );
        continue;
      }
      if (found.kind === 'folder' && resolveInput(ctx.repoRoot, `${target}/${OVERLAY_FILE}`) !== undefined) {
        const base = await compose(target, ctx, [...stack, overlayDir]);
        result.objects.push(...base.objects);
        result.hashes.push(...base.hashes);
        Object.assign(result.variables, base.variables);
        Object.assign(result.images, base.images);
        Object.assign(result.imagePolicy, base.imagePolicy);
        Object.assign(result.labels, base.labels);
        Object.assign(result.certManager, base.certManager);
        result.gitops = mergeGitopsConfig(result.gitops, base.gitops);
        result.chain.push(...base.chain);
      } else {
        const docs = await ctx.readDocuments(target);
        result.hashes.push(`resource ${target} ${await ctx.contentHash(target)}`);
        const classified = classifyInputs(docs);
        problems.push(...classified.diagnostics);
        result.objects.push(
          ...classified.inputs.providers,
          ...classified.inputs.configMaps,
          ...classified.inputs.secrets,
        );
      }
    } catch (e) {
      if (e instanceof RenderError) problems.push(...e.diagnostics);
      else throw e;
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  assertUnique(result.objects);

  for (const [index, entry] of (overlay.spec.patches ?? []).entries()) {
    const at = () => overlay.doc.locate(['patches', index]);
    const patchFile = entry.path ? path.posix.normalize(path.posix.join(overlayDir, entry.path)) : undefined;
    // The schema takes exactly one of `patch` and `path`. A patch file is an input like any other,
    // read by the repository reader (links, file kinds, size).
    const read =
      patchFile === undefined || patchFile.startsWith('..') ? undefined : await readInputFile(ctx.repoRoot, patchFile);
    if (patchFile !== undefined && !read) {
      throw new SpecError(
        error('overlay', `patches[${index}].path "${entry.path}" does not exist inside the repository`, {
          file,
          ...at(),
          field: `patches[${index}].path`,
        }),
      );
    }
    const text = read ? normalizeInputText(read.bytes.toString('utf8')) : (entry.patch ?? '');
    if (patchFile) result.hashes.push(`patch ${patchFile} ${createHash('sha256').update(text).digest('hex')}`);
    result.objects = applyOverlayPatch(result.objects, {
      text,
      target: entry.target,
      file: patchFile ?? file,
      position: () => (entry.path ? { line: 1, col: 1 } : at()),
      field: `patches[${index}]`,
    });
  }
  Object.assign(result.variables, overlay.spec.variables ?? {});
  Object.assign(result.images, overlay.spec.images ?? {});
  Object.assign(result.imagePolicy, overlay.spec.imagePolicy ?? {});
  Object.assign(result.labels, overlay.spec.labels ?? {});
  Object.assign(result.certManager, overlay.spec.certManager ?? {});
  result.gitops = mergeGitopsConfig(result.gitops, overlay.spec.gitops ?? {});
  result.chain.push(file);
  return result;
}

/**
 * The gitops settings of an overlay chain (bases first, child winning), reading only overlay files:
 * what the fleet stage needs of the environments a build does not render. Cycles and missing bases
 * are left to the build that renders the environment; here they just end the walk.
 */
export async function composeGitopsSettings(
  overlayDir: string,
  ctx: Pick<ComposeContext, 'repoRoot' | 'loadOverlay'>,
  stack: readonly string[] = [],
): Promise<{ gitops: GitopsConfig; file: string }> {
  const file = `${overlayDir}/${OVERLAY_FILE}`;
  const overlay = await (ctx.loadOverlay ?? loadOverlay)(ctx.repoRoot, file);
  let gitops: GitopsConfig = {};
  for (const entry of overlay.spec.resources ?? []) {
    const target = path.posix.normalize(path.posix.join(overlayDir, entry));
    if (
      target.startsWith('..') ||
      path.isAbsolute(entry) ||
      stack.includes(target) ||
      resolveInput(ctx.repoRoot, `${target}/${OVERLAY_FILE}`) === undefined
    )
      continue;
    gitops = mergeGitopsConfig(gitops, (await composeGitopsSettings(target, ctx, [...stack, overlayDir])).gitops);
  }
  return { gitops: mergeGitopsConfig(gitops, overlay.spec.gitops ?? {}), file };
}

function assertUnique(objects: readonly InputObject[]): void {
  const seen = new Map<string, InputObject>();
  const problems: Diagnostic[] = [];
  for (const o of objects) {
    const meta = isJsonObject(o.object.metadata) ? o.object.metadata : {};
    const key = `${String(o.object.kind)}/${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
    const first = seen.get(key);
    if (first) {
      problems.push(
        error(
          'overlay',
          `${o.object.kind}/${namespaceOf(o.object)}/${nameOf(o.object)} is declared twice: in ${first.file} and in ${o.file}`,
          {
            file: o.file,
            ...o.locate(['metadata', 'name']),
            hint: 'an environment takes each object once; remove one, or change it with a patch instead',
          },
        ),
      );
    } else seen.set(key, o);
  }
  if (problems.length > 0) throw new SpecError(problems);
}

function split(objects: readonly InputObject[]): InputSet {
  const inputs: InputSet = { providers: [], configMaps: [], secrets: [] };
  for (const o of objects) {
    if (o.object.kind === 'ConfigMap' && o.object.apiVersion === 'v1') inputs.configMaps.push(o);
    else if (o.object.kind === 'Secret' && o.object.apiVersion === 'v1') inputs.secrets.push(o);
    else inputs.providers.push(o);
  }
  return inputs;
}
