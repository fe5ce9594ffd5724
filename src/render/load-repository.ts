/**
 * Reads a capi-render repository: capi-render.yaml, every YAML document under providers/, and the
 * environments (overlays/<env>/overlay.yaml; without overlays there is one environment, `default`).
 * Parse problems in all files are reported together.
 */
import { RenderError, SpecError, throwIfErrors, type Diagnostic } from '../errors.js';
import { repositoryPathDiagnostics } from '../config/repository-paths.js';
import { controllerFolderDiagnostics } from './controller-folders.js';
import { loadConfig } from '../config/load-config.js';
import type { RenderConfig } from '../config/config-types.js';
import { inputTreeDigestOf, readInputFiles } from '../declarations/read-input-files.js';
import { createHash } from 'node:crypto';
import { readInputFile } from '../repository-files.js';
import { CONFIG_FILE } from '../config/config-types.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { parseSourceDocuments, type SourceDocument } from '../declarations/yaml-document.js';
import { NO_VALIDATION_MEMO, type ValidationMemo } from '../declarations/schema/validation-memo.js';
import { withoutRepositoryLocations } from '../config/location-free-config.js';

export interface LoadedRepository {
  repoRoot: string;
  config: RenderConfig;
  /** sha256 of capi-render.yaml's text ('' when absent). */
  configHash: string;
  /** Documents of providers/, in file-path order. */
  base: SourceDocument[];
  /** sha256 of providers/' files. */
  baseHash: string;
  /** Warnings about capi-render.yaml's settings (an absolute `repositories:` path into the repository). */
  warnings: Diagnostic[];
}

export interface LoadRepositoryOptions {
  /** A folder this command creates (`mirror --to`), which a `repositories:` path may name before it exists. */
  fillingRepository?: string;
}

/**
 * Loads the repository and refuses settings that point at nothing a build could use: a
 * `repositories:` path that does not exist (config/repository-paths.ts), an output or gitops folder
 * that Argo CD or Flux are pointed at outside the repository (controller-folders.ts) — before any
 * release is fetched or any file written.
 */
export async function loadRepository(
  repoRoot: string,
  memo: ValidationMemo = NO_VALIDATION_MEMO,
  options: LoadRepositoryOptions = {},
): Promise<LoadedRepository> {
  const config = await loadConfig(repoRoot, memo);
  const settings = [
    ...repositoryPathDiagnostics(
      repoRoot,
      config.repositories,
      options.fillingRepository === undefined ? {} : { filling: options.fillingRepository },
    ),
    ...(await controllerFolderDiagnostics(repoRoot, config)),
  ];
  const warnings = throwIfErrors(settings);
  const configText = normalizeInputText((await readInputFile(repoRoot, CONFIG_FILE))?.bytes.toString('utf8') ?? '');
  const base = await readInputTree(repoRoot, config.providersDir);
  return {
    repoRoot,
    config,
    configHash: sha256(await withoutRepositoryLocations(configText)),
    base: base.documents,
    baseHash: base.sha256,
    warnings,
  };
}

/** Parses every YAML file under `dir`; all syntax errors of all files are thrown together. */
export async function readDocuments(repoRoot: string, dir: string): Promise<SourceDocument[]> {
  return (await readInputTree(repoRoot, dir)).documents;
}

/** The documents under `dir` and a sha256 over the files' paths and texts. */
export async function readInputTree(
  repoRoot: string,
  dir: string,
): Promise<{ documents: SourceDocument[]; sha256: string }> {
  const files = await readInputFiles(repoRoot, dir);
  const docs: SourceDocument[] = [];
  const problems: Diagnostic[] = [];
  for (const f of files) {
    try {
      docs.push(...parseSourceDocuments(f.text, f.file));
    } catch (e) {
      if (e instanceof RenderError) problems.push(...e.diagnostics);
      else throw e;
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return { documents: docs, sha256: inputTreeDigestOf(files) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
