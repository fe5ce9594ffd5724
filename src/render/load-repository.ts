/**
 * Reads a capi-render repository: capi-render.yaml, every YAML document under providers/, and the
 * environments (overlays/<env>/overlay.yaml; without overlays there is one environment, `default`).
 * Parse problems in all files are reported together.
 */
import { RenderError, SpecError, type Diagnostic } from '../errors.js';
import { loadConfig } from '../config/load-config.js';
import type { RenderConfig } from '../config/config-types.js';
import { inputTreeDigestOf, readInputFiles } from '../spec/read-input-files.js';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../config/config-types.js';
import { normalizeInputText } from '../spec/input-text.js';
import { parseSourceDocuments, type SourceDocument } from '../spec/yaml-document.js';
import { NO_VALIDATION_MEMO, type ValidationMemo } from '../spec/schema/validation-memo.js';

export interface LoadedRepository {
  repoRoot: string;
  config: RenderConfig;
  /** sha256 of capi-render.yaml's text ('' when absent). */
  configHash: string;
  /** Documents of providers/, in file-path order. */
  base: SourceDocument[];
  /** sha256 of providers/' files. */
  baseHash: string;
}

export async function loadRepository(repoRoot: string, memo: ValidationMemo = NO_VALIDATION_MEMO): Promise<LoadedRepository> {
  const config = await loadConfig(repoRoot, memo);
  const configText = normalizeInputText(await fs.readFile(path.join(repoRoot, CONFIG_FILE), 'utf8').catch(() => ''));
  const base = await readInputTree(repoRoot, config.providersDir);
  return { repoRoot, config, configHash: sha256(configText), base: base.documents, baseHash: base.sha256 };
}

/** Parses every YAML file under `dir`; all syntax errors of all files are thrown together. */
export async function readDocuments(repoRoot: string, dir: string): Promise<SourceDocument[]> {
  return (await readInputTree(repoRoot, dir)).documents;
}

/** The documents under `dir` and a sha256 over the files' paths and texts. */
export async function readInputTree(repoRoot: string, dir: string): Promise<{ documents: SourceDocument[]; sha256: string }> {
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
