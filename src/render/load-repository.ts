/**
 * Reads a capi-render repository: capi-render.yaml, every YAML document under providers/, and the
 * environments (overlays/<env>/overlay.yaml; without overlays there is one environment, `default`).
 * Parse problems in all files are reported together.
 */
import { RenderError, SpecError, type Diagnostic } from '../errors.js';
import { loadConfig } from '../config/load-config.js';
import type { RenderConfig } from '../config/config-types.js';
import { readInputFiles } from '../spec/read-input-files.js';
import { parseSourceDocuments, type SourceDocument } from '../spec/yaml-document.js';

export interface LoadedRepository {
  repoRoot: string;
  config: RenderConfig;
  /** Documents of providers/, in file-path order. */
  base: SourceDocument[];
}

export async function loadRepository(repoRoot: string): Promise<LoadedRepository> {
  const config = await loadConfig(repoRoot);
  const base = await readDocuments(repoRoot, config.providersDir);
  return { repoRoot, config, base };
}

/** Parses every YAML file under `dir`; all syntax errors of all files are thrown together. */
export async function readDocuments(repoRoot: string, dir: string): Promise<SourceDocument[]> {
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
  return docs;
}
