/**
 * capi-render.yaml as the records see it: the text with every `repositories[].path` value left
 * out. Where a local repository lives is configuration of this machine, not part of what is
 * rendered — the lock pins each release by label, version and sha256, and every file found at the
 * configured place is checked against that sha256 whenever it is read — so moving or renaming the
 * folder must change no record (the input digest, the build's inputs hash). Everything else in
 * the file counts byte for byte, comments included, as before.
 */
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';

/** `text` without the values of `repositories[*].path`; the text itself when it is not one YAML document with such entries. */
export function withoutRepositoryLocations(text: string): string {
  if (!text.includes('repositories')) return text;
  let doc;
  try {
    doc = parseDocument(text, { keepSourceTokens: false, uniqueKeys: false });
  } catch {
    return text;
  }
  if (doc.errors.length > 0 || !isMap(doc.contents)) return text;
  const repositories = doc.contents.get('repositories', true);
  if (!isSeq(repositories)) return text;
  const ranges: [number, number][] = [];
  for (const item of repositories.items) {
    if (!isMap(item)) continue;
    const path = item.get('path', true);
    if (isScalar(path) && path.range) ranges.push([path.range[0], path.range[1]]);
  }
  let out = text;
  for (const [start, end] of ranges.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}${out.slice(end)}`;
  return out;
}
