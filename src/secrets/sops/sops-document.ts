/**
 * A SOPS-encrypted YAML document (one Kubernetes Secret) as sops writes and reads it: the values
 * (sops-values.ts) in document order, and the `sops:` metadata — the data key wrapped for each age
 * recipient, `lastmodified`, the encrypted MAC, the selection setting, the format version.
 *
 * - {@link encryptDocument}: a plaintext document → its encrypted text (fresh data key and IVs);
 * - {@link readSopsDocument}: the structure of an encrypted text, checked without any key: every
 *   problem with its line (a record must prove itself before it is kept);
 * - {@link decryptSopsDocument}: with identities, the data key unwrapped, every value decrypted
 *   and the MAC verified; problems name the line.
 * Messages never hold a value or a key.
 */
import { randomBytes } from 'node:crypto';
import {
  LineCounter,
  Scalar,
  YAMLMap,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node,
} from 'yaml';
import { SpecError, error } from '../../errors.js';
import { isArmoredAgeFile, unwrapDataKey, wrapDataKey } from './age-keys.js';
import {
  SopsMac,
  additionalDataOf,
  decryptValue,
  encryptValue,
  lastModifiedOf,
  macAdditionalData,
  parseEncryptedValue,
  shouldEncrypt,
  type SopsScalar,
  type SopsSelection,
} from './sops-values.js';

/** The sops format version capi-render writes: the file layout of sops 3.9 and later. */
export const SOPS_FORMAT_VERSION = '3.9.0';

export const SOPS_KEY = 'sops';

const STRINGIFY = { lineWidth: 0, indentSeq: false } as const;

/** Who can open a document, and how its values were selected. */
export interface SopsRecipients extends SopsSelection {
  recipients: string[];
}

/** One recipient entry of the metadata. */
export interface SopsAgeEntry {
  recipient: string;
  enc: string;
  line: number;
}

/** A document's structure, read without a key. */
export interface SopsRecord {
  file: string;
  doc: Document;
  lines: LineCounter;
  age: SopsAgeEntry[];
  lastmodified: string;
  mac: string;
  macLine: number;
  selection: SopsSelection;
  version: string;
  /** Structure problems, each with its line; empty when the record is well-formed. */
  problems: { line: number; message: string }[];
}

interface Leaf {
  node: Scalar;
  path: string[];
}

/** The scalar leaves of `node` in document order, with their key paths (sequences add nothing to a path, as in sops). */
function leavesOf(node: unknown, path: string[], out: Leaf[], skipTopLevelSops: boolean): Leaf[] {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) throw new Error('has a key that is not a scalar');
      if (skipTopLevelSops && path.length === 0 && key === SOPS_KEY) continue;
      leavesOf(pair.value, [...path, key], out, false);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) leavesOf(item, path, out, false);
  } else if (isAlias(node)) {
    throw new Error('uses a YAML alias, which capi-render does not follow in an encrypted file');
  } else if (isScalar(node)) {
    if (node.value !== null && node.value !== undefined) out.push({ node, path });
  }
  return out;
}

function scalarValue(node: Scalar): SopsScalar {
  const v = node.value;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return String(v);
}

/** Whether a parsed number was written as a float (sops keeps Go's int/float distinction). */
function isFloatSource(node: Scalar): boolean {
  return typeof node.value === 'number' && typeof node.source === 'string' && /[.eE]|inf|nan/i.test(node.source);
}

/**
 * The encrypted text of the plaintext YAML document `plainText` (one mapping, no `sops` key) for
 * `to`. `now` is `lastmodified`. The body keeps the document's key order; `sops:` comes last.
 */
export async function encryptDocument(plainText: string, to: SopsRecipients, now: Date): Promise<string> {
  const doc = parseDocument(plainText, { keepSourceTokens: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) throw new Error('the document to encrypt is not one YAML mapping');
  if (doc.contents.has(SOPS_KEY)) throw new Error('the document to encrypt already has a sops key');
  const dataKey = randomBytes(32);
  const mac = new SopsMac(to);
  for (const leaf of leavesOf(doc.contents, [], [], false)) {
    const encrypted = shouldEncrypt(leaf.path, to);
    const float = isFloatSource(leaf.node);
    const value = scalarValue(leaf.node);
    mac.add(value, encrypted, float);
    if (encrypted) {
      leaf.node.value = encryptValue(value, dataKey, additionalDataOf(leaf.path), { numberIsFloat: float });
      leaf.node.type = Scalar.PLAIN;
    }
  }
  const lastmodified = lastModifiedOf(now);
  const meta = new YAMLMap();
  const age = await Promise.all(
    to.recipients.map(async (recipient) => {
      const entry = new YAMLMap();
      entry.set('recipient', recipient);
      const enc = new Scalar(await wrapDataKey(dataKey, recipient));
      enc.type = Scalar.BLOCK_LITERAL;
      entry.set('enc', enc);
      return entry;
    }),
  );
  meta.set('age', doc.createNode(age));
  const lm = new Scalar(lastmodified);
  lm.type = Scalar.QUOTE_DOUBLE;
  meta.set('lastmodified', lm);
  meta.set('mac', encryptValue(mac.hex(), dataKey, macAdditionalData(lastmodified)!));
  if (to.unencryptedSuffix) meta.set('unencrypted_suffix', to.unencryptedSuffix);
  if (to.encryptedSuffix) meta.set('encrypted_suffix', to.encryptedSuffix);
  if (to.unencryptedRegex) meta.set('unencrypted_regex', to.unencryptedRegex);
  if (to.encryptedRegex) meta.set('encrypted_regex', to.encryptedRegex);
  if (to.macOnlyEncrypted) meta.set('mac_only_encrypted', true);
  meta.set('version', SOPS_FORMAT_VERSION);
  (doc.contents as unknown as YAMLMap<unknown, unknown>).set(SOPS_KEY, meta);
  return doc.toString(STRINGIFY);
}

/** Whether `text` looks like a SOPS-encrypted document (a top-level `sops:` mapping with a `mac`). */
export function looksEncrypted(text: string): boolean {
  return /^sops:\s*$/m.test(text) && /^\s+mac:/m.test(text);
}

/** The structure of an encrypted document (see the module comment); `file` names it in problems. */
export function readSopsDocument(text: string, file: string): SopsRecord {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const lineOf = (node: unknown) =>
    (node as Node | undefined)?.range ? lines.linePos((node as Node).range![0]).line : 1;
  const problems: SopsRecord['problems'] = [];
  const record: SopsRecord = {
    file,
    doc,
    lines,
    age: [],
    lastmodified: '',
    mac: '',
    macLine: 1,
    selection: {},
    version: '',
    problems,
  };
  if (doc.errors.length > 0) {
    problems.push({ line: doc.errors[0]!.linePos?.[0]?.line ?? 1, message: 'is not valid YAML' });
    return record;
  }
  if (!isMap(doc.contents)) {
    problems.push({ line: 1, message: 'is not a YAML mapping' });
    return record;
  }
  const meta = doc.contents.get(SOPS_KEY, true);
  if (!isMap(meta)) {
    problems.push({ line: 1, message: 'has no sops: metadata' });
    return record;
  }
  const str = (key: string): { value: string; line: number } | undefined => {
    const node = meta.get(key, true);
    return isScalar(node) && typeof node.value === 'string' ? { value: node.value, line: lineOf(node) } : undefined;
  };
  const ageNode = meta.get('age', true);
  const groups = meta.get('key_groups', true);
  const ageLists: unknown[] = [ageNode];
  if (isSeq(groups)) for (const g of groups.items) if (isMap(g)) ageLists.push(g.get('age', true));
  for (const list of ageLists) {
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (!isMap(item)) {
        problems.push({ line: lineOf(item), message: 'has an age entry that is not a mapping' });
        continue;
      }
      const recipient = item.get('recipient', true);
      const enc = item.get('enc', true);
      if (
        !isScalar(recipient) ||
        typeof recipient.value !== 'string' ||
        !isScalar(enc) ||
        typeof enc.value !== 'string'
      ) {
        problems.push({ line: lineOf(item), message: 'has an age entry without recipient and enc' });
        continue;
      }
      if (!isArmoredAgeFile(enc.value))
        problems.push({
          line: lineOf(enc),
          message: `has an enc for ${recipient.value} that is not an armored age file`,
        });
      record.age.push({ recipient: recipient.value, enc: enc.value, line: lineOf(item) });
    }
  }
  if (record.age.length === 0)
    problems.push({ line: lineOf(meta), message: 'has no age recipient in its sops: metadata' });
  const lm = str('lastmodified');
  if (!lm || macAdditionalData(lm.value) === undefined)
    problems.push({ line: lm?.line ?? lineOf(meta), message: 'has no RFC 3339 sops.lastmodified' });
  else record.lastmodified = lm.value;
  const mac = str('mac');
  if (!mac) problems.push({ line: lineOf(meta), message: 'has no sops.mac' });
  else {
    record.mac = mac.value;
    record.macLine = mac.line;
    const parsed = parseEncryptedValue(mac.value);
    if ('problem' in parsed) problems.push({ line: mac.line, message: `has a sops.mac that ${parsed.problem}` });
    else if (parsed.type !== 'str' || parsed.data.length !== 128)
      problems.push({ line: mac.line, message: 'has a sops.mac that is not an encrypted SHA-512 hex digest' });
  }
  const version = str('version');
  record.version = version?.value ?? '';
  const sel = (key: string) => str(key)?.value;
  const macOnly = meta.get('mac_only_encrypted');
  record.selection = {
    ...(sel('encrypted_regex') ? { encryptedRegex: sel('encrypted_regex')! } : {}),
    ...(sel('unencrypted_regex') ? { unencryptedRegex: sel('unencrypted_regex')! } : {}),
    ...(sel('encrypted_suffix') ? { encryptedSuffix: sel('encrypted_suffix')! } : {}),
    ...(sel('unencrypted_suffix') ? { unencryptedSuffix: sel('unencrypted_suffix')! } : {}),
    ...(macOnly === true ? { macOnlyEncrypted: true } : {}),
  };
  if (sel('encrypted_comment_regex') || sel('unencrypted_comment_regex'))
    problems.push({ line: lineOf(meta), message: 'selects values by comment, which capi-render does not read' });
  for (const k of ['encryptedRegex', 'unencryptedRegex'] as const) {
    const re = record.selection[k];
    if (re === undefined) continue;
    try {
      new RegExp(re);
    } catch {
      problems.push({
        line: lineOf(meta),
        message: `has a ${k === 'encryptedRegex' ? 'encrypted_regex' : 'unencrypted_regex'} capi-render cannot read`,
      });
    }
  }
  if (problems.length > 0) return record;
  let leaves: Leaf[];
  try {
    leaves = leavesOf(doc.contents, [], [], true);
  } catch (e) {
    problems.push({ line: 1, message: (e as Error).message });
    return record;
  }
  for (const leaf of leaves) {
    if (!shouldEncrypt(leaf.path, record.selection)) continue;
    if (typeof leaf.node.value !== 'string') {
      problems.push({
        line: lineOf(leaf.node),
        message: `has a value at ${leaf.path.join('.')} that should be encrypted and is not`,
      });
      continue;
    }
    if (leaf.node.value === '') continue;
    const parsed = parseEncryptedValue(leaf.node.value);
    if ('problem' in parsed)
      problems.push({
        line: lineOf(leaf.node),
        message: `has a value at ${leaf.path.join('.')} that ${parsed.problem}`,
      });
  }
  return record;
}

/**
 * What can be compared without a key: the document (without `sops:`) with every value the selection
 * encrypts masked — its keys, its unencrypted values and which encrypted values are empty. Two
 * documents with the same shape differ, if at all, only in encrypted values.
 */
export function shapeOf(text: string, selection: SopsSelection): string {
  const doc = parseDocument(text);
  if (isMap(doc.contents)) doc.contents.delete(SOPS_KEY);
  for (const leaf of leavesOf(doc.contents, [], [], false)) {
    if (shouldEncrypt(leaf.path, selection) && leaf.node.value !== '') leaf.node.value = 'ENC';
  }
  return JSON.stringify(doc.toJS({ maxAliasCount: 0 }));
}

/** The key paths (dotted) of `text`'s values under `roots` that `selection` would leave in plain text. */
export function unencryptedPaths(text: string, selection: SopsSelection, roots: readonly string[]): string[] {
  const doc = parseDocument(text);
  return leavesOf(doc.contents, [], [], true)
    .filter((leaf) => roots.includes(leaf.path[0]!) && leaf.node.value !== '' && !shouldEncrypt(leaf.path, selection))
    .map((leaf) => leaf.path.join('.'));
}

/** A problem of a record as a one-line SpecError naming its file and line. */
export function recordError(
  record: Pick<SopsRecord, 'file'>,
  problem: { line: number; message: string },
  hint?: string,
): SpecError {
  return new SpecError(
    error('sops', `${record.file} ${problem.message}`, {
      file: record.file,
      line: problem.line,
      ...(hint ? { hint } : {}),
    }),
  );
}

/** A decrypted document: its plaintext (the document without `sops:`, values decrypted). */
export interface DecryptedDocument {
  plaintext: Record<string, unknown>;
}

/**
 * Decrypts a well-formed record (no problems) with `identities`. Undefined when none of them opens
 * the data key; SpecError naming the line when a value or the MAC does not verify.
 */
export async function decryptSopsDocument(
  record: SopsRecord,
  identities: readonly string[],
): Promise<DecryptedDocument | undefined> {
  if (record.problems.length > 0) throw recordError(record, record.problems[0]!);
  const dataKey = await unwrapDataKey(
    record.age.map((a) => a.enc),
    identities,
  );
  if (!dataKey) return undefined;
  const doc = record.doc.clone();
  const lineOf = (node: Node) => (node.range ? record.lines.linePos(node.range[0]).line : 1);
  const mac = new SopsMac(record.selection);
  // Positions come from the original: the clone's nodes keep their ranges.
  for (const leaf of leavesOf(doc.contents, [], [], true)) {
    const encrypted = shouldEncrypt(leaf.path, record.selection);
    let value: SopsScalar = scalarValue(leaf.node);
    let float = isFloatSource(leaf.node);
    if (encrypted) {
      try {
        value = decryptValue(String(value), dataKey, additionalDataOf(leaf.path));
      } catch (e) {
        throw recordError(
          record,
          { line: lineOf(leaf.node), message: `has a value at ${leaf.path.join('.')} that ${(e as Error).message}` },
          'the file was altered after it was encrypted: rebuild it with `capi-render build`',
        );
      }
      float = typeof value === 'number' && /type:float\]$/.test(String(leaf.node.value));
      leaf.node.value = value;
    }
    mac.add(value, encrypted, float);
  }
  let stored: SopsScalar;
  try {
    stored = decryptValue(record.mac, dataKey, macAdditionalData(record.lastmodified)!);
  } catch (e) {
    throw recordError(
      record,
      { line: record.macLine, message: `has a sops.mac that ${(e as Error).message}` },
      'the file was altered after it was encrypted: rebuild it with `capi-render build`',
    );
  }
  if (stored !== mac.hex()) {
    throw recordError(
      record,
      {
        line: record.macLine,
        message: 'does not match its sops.mac: a value was added, removed, reordered or altered after encryption',
      },
      'rebuild it with `capi-render build`',
    );
  }
  (doc.contents as YAMLMap).delete(SOPS_KEY);
  return { plaintext: doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown> };
}

/**
 * Decrypts a SOPS-encrypted Secret's text with age identities: its plaintext object. Throws
 * SpecError naming `file` (and a line) when the text is not a well-formed SOPS document, when none
 * of the identities opens it, or when a value or its MAC does not verify.
 */
export async function decryptSopsSecret(
  text: string,
  identities: readonly string[],
  file = 'the encrypted Secret',
): Promise<Record<string, unknown>> {
  const record = readSopsDocument(text, file);
  if (record.problems.length > 0) throw recordError(record, record.problems[0]!);
  const out = await decryptSopsDocument(record, identities);
  if (!out) {
    throw new SpecError(
      error(
        'sops',
        `${file} is encrypted to ${record.age.map((a) => a.recipient).join(', ')}, and no identity given opens it`,
        {
          file,
          line: record.age[0]?.line ?? 1,
          hint: 'set SOPS_AGE_KEY or SOPS_AGE_KEY_FILE to an identity of one of its recipients',
        },
      ),
    );
  }
  return out.plaintext;
}
