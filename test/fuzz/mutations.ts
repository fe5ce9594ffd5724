/**
 * Mutations of a generated repository, as plain data (so a failing case can be written out and
 * replayed) applied to the folder on disk: YAML-level (duplicate keys, anchors and aliases, tags,
 * deep nesting, huge scalars, invalid UTF-8, NUL, CRLF, BOM, tabs), structure-level (wrong types,
 * unknown and missing fields, odd names), file-system-level (symlinks in and out — an overlay file
 * or patch linked to its own bytes outside the repository among them —, FIFOs, folders named *.yaml,
 * read-only folders, empty files, case collisions) and lock-level (a field edited, entries added or
 * removed, conflict markers, the lock replaced by a link to /dev/zero). Every choice is an index taken modulo what exists,
 * so any mutation applies to any repository and shrinks toward the first file, line or field.
 * Output damage (applyOutputDamage) is what a user or a script does to rendered/ and gitops/
 * between builds: both folders removed, an environment's folder removed, a GitOps file removed, an
 * output file edited in place.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { isMap, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';

export const YAML_OPS = [
  'dup-key',
  'anchor',
  'alias-bomb',
  'tag',
  'deep',
  'huge',
  'bad-utf8',
  'nul',
  'crlf',
  'bom',
  'tab',
  'separator',
  'truncate',
] as const;
export const STRUCT_OPS = ['wrong-type', 'unknown-field', 'delete-field', 'odd-name', 'duplicate-doc'] as const;
export const FS_OPS = [
  'symlink-in',
  'symlink-out',
  'symlink-dir',
  'fifo',
  'dir-yaml',
  'readonly',
  'empty',
  'case-collision',
  'odd-file-name',
  'delete',
  'copy',
  'overlay-linked-out',
  'secret-file',
] as const;
export const LOCK_OPS = ['edit-field', 'add-entry', 'remove-entry', 'conflict', 'dev-zero'] as const;

/**
 * Where the runner keeps, outside the repository, a copy of every file of a case as it was written
 * (repo-case.ts materialize): `overlay-linked-out` links an input to its own bytes there, so a build
 * that read through the link would render exactly as before — only the link rule can refuse it.
 */
export const OUTSIDE_COPIES = 'copies';

/** The file beside the repository (in `outside`) a configSecret's `{fromFile}` reference names; `secret-file` replaces it. */
export const SECRET_FILE = 'fz-secret-value';

export type Mutation =
  | { level: 'yaml'; op: (typeof YAML_OPS)[number]; file: number; at: number; size: number }
  | { level: 'structure'; op: (typeof STRUCT_OPS)[number]; file: number; at: number; value: number }
  | { level: 'fs'; op: (typeof FS_OPS)[number]; file: number; at: number }
  | { level: 'lock'; op: (typeof LOCK_OPS)[number]; at: number; value: number };

/** Which files a mutation may pick: inputs only, or (after a build) the output and lock too. */
export type Stage = 'inputs' | 'all';

const pick = fc.nat(1_000_000);
export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    level: fc.constant('yaml' as const),
    op: fc.constantFrom(...YAML_OPS),
    file: pick,
    at: pick,
    size: fc.nat(6),
  }),
  fc.record({
    level: fc.constant('structure' as const),
    op: fc.constantFrom(...STRUCT_OPS),
    file: pick,
    at: pick,
    value: fc.nat(40),
  }),
  fc.record({ level: fc.constant('fs' as const), op: fc.constantFrom(...FS_OPS), file: pick, at: pick }),
  fc.record({ level: fc.constant('lock' as const), op: fc.constantFrom(...LOCK_OPS), at: pick, value: fc.nat(40) }),
);

const OUTPUT = /^(rendered|gitops)\//;

export const OUTPUT_DAMAGE_OPS = ['rm-output-folders', 'rm-environment', 'rm-gitops-file', 'edit-output-file'] as const;

/** One damage to the output between builds; `at` picks the folder or file (modulo what exists). */
export interface OutputDamage {
  op: (typeof OUTPUT_DAMAGE_OPS)[number];
  at: number;
}

export const outputDamageArb: fc.Arbitrary<OutputDamage> = fc.record({
  op: fc.constantFrom(...OUTPUT_DAMAGE_OPS),
  at: fc.nat(1_000_000),
});

/**
 * Applies one output damage to the repository folder. An edit is in place: a file hard-linked
 * with other environments' (same bytes) changes in all of them, as with an editor that writes in
 * place; half the edits keep the size and put the modification time back (only the change time
 * tells). The ownership records are left alone (removing whole folders removes them too).
 */
export function applyOutputDamage(dir: string, d: OutputDamage): void {
  const files = (root: string) =>
    regularFiles(path.join(dir, root))
      .filter((f) => path.basename(f) !== '.capi-render-owned')
      .map((f) => `${root}/${f}`);
  const pickOf = <T>(list: T[]): T | undefined => (list.length > 0 ? list[d.at % list.length] : undefined);
  safely(() => {
    if (d.op === 'rm-output-folders')
      for (const root of ['rendered', 'gitops']) rmSync(path.join(dir, root), { recursive: true, force: true });
    else if (d.op === 'rm-environment') {
      const envs = existsSync(path.join(dir, 'rendered'))
        ? readdirSync(path.join(dir, 'rendered'))
            .filter((e) => lstatSync(path.join(dir, 'rendered', e)).isDirectory())
            .sort()
        : [];
      const env = pickOf(envs);
      if (env) rmSync(path.join(dir, 'rendered', env), { recursive: true, force: true });
    } else if (d.op === 'rm-gitops-file') {
      const file = pickOf(files('gitops'));
      if (file) rmSync(path.join(dir, file), { force: true });
    } else {
      const file = pickOf([...files('rendered'), ...files('gitops')]);
      if (!file) return;
      const abs = path.join(dir, file);
      const { atime, mtime } = lstatSync(abs);
      const text = readFileSync(abs, 'utf8');
      if (d.at % 2 === 0 || !/[a-z]/.test(text)) writeFileSync(abs, `${text}# edited by hand\n`);
      else {
        const i = text.search(/[a-z]/);
        writeFileSync(abs, `${text.slice(0, i)}${text[i] === 'x' ? 'y' : 'x'}${text.slice(i + 1)}`);
        utimesSync(abs, atime, mtime);
      }
    }
  }, undefined);
}

/** Regular files under dir (relative, sorted), symlinks and special files left out. */
export function regularFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(path.join(dir, rel)).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    const child = rel ? `${rel}/${name}` : name;
    const st = lstatSync(path.join(dir, child));
    if (st.isDirectory()) out.push(...regularFiles(dir, child));
    else if (st.isFile()) out.push(child);
  }
  return out;
}

function candidates(dir: string, stage: Stage): string[] {
  const all = regularFiles(dir).filter((f) => !f.startsWith('.capi-render'));
  return stage === 'all' ? all : all.filter((f) => !OUTPUT.test(f) && f !== 'capi-render.lock');
}

/** Odd strings for names and values: unicode, path tricks, very long, case twins, YAML look-alikes. */
export const ODD_VALUES = [
  'ñame',
  'Ünïcödé-名前',
  '..',
  '../x',
  'a/b',
  '/abs',
  'x'.repeat(300),
  'UPPER',
  'Cluster-API',
  '',
  ' ',
  'a\nb',
  '-',
  '.',
  '${FZ_REQ_0}',
  'a:b',
  '~',
  'null',
  '0x10',
  '\u202e',
  'CON',
  'a\u0000b',
  '*',
  '#x',
  'v1.0.0+build',
  '%2e%2e',
  'a\\b',
];
const WRONG_TYPES: unknown[] = [42, true, null, [], {}, 'str', [1, 2], { a: 1 }, -1, 1.5, [{ b: [] }], '1e309'];
const TAGS = [
  '!!str',
  '!!int',
  '!!binary',
  '!custom',
  '!!map',
  '!!timestamp',
  '!!set',
  '!!float',
  '!<tag:yaml.org,2002:omap>',
];

/** Applies one mutation to the repository folder; `outside` is a folder outside it for links out. */
export function applyMutation(dir: string, outside: string, m: Mutation, stage: Stage): void {
  if (m.level === 'lock') return safely(() => mutateLock(dir, m), undefined);
  // Beside the repository, before anything is built: after that, nothing outside may change.
  if (m.level === 'fs' && m.op === 'secret-file' && stage !== 'inputs') return;
  const files = candidates(dir, stage);
  if (files.length === 0) return;
  const file = files[m.file % files.length]!;
  const abs = path.join(dir, file);
  if (m.level === 'yaml') writeFileSync(abs, mutateText(readFileSync(abs), m));
  else if (m.level === 'structure')
    writeFileSync(
      abs,
      safely(() => mutateStructure(readFileSync(abs, 'utf8'), m), readFileSync(abs, 'utf8')),
    );
  else mutateFs(dir, outside, file, m);
}

/** A document the yaml package cannot rewrite (an unresolved alias, say) stays as it is. */
function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n' && i + 1 < text.length) starts.push(i + 1);
  return starts;
}

function mutateText(bytes: Buffer, m: Extract<Mutation, { level: 'yaml' }>): Buffer {
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  const i = m.at % Math.max(lines.length, 1);
  const starts = lineStarts(text);
  const offset = Buffer.byteLength(text.slice(0, starts[m.at % starts.length]));
  const insertBytes = (extra: Buffer) => Buffer.concat([bytes.subarray(0, offset), extra, bytes.subarray(offset)]);
  // Up to 3 MB: the 32 MiB input limit has its own test (hostile-input), and every case hashes its tree.
  const sizes = [10, 1_000, 70_000, 300_000, 1_100_000, 3_000_000, 5];
  switch (m.op) {
    case 'dup-key':
      lines.splice(i + 1, 0, lines[i]!);
      return Buffer.from(lines.join('\n'));
    case 'anchor': {
      // An anchor on one value and an alias of it under a new key of the same mapping.
      const keyLine = lines.findIndex((l, j) => j >= i && /^\s*[A-Za-z][\w.-]*: \S/.test(l));
      if (keyLine < 0) return Buffer.from(`${text}\nfzAlias: *undefinedAnchor\n`);
      const indent = /^\s*/.exec(lines[keyLine]!)![0];
      lines[keyLine] = lines[keyLine]!.replace(/: /, ': &fz ');
      lines.splice(keyLine + 1, 0, `${indent}fzAlias: *fz`);
      return Buffer.from(lines.join('\n'));
    }
    case 'alias-bomb': {
      const levels = 3 + m.size;
      const bomb = ['fzBomb:', '  a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
      for (let l = 1; l < levels; l++)
        bomb.push(
          `  a${l}: &a${l} [${Array(10)
            .fill(`*a${l - 1}`)
            .join(', ')}]`,
        );
      return Buffer.from(`${text.replace(/\n?$/, '\n')}${bomb.join('\n')}\n`);
    }
    case 'tag': {
      const at = lines.findIndex((l, j) => j >= i && /: \S/.test(l));
      if (at < 0) return Buffer.from(`${TAGS[m.size % TAGS.length]} ${text}`);
      lines[at] = lines[at]!.replace(/: /, `: ${TAGS[m.size % TAGS.length]} `);
      return Buffer.from(lines.join('\n'));
    }
    case 'deep': {
      const depth = [50, 500, 2_000, 10_000, 20_000, 5, 1][m.size % 7]!;
      const nested =
        m.at % 2 === 0 ? `${'['.repeat(depth)}x${']'.repeat(depth)}` : `${'{a: '.repeat(depth)}x${'}'.repeat(depth)}`;
      return Buffer.from(`${text.replace(/\n?$/, '\n')}fzDeep: ${nested}\n`);
    }
    case 'huge': {
      const n = sizes[m.size % sizes.length]!;
      return m.at % 2 === 0
        ? Buffer.from(`${text.replace(/\n?$/, '\n')}fzHuge: ${'x'.repeat(n)}\n`)
        : Buffer.from(`${text.replace(/\n?$/, '\n')}# ${'y'.repeat(n)}\n`);
    }
    case 'bad-utf8':
      return insertBytes(
        Buffer.from([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe9]][m.size % 5]!),
      );
    case 'nul':
      return insertBytes(Buffer.from([0]));
    case 'crlf':
      return Buffer.from(
        m.size % 2 === 0 ? text.replace(/\n/g, '\r\n') : lines.map((l, j) => (j === i ? `${l}\r` : l)).join('\n'),
      );
    case 'bom':
      return m.size % 2 === 0
        ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])
        : insertBytes(Buffer.from('\ufeff'));
    case 'tab':
      lines[i] = lines[i]!.replace(/^ +/, '\t');
      return Buffer.from(lines.join('\n'));
    case 'separator':
      lines.splice(i, 0, ['---', '...', '--- !!map', '%YAML 1.1\n---', '---\n---'][m.size % 5]!);
      return Buffer.from(lines.join('\n'));
    case 'truncate':
      return bytes.subarray(0, bytes.length === 0 ? 0 : m.at % bytes.length);
  }
}

type YamlPath = (string | number)[];

/** Every node path of a document, in document order (maps' keys as strings). */
function nodePaths(doc: Document): { path: YamlPath; map: boolean; scalar: boolean }[] {
  const out: { path: YamlPath; map: boolean; scalar: boolean }[] = [];
  const walk = (node: unknown, at: YamlPath) => {
    out.push({ path: at, map: isMap(node), scalar: isScalar(node) });
    if (isMap(node))
      for (const pair of node.items)
        walk(pair.value, [...at, isScalar(pair.key) ? String(pair.key.value) : String(pair.key)]);
    else if (isSeq(node)) node.items.forEach((item, j) => walk(item, [...at, j]));
  };
  walk(doc.contents, []);
  return out;
}

function mutateStructure(text: string, m: Extract<Mutation, { level: 'structure' }>): string {
  let docs: Document[];
  try {
    docs = parseAllDocuments(text, { uniqueKeys: false });
  } catch {
    return text;
  }
  if (!Array.isArray(docs) || docs.length === 0 || docs.some((d) => d.errors.length > 0)) return text;
  const doc = docs[m.at % docs.length]!;
  if (m.op === 'duplicate-doc') return `${text.replace(/\n?$/, '\n')}---\n${doc.toString()}`;
  const paths = nodePaths(doc);
  const choose = (filter: (p: (typeof paths)[number]) => boolean) => {
    const list = paths.filter(filter);
    return list.length > 0 ? list[Math.floor(m.at / docs.length) % list.length] : undefined;
  };
  if (m.op === 'wrong-type') {
    const target = choose((p) => p.path.length > 0);
    if (target) doc.setIn(target.path, doc.createNode(WRONG_TYPES[m.value % WRONG_TYPES.length]));
  } else if (m.op === 'unknown-field') {
    const target = choose((p) => p.map);
    const key = ['fzUnknown', 'Kind', 'spec2', 'apiversion', '$patch', '<<', 'metadata'][m.value % 7]!;
    if (target) doc.setIn([...target.path, key], doc.createNode(m.value % 2 === 0 ? 'x' : { y: 1 }));
  } else if (m.op === 'delete-field') {
    const target = choose((p) => p.path.length > 0);
    if (target) doc.deleteIn(target.path);
  } else {
    // Odd names go where names live (name, namespace, version, keys of maps), else any scalar.
    const named = choose(
      (p) => p.scalar && /name|namespace|version|path|repository|tag/i.test(String(p.path.at(-1) ?? '')),
    );
    const target = named ?? choose((p) => p.scalar);
    if (target) doc.setIn(target.path, ODD_VALUES[m.value % ODD_VALUES.length]);
  }
  return docs.map((d) => d.toString()).join('');
}

function mutateFs(dir: string, outside: string, file: string, m: Extract<Mutation, { level: 'fs' }>): void {
  const abs = path.join(dir, file);
  const folder = path.dirname(abs);
  const others = regularFiles(dir).filter((f) => f !== file);
  switch (m.op) {
    case 'secret-file': {
      // What a `{fromFile}` reference may meet instead of its file: each is one error naming it.
      const at = path.join(outside, SECRET_FILE);
      rmSync(at, { force: true, recursive: true });
      const kind = m.at % 5;
      if (kind === 0) execFileSync('mkfifo', [at]);
      else if (kind === 1) symlinkSync('/dev/zero', at);
      else if (kind === 2) mkdirSync(at);
      else if (kind === 3) symlinkSync(abs, at);
      else writeFileSync(at, Buffer.alloc(1024 * 1024 + 1, 0x61));
      return;
    }
    case 'symlink-in': {
      const target = others.length > 0 ? others[m.at % others.length]! : file;
      rmSync(abs, { force: true });
      symlinkSync(path.relative(folder, path.join(dir, target)), abs);
      return;
    }
    case 'symlink-out': {
      const target = [
        path.join(outside, 'outside.yaml'),
        '/etc/hostname',
        '/nonexistent/x.yaml',
        path.join(outside, 'dir'),
      ][m.at % 4]!;
      const at = m.at % 8 < 4 ? abs : path.join(folder, 'fz-link.yaml');
      // A second link mutation may pick the same place: replace, as a hand edit would.
      rmSync(at, { force: true });
      symlinkSync(target, at);
      return;
    }
    case 'symlink-dir': {
      const target = [outside, path.join(dir, 'providers'), '..', '.'][m.at % 4]!;
      const name = path.join(m.at % 3 === 0 ? path.join(dir, 'overlays') : folder, 'fz-linked');
      mkdirSync(path.dirname(name), { recursive: true });
      if (!existsSync(name)) symlinkSync(target, name);
      return;
    }
    case 'fifo': {
      const at = m.at % 2 === 0 ? abs : path.join(folder, 'fz-fifo.yaml');
      rmSync(at, { force: true });
      execFileSync('mkfifo', [at]);
      return;
    }
    case 'dir-yaml': {
      const at = m.at % 2 === 0 ? abs : path.join(folder, 'fz-dir.yaml');
      const text = existsSync(abs) ? readFileSync(abs) : Buffer.from('');
      rmSync(at, { force: true, recursive: true });
      mkdirSync(at, { recursive: true });
      if (m.at % 3 === 0) writeFileSync(path.join(at, 'inner.yaml'), text);
      return;
    }
    case 'readonly':
      // As root this only proves nothing relies on the mode; as a user it makes writes fail.
      chmodSync(m.at % 2 === 0 ? folder : abs, m.at % 4 < 2 ? 0o555 : 0o000);
      return;
    case 'empty':
      if (m.at % 2 === 0) writeFileSync(abs, '');
      else writeFileSync(path.join(folder, 'fz-empty.yaml'), m.at % 4 === 1 ? '' : '\n# only a comment\n---\n');
      return;
    case 'case-collision': {
      const base = path.basename(file);
      const twin = base.toUpperCase() === base ? base.toLowerCase() : base.toUpperCase();
      copyFileSync(abs, path.join(folder, twin));
      return;
    }
    case 'odd-file-name': {
      const names = [
        'ñame.yaml',
        `${'l'.repeat(250)}.yaml`,
        'with space.yaml',
        '..yaml',
        '.hidden.yaml',
        '-dash.yaml',
        'x.YAML',
        'x.yml',
        'x.json',
        'noext',
        'a\nb.yaml',
        '\u202eevil.yaml',
      ];
      copyFileSync(abs, path.join(folder, names[m.at % names.length]!));
      return;
    }
    case 'delete':
      rmSync(abs, { force: true });
      return;
    case 'copy':
      copyFileSync(abs, path.join(m.at % 2 === 0 ? folder : path.join(dir, 'providers'), `fz-copy-${m.at % 3}.yaml`));
      return;
    case 'overlay-linked-out': {
      // An overlay.yaml, a patch file or a base under overlays/, replaced by a link to its copy outside.
      const overlayFiles = regularFiles(dir).filter(
        (f) => /^overlays\/.+\.ya?ml$/.test(f) && existsSync(path.join(outside, OUTSIDE_COPIES, f)),
      );
      if (overlayFiles.length === 0) return;
      const chosen = overlayFiles[m.at % overlayFiles.length]!;
      rmSync(path.join(dir, chosen));
      symlinkSync(path.join(outside, OUTSIDE_COPIES, chosen), path.join(dir, chosen));
      return;
    }
  }
}

function mutateLock(dir: string, m: Extract<Mutation, { level: 'lock' }>): void {
  const file = path.join(dir, 'capi-render.lock');
  if (m.op === 'dev-zero') {
    // A read through it never ends: a command must refuse it before reading a byte.
    rmSync(file, { force: true });
    symlinkSync('/dev/zero', file);
    return;
  }
  if (!existsSync(file) || !lstatSync(file).isFile()) return;
  const text = readFileSync(file, 'utf8');
  if (m.op === 'conflict') {
    const lines = text.split('\n');
    const i = m.at % lines.length;
    const theirs = lines[i]!.replace(/v\d+\.\d+\.\d+/, 'v0.0.9').replace(/[0-9a-f]{8}/, 'deadbeef');
    lines.splice(i, 1, '<<<<<<< HEAD', lines[i]!, '=======', theirs, '>>>>>>> upgrade');
    writeFileSync(file, lines.join('\n'));
    return;
  }
  const doc = parseAllDocuments(text)[0] as Document | undefined;
  if (!doc || doc.errors.length > 0) return;
  const paths = nodePaths(doc);
  if (m.op === 'edit-field') {
    const scalars = paths.filter((p) => p.scalar && p.path.length > 0);
    if (scalars.length === 0) return;
    const target = scalars[m.at % scalars.length]!;
    const value = doc.getIn(target.path);
    doc.setIn(target.path, editedScalar(value, m.value));
  } else {
    const items = paths.filter((p) => typeof p.path.at(-1) === 'number');
    if (items.length === 0) return;
    const target = items[m.at % items.length]!;
    if (m.op === 'remove-entry') doc.deleteIn(target.path);
    else {
      const parent = target.path.slice(0, -1);
      const copy = doc.getIn(target.path, true) as { toJSON(): unknown } | undefined;
      const seq = doc.getIn(parent, true);
      if (isSeq(seq) && copy) seq.items.push(doc.createNode(copy.toJSON()));
    }
  }
  writeFileSync(file, doc.toString());
}

/** A plausible edit of a lock scalar: another version, a flipped digest character, a number off by one, an odd string. */
function editedScalar(value: unknown, n: number): unknown {
  if (typeof value === 'number') return value + (n % 2 === 0 ? 1 : -1);
  if (typeof value === 'boolean') return !value;
  if (typeof value !== 'string') return ODD_VALUES[n % ODD_VALUES.length];
  if (/^v\d+\.\d+\.\d+/.test(value))
    return ['v0.1.0', 'v0.2.0', 'v1.0.0', 'v1.0.1', 'v1.1.0', 'v9.0.0', 'v0.0.1'][n % 7];
  if (/[0-9a-f]{16}/.test(value)) {
    const i = value.search(/[0-9a-f]{16}/) + (n % 16);
    return `${value.slice(0, i)}${value[i] === '0' ? '1' : '0'}${value.slice(i + 1)}`;
  }
  return n % 3 === 0 ? `${value}x` : ODD_VALUES[n % ODD_VALUES.length];
}
