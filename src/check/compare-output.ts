/**
 * Compares what the inputs render with what is committed: files that differ (hand edits), files that
 * are missing, files that should not be there (stale), and a lock that no longer matches. Pure: the
 * caller reads the disk. Differences in YAML files are summarised field by field, so a reviewer sees
 * `spec.replicas: 1 → 3`, not a text diff.
 */
import jsYaml from 'js-yaml';
import { diffFields } from '../diff/diff-fields.js';

export type DriftKind = 'edited' | 'missing' | 'stale';

export interface FileDrift {
  /** Path relative to the repository root. */
  file: string;
  kind: DriftKind;
  /** For edited files: a few `field: before → after` lines. */
  details: string[];
}

/**
 * `planned` and `committed` map paths (relative to the same folder) to text; `prefix` is that
 * folder relative to the repository root, for the report. `inScope` limits which committed files
 * are considered (the environments that were rendered).
 */
export function compareTrees(
  planned: ReadonlyMap<string, string>,
  committed: ReadonlyMap<string, string>,
  prefix: string,
  inScope: (relative: string) => boolean = () => true,
): FileDrift[] {
  const out: FileDrift[] = [];
  for (const [rel, text] of planned) {
    const current = committed.get(rel);
    if (current === undefined) out.push({ file: `${prefix}/${rel}`, kind: 'missing', details: [] });
    else if (current !== text)
      out.push({ file: `${prefix}/${rel}`, kind: 'edited', details: summarize(current, text) });
  }
  for (const rel of committed.keys()) {
    if (!planned.has(rel) && inScope(rel)) out.push({ file: `${prefix}/${rel}`, kind: 'stale', details: [] });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

const MAX_DETAILS = 5;

function summarize(committedText: string, plannedText: string): string[] {
  let before: unknown;
  let after: unknown;
  try {
    before = jsYaml.load(committedText, { schema: jsYaml.CORE_SCHEMA });
    after = jsYaml.load(plannedText, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return ['the committed file is not valid YAML'];
  }
  const changes = diffFields(before, after);
  if (changes.length === 0) return ['formatting only (same objects, different bytes)'];
  const lines = changes.slice(0, MAX_DETAILS).map((c) => {
    const show = (v: unknown) => (v === undefined ? '∅' : truncate(JSON.stringify(v)));
    return `${c.path || '(whole object)'}: committed ${show(c.before)}, inputs render ${show(c.after)}`;
  });
  if (changes.length > MAX_DETAILS) lines.push(`… ${changes.length - MAX_DETAILS} more differences`);
  return lines;
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
