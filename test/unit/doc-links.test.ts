/**
 * Every link into the manual resolves: relative links in README.md and docs/**\/*.md,
 * and the README / docs/ references in src/ and bundled-templates/ (error hints, help texts, the
 * files init writes, comments), each to an existing file and, where one is named, an existing
 * heading — by anchor (GitHub's slug rules) or by its quoted title (`docs/adoption.md "1. Dump the
 * cluster (read-only)"`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { githubSlug, headingAnchors, manualFiles, readManual, withoutFences } from '../helpers/markdown.js';

const anchorsOf = new Map<string, Set<string>>();
function anchors(rel: string): Set<string> {
  if (!anchorsOf.has(rel)) anchorsOf.set(rel, headingAnchors(readManual(REPO_ROOT, rel)));
  return anchorsOf.get(rel)!;
}

/** Why a link from `from` to `target` (a path relative to `from`'s folder, maybe with #anchor) does not resolve, or undefined. */
function problem(from: string, target: string): string | undefined {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const rel = file === '' ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(file)));
  if (rel.startsWith('..') || !existsSync(path.join(REPO_ROOT, rel))) return `${target}: no file ${rel}`;
  if (anchor === undefined || !rel.endsWith('.md') || statSync(path.join(REPO_ROOT, rel)).isDirectory())
    return undefined;
  return anchors(rel).has(anchor) ? undefined : `${target}: ${rel} has no heading #${anchor}`;
}

/** Markdown links and images `[text](target)` and reference definitions `[x]: target`, outside code. */
function markdownLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  withoutFences(text)
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/`[^`]*`/g, '');
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
        out.push({ line: i + 1, target: m[1]! });
      const def = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
      if (def) out.push({ line: i + 1, target: def[1]! });
    });
  return out;
}

/** Files of src/ and bundled-templates/ (any extension), excluding folders' own README.md files. */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.name !== 'README.md') out.push(child);
    }
  };
  walk('src');
  walk('bundled-templates');
  return out.sort();
}

/** A reference to the project's manual: README(.md) or docs/….md, maybe #anchor, maybe "Section". */
// A folder's own README.md ("see README.md in this folder") and cluster-api's docs/proposals/ (cited by
// their upstream path) are not ours.
const REFERENCE =
  /(?<![\w/.-])(README\.md(?! in this folder)|README(?![.\w])|docs\/(?!proposals\/)[\w./-]+?\.md)(#[\w-]+)?(?::?\s+"([^"]+)")?/g;
const GITHUB_URL =
  /github\.com\/[\w.-]+\/capi-render\/(?:blob|tree)\/[\w.-]+\/(README\.md|docs\/[\w./-]+?\.md)(#[\w-]+)?/g;

/** Why a reference from source text does not resolve, or undefined. */
function referenceProblem(file: string, anchor: string | undefined, section: string | undefined): string | undefined {
  const rel = file === 'README' ? 'README.md' : file;
  if (!existsSync(path.join(REPO_ROOT, rel))) return `no file ${rel}`;
  if (anchor && !anchors(rel).has(anchor.slice(1))) return `${rel} has no heading ${anchor}`;
  if (section && !anchors(rel).has(githubSlug(section))) return `${rel} has no heading "${section}"`;
  if (!anchor && !section && file === 'README')
    return 'names the README without a section: name the guide and heading (docs/<guide>.md "Heading")';
  return undefined;
}

describe('links into the manual', () => {
  it('the slug rules are GitHub’s', () => {
    expect(githubSlug('Network: proxies and failures')).toBe('network-proxies-and-failures');
    expect(githubSlug('The lock: capi-render.lock')).toBe('the-lock-capi-renderlock');
    expect(githubSlug('It does not uninstall Cluster API by accident (the removal guard)')).toBe(
      'it-does-not-uninstall-cluster-api-by-accident-the-removal-guard',
    );
    expect(githubSlug('1. Dump the cluster (read-only)')).toBe('1-dump-the-cluster-read-only');
    expect(githubSlug('`capi-render.yaml` and **overlays**')).toBe('capi-renderyaml-and-overlays');
    expect(githubSlug('Images: pinning, signatures, SBOM')).toBe('images-pinning-signatures-sbom');
    expect([...headingAnchors('# A\n## A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('every relative link in README.md and docs/ names an existing file and heading', () => {
    const files = manualFiles(REPO_ROOT);
    expect(files.length).toBeGreaterThan(10);
    let checked = 0;
    const broken: string[] = [];
    for (const from of files) {
      for (const { line, target } of markdownLinks(readManual(REPO_ROOT, from))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        checked++;
        const p = problem(from, target);
        if (p) broken.push(`${from}:${line}: ${p}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('every README or docs/ reference in src/ and bundled-templates/ resolves', () => {
    const found: string[] = [];
    const broken: string[] = [];
    for (const file of sourceFiles()) {
      const lines = readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const m of [...line.matchAll(REFERENCE), ...line.matchAll(GITHUB_URL)]) {
          found.push(`${file}:${i + 1}`);
          const p = referenceProblem(m[1]!, m[2], m[3]);
          if (p) broken.push(`${file}:${i + 1}: ${m[0]}: ${p}`);
        }
      });
    }
    // The hints that send users to the manual (variables, adoption, multi-namespace installs) are found.
    expect(found.length).toBeGreaterThanOrEqual(5);
    expect(broken).toEqual([]);
  });
});
