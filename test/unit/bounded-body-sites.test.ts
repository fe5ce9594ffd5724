/**
 * Every network body is read through src/source/http/bounded-body.ts (docs/sources-and-lock.md,
 * "Network answers are bounded"): no other file of src/ reads a body whole or as a stream, so a new
 * read site cannot slip in unbounded. test/integration/network-body-limits.test.ts checks each
 * existing site against a server with endless and oversized answers.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';

const SRC = path.join(REPO_ROOT, 'src');
const READER = 'source/http/bounded-body.ts';

/** Ways to read a fetch / undici body other than the bounded reader. */
const READS: { name: string; pattern: RegExp }[] = [
  {
    name: 'a whole-body read (.arrayBuffer(), .text(), .json(), .bytes(), .blob(), .formData())',
    pattern: /\.(?:arrayBuffer|text|json|bytes|blob|formData)\(\s*\)/,
  },
  { name: 'a stream reader (.getReader())', pattern: /\.getReader\(/ },
  {
    name: 'a body piped or iterated (pipeTo, pipeThrough, Readable.fromWeb, for await … of ….body)',
    pattern: /\.pipeTo\(|\.pipeThrough\(|Readable\.fromWeb\(|for\s+await\s*\([^)]*\bof\s+[\w.?]*\bbody\b/,
  },
  {
    name: "undici's own body mixins (.body.text(), .body.json(), .dump())",
    pattern: /\.body\.(?:text|json|arrayBuffer|dump)\(/,
  },
];

/**
 * The source without its comment lines (`/**`, ` *`, `//` at the start of a line: the project's
 * comments are written so), so prose may name the calls. A string like `"cluster-api/*"` stays code.
 */
function code(text: string): string {
  return text.replace(/^\s*(?:\/\*|\*|\/\/).*$/gm, '');
}

/** `file:line: what` for every read outside the bounded reader. */
function findReads(relative: string, text: string): string[] {
  if (relative === READER) return [];
  const out: string[] = [];
  code(text)
    .split('\n')
    .forEach((line, i) => {
      for (const read of READS)
        if (read.pattern.test(line)) out.push(`${relative}:${i + 1}: ${read.name}: ${line.trim()}`);
    });
  return out;
}

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sourceFiles(path.join(dir, entry.name), relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

describe('network bodies are read only by the bounded reader', () => {
  it('no file of src/ but source/http/bounded-body.ts reads a response body', () => {
    const files = sourceFiles(SRC);
    expect(files).toContain(READER);
    const reads = files.flatMap((f) => findReads(f, readFileSync(path.join(SRC, f), 'utf8')));
    expect(
      reads,
      'read bodies with readBody / readText / readMessage / bufferResponse (src/source/http/bounded-body.ts)',
    ).toEqual([]);
  });

  it('the bounded reader is where the stream is read', () => {
    expect(code(readFileSync(path.join(SRC, READER), 'utf8'))).toMatch(/\.getReader\(\)/);
  });

  it.each([
    ['const bytes = new Uint8Array(await response.arrayBuffer());', true],
    ['const body = (await response.json().catch(() => ({}))) as { tags?: unknown };', true],
    ['const text = await res.text();', true],
    ['if (body instanceof ReadableStream) return new Uint8Array(await new Response(body).arrayBuffer());', true],
    ['const reader = response.body.getReader();', true],
    ['for await (const chunk of response.body) total += chunk.length;', true],
    ['await response.body.pipeTo(sink);', true],
    ['const { body } = await undici.request(url); const text = await body.text();', true],
    ['await response.body?.cancel();', false],
    ['const text = await readText(response, what, REGISTRY_JSON_LIMIT);', false],
    ['// a comment may say response.arrayBuffer()', false],
  ])('recognises %s: %s', (line, flagged) => {
    expect(findReads('some/file.ts', line).length > 0).toBe(flagged);
  });
});
