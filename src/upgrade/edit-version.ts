/**
 * Applies version edits to a file's text: each edit replaces exactly the bytes of one version scalar
 * (keeping its quoting style) or inserts one `version:` line, so every other byte of the file —
 * comments such as `# renovate: …`, blank lines, quoting, key order — stays as it was. The result is
 * re-read with the `yaml` Document API and must parse cleanly. Pure.
 */
import YAML from 'yaml';
import { InternalError } from '../errors.js';
import type { ScalarStyle, VersionEdit } from './version-site.js';

/** An edit with the version to write. */
export interface PlannedEdit {
  edit: VersionEdit;
  version: string;
}

/** The text with every edit applied (edits must not overlap; the same edit twice is applied once). */
export function applyVersionEdits(text: string, edits: readonly PlannedEdit[]): string {
  const unique = new Map<number, PlannedEdit>();
  for (const e of edits) {
    const seen = unique.get(e.edit.start);
    if (seen && seen.version !== e.version)
      throw new InternalError(`two versions (${seen.version}, ${e.version}) for one place at offset ${e.edit.start}`);
    unique.set(e.edit.start, e);
  }
  // From the end of the file backwards, so earlier offsets stay valid.
  const ordered = [...unique.values()].sort((a, b) => b.edit.start - a.edit.start);
  let out = text;
  for (const { edit, version } of ordered) {
    out =
      edit.type === 'replace'
        ? out.slice(0, edit.start) + scalarText(version, edit.style) + out.slice(edit.end)
        : out.slice(0, edit.start) + `${edit.indent}version: ${scalarText(version, 'plain')}\n` + out.slice(edit.start);
  }
  const problems = YAML.parseAllDocuments(out).flatMap((d) => ('errors' in d ? d.errors : []));
  if (problems.length > 0) throw new InternalError(`editing versions produced invalid YAML: ${problems[0]!.message}`);
  return out;
}

/** The version as a YAML scalar in the given style; a plain version that YAML would not read as a string is quoted. */
export function scalarText(version: string, style: ScalarStyle): string {
  if (style === 'double') return JSON.stringify(version);
  if (style === 'single') return `'${version.replace(/'/g, "''")}'`;
  const reread = YAML.parse(version) as unknown;
  return typeof reread === 'string' && reread === version && !/[#:]/.test(version) ? version : JSON.stringify(version);
}
