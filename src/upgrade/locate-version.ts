/**
 * For every provider of every environment: the file and byte range that decide its `spec.version`.
 * Composition already remembers which overlay patch last wrote each field (overlay-patch.ts
 * `patched().locate`), so the environment's effective inputs point either at the provider CR's own
 * document or at the patch — inline in an overlay.yaml (`patches[i]`, matched by its position) or a
 * patch file. That file is then read with the `yaml` Document API to find the exact scalar.
 */
import path from 'node:path';
import YAML, { isMap, isScalar, isSeq, type Scalar } from 'yaml';
import { SpecError, error, type Diagnostic } from '../errors.js';
import { isJsonObject } from '../manifest/object.js';
import { readInputFile } from '../repository-files.js';
import { OVERLAY_FILE } from '../overlay/overlay-types.js';
import { effectiveInputs } from '../render/effective-inputs.js';
import type { InputObject } from '../declarations/inputs.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import {
  mapInlineRange,
  shiftEdit,
  versionInObject,
  versionInPatch,
  type SiteLookup,
  type VersionEdit,
} from './version-site.js';

/** The place that sets one provider's version in one environment. */
export interface VersionSite {
  /** Repository-relative file (`/`-separated). */
  file: string;
  /** 1-based line of the value (or of the insertion). */
  line: number;
  /** What sets it, for messages: `spec.version`, `patches[0] (replace /spec/version)`. */
  what: string;
  edit: VersionEdit;
  /** Same key ⇔ same bytes: providers and environments that share the site. */
  key: string;
}

/** env → `Kind/namespace/name` → site. */
export type VersionSites = Map<string, Map<string, VersionSite>>;

/** Locates the version sites of the given environments; throws SpecError `upgrade` naming every site that cannot be edited. */
export async function locateVersionSites(repoRoot: string, environments: readonly string[]): Promise<VersionSites> {
  const texts = new Map<string, Promise<string>>();
  const read = (file: string): Promise<string> => {
    let pending = texts.get(file);
    if (!pending) {
      pending = readInputFile(repoRoot, file).then((read) => {
        if (!read) throw new SpecError(error('input-path', `${file} does not exist`, { file }));
        return read.bytes.toString('utf8');
      });
      texts.set(file, pending);
    }
    return pending;
  };
  const out: VersionSites = new Map();
  const problems: Diagnostic[] = [];
  for (const env of environments) {
    const composed = await effectiveInputs(repoRoot, env);
    const sites = new Map<string, VersionSite>();
    out.set(env, sites);
    for (const input of composed?.inputs.providers ?? []) {
      const ref = refOf(input);
      const at = input.locate(['spec', 'version'], 'value');
      const file = at.file ?? input.file;
      const text = await read(file);
      const lookup = at.file === undefined ? siteInProvider(text, file, input) : siteInPatch(text, file, at);
      if ('unsupported' in lookup) {
        problems.push(
          error(
            'upgrade',
            `[${env}] cannot edit the version of ${ref}: ${file}:${at.line} sets it, but ${lookup.unsupported}`,
            {
              file,
              line: at.line,
              object: ref,
              field: 'spec.version',
              hint: 'set the version with a provider CR field, an RFC 6902 replace of /spec/version, or a strategic-merge spec.version',
            },
          ),
        );
        continue;
      }
      sites.set(ref, {
        file,
        line: lineOf(text, lookup.edit.start),
        what: lookup.what,
        edit: lookup.edit,
        key: `${file}\u0000${lookup.edit.start}`,
      });
    }
  }
  if (problems.length > 0) throw new SpecError(problems);
  return out;
}

function refOf(input: InputObject): string {
  const meta = isJsonObject(input.object.metadata) ? input.object.metadata : {};
  return `${String(input.object.kind)}/${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
}

/** The provider CR's own document: found by kind, name and namespace among the file's documents. */
function siteInProvider(text: string, file: string, input: InputObject): SiteLookup {
  const meta = isJsonObject(input.object.metadata) ? input.object.metadata : {};
  for (const doc of YAML.parseAllDocuments(text)) {
    if (!('contents' in doc)) continue;
    const value = doc.toJS() as unknown;
    if (!isJsonObject(value) || value.kind !== input.object.kind || value.apiVersion !== input.object.apiVersion)
      continue;
    const m = isJsonObject(value.metadata) ? value.metadata : {};
    if (m.name === meta.name && m.namespace === meta.namespace) return versionInObject(text, doc.contents);
  }
  return { unsupported: `the document of the provider was not found in ${file}` };
}

/** A patch: inline in an overlay.yaml (the position is its `patches[i]` entry) or a whole patch file. */
function siteInPatch(text: string, file: string, at: { line: number; col: number }): SiteLookup {
  if (path.posix.basename(file) === OVERLAY_FILE) {
    const inline = inlinePatch(text, file, at);
    if (inline) {
      const found = versionInPatch(String(inline.scalar.value));
      if ('unsupported' in found) return { unsupported: `patches[${inline.index}]: ${found.unsupported}` };
      const edit = shiftEdit(found.edit, (s, e) => mapInlineRange(text, inline.scalar, s, e));
      return edit
        ? { edit, what: `patches[${inline.index}], ${found.what}` }
        : {
            unsupported: `patches[${inline.index}] is a string whose bytes cannot be edited in place (use a literal block, patch: |)`,
          };
    }
  }
  const found = versionInPatch(text);
  return 'unsupported' in found ? found : { edit: found.edit, what: `patch file, ${found.what}` };
}

/** The inline patch entry of overlay.yaml that composition located at `at`, if any. */
function inlinePatch(
  text: string,
  file: string,
  at: { line: number; col: number },
): { index: number; scalar: Scalar } | undefined {
  const [located] = parseSourceDocuments(text, file);
  const doc = YAML.parseDocument(text);
  const patches = doc.get('patches', true);
  if (!located || !isSeq(patches)) return undefined;
  for (let index = 0; index < patches.items.length; index++) {
    const pos = located.locate(['patches', index]);
    if (pos.line !== at.line || pos.col !== at.col) continue;
    const entry = patches.items[index];
    const scalar = isMap(entry) ? entry.get('patch', true) : undefined;
    return isScalar(scalar) ? { index, scalar } : undefined;
  }
  return undefined;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}
