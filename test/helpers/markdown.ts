/**
 * Reading the manual as GitHub renders it: the Markdown files of README.md and docs/, their fenced
 * blocks, and their heading anchors by GitHub's slug rules. Shared by the transcript and link tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A fenced block: its info string's first word, the 1-based line of its opening fence, its lines. */
export interface FencedBlock {
  lang: string;
  line: number;
  lines: string[];
}

/** README.md and every `docs/**\/*.md`, relative to `root`, `/`-separated, in name order. */
export function manualFiles(root: string): string[] {
  const out = ['README.md'];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.md')) out.push(child);
    }
  };
  walk('docs');
  return out;
}

/**
 * The fenced blocks of a Markdown text (``` or ~~~ fences of three or more, as CommonMark closes
 * them: the same character, at least as long, nothing after it).
 */
export function fencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split('\n');
  let open: { fence: string; block: FencedBlock } | undefined;
  lines.forEach((line, i) => {
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
        blocks.push(open.block);
        open = undefined;
      } else open.block.lines.push(line);
      return;
    }
    const start = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (start) open = { fence: start[1]!, block: { lang: start[2]!, line: i + 1, lines: [] } };
  });
  return blocks;
}

/** The text with every fenced block's lines (fences included) blanked, so line numbers still hold. */
export function withoutFences(text: string): string {
  const lines = text.split('\n');
  for (const b of fencedBlocks(text))
    for (let i = b.line - 1; i <= b.line + b.lines.length && i < lines.length; i++) lines[i] = '';
  return lines.join('\n');
}

/**
 * GitHub's anchor for a heading's text: inline markup removed (code ticks, `*` emphasis, link targets),
 * lower-cased, every character that is not a letter, a digit, `_`, `-` or a space dropped, spaces
 * made hyphens (github-slugger, which GitHub's renderer follows).
 */
export function githubSlug(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*`]/g, '');
  return plain
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text's headings get, repeated slugs numbered `-1`, `-2` as GitHub does. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text).split('\n')) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = githubSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Reads a manual file relative to `root`. */
export function readManual(root: string, rel: string): string {
  return readFileSync(path.join(root, rel), 'utf8');
}
