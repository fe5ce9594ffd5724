/**
 * capi-render.yaml as the records see it: the text with every `repositories[].path` value left
 * out. Where a local repository lives is configuration of this machine, not part of what is
 * rendered — the lock pins each release by label, version and sha256, and every file found at the
 * configured place is checked against that sha256 whenever it is read — so moving or renaming the
 * folder must change no record (the input digest, the build's inputs hash). Everything else in
 * the file counts byte for byte, comments included.
 *
 * The no-op build computes this on every run, so the block form every example and `init` write is
 * read line by line here; any other form (flow collections, anchors, several documents…) goes to
 * the YAML library, loaded only then. Both leave out exactly the bytes of each path's value.
 */
import { yamlLibrary } from '../yaml-library.js';

/** `text` without the values of `repositories[*].path`; the text itself when it holds no such entry. */
export async function withoutRepositoryLocations(text: string): Promise<string> {
  if (!text.includes('repositories')) return text;
  return blockFormWithoutLocations(text) ?? (await parsedWithoutLocations(text));
}

const KEY = /^repositories:[ \t]*(#.*)?$/;
/** `- path: v`, `path: v` under an item: the value a plain or quoted scalar on its line, then an optional comment. */
const PATH = /^( *(?:- +)?path:[ ]+)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"&*!|>[\]{},][^#]*?)([ \t]*(?:[ \t]#.*)?)$/;
/** Lines of the block that carry no path: other keys of an item, comments, blank lines. */
const OTHER =
  /^( +[A-Za-z_][\w-]*:[ ]+[^\s#'"&*!|>[\]{},][^#]*?|( *- +)?[A-Za-z_][\w-]*:[ ]+[^\s#'"&*!|>[\]{},][^#]*?)([ \t]*(?:[ \t]#.*)?)$|^[ \t]*(#.*)?$/;

/** The block form read line by line; undefined when the text has any other shape. */
export function blockFormWithoutLocations(text: string): string | undefined {
  const lines = text.split('\n');
  const keys = lines.flatMap((l, i) => (KEY.test(l) ? [i] : []));
  if (keys.length !== 1) return undefined;
  if (lines.some((l) => /^(---|\.\.\.|%)/.test(l) || /[\t\r]/.test(l))) return undefined;
  // 'repositories' anywhere else than the key or a comment is a form this reader does not know.
  if (lines.some((l, i) => i !== keys[0] && l.includes('repositories') && !/^[ \t]*#/.test(l))) return undefined;
  const out = [...lines];
  for (let i = keys[0]! + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\S/.test(line) && !line.startsWith('-') && !line.startsWith('#')) break;
    const path = PATH.exec(line);
    if (path) {
      out[i] = `${path[1]}${path[3]}`;
      continue;
    }
    if (!OTHER.test(line)) return undefined;
  }
  return out.join('\n');
}

/** Any YAML form, through the library: each path value's exact bytes left out. */
export async function parsedWithoutLocations(text: string): Promise<string> {
  const { isMap, isScalar, isSeq, parseDocument } = yamlLibrary();
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: false });
  } catch {
    return text;
  }
  if (doc.errors.length > 0 || !isMap(doc.contents)) return text;
  const repositories = doc.contents.get('repositories', true);
  if (!isSeq(repositories)) return text;
  const ranges: [number, number][] = [];
  for (const item of repositories.items) {
    if (!isMap(item)) continue;
    // Every `path` key of the item (a repeated key is the config loader's to refuse).
    for (const pair of item.items) {
      if (isScalar(pair.key) && pair.key.value === 'path' && isScalar(pair.value) && pair.value.range)
        ranges.push([pair.value.range[0], pair.value.range[1]]);
    }
  }
  let out = text;
  for (const [start, end] of ranges.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}${out.slice(end)}`;
  return out;
}
