/**
 * The value layer of the SOPS file format, as sops (v3) reads and writes it: each value AES-256-GCM
 * encrypted with the file's data key and its key path as additional data, written
 * `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`; the MAC over every value's plaintext; and the file's rule
 * for which values are encrypted. Node's crypto does the cipher and the hash; nothing here is a cipher
 * of its own.
 *
 * Design notes: docs/internals.md "secrets/sops/sops-values.ts".
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, type Hash } from 'node:crypto';

/** What a SOPS document's values are encrypted with: one of the selection settings sops knows. */
export interface SopsSelection {
  encryptedRegex?: string;
  unencryptedRegex?: string;
  encryptedSuffix?: string;
  unencryptedSuffix?: string;
  macOnlyEncrypted?: boolean;
}

/** A scalar as the SOPS tree holds it (nulls are never walked). */
export type SopsScalar = string | number | boolean;

const VALUE_FORMAT = /^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]/;
const IV_BYTES = 32;
const TAG_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The prefix sops hashes first when the MAC covers only the encrypted values. */
const MAC_ONLY_ENCRYPTED_PREFIX = Buffer.from(
  '8a3fd2ad54ce66527b1034f3d147be0b0b975b3bf44f72c6fdadec8176f27d69',
  'hex',
);

/** Whether a value at `path` is encrypted under `selection` (sops's rule: the last matching setting decides). */
export function shouldEncrypt(path: readonly string[], selection: SopsSelection): boolean {
  let encrypted = true;
  if (selection.unencryptedSuffix && path.some((k) => k.endsWith(selection.unencryptedSuffix!))) encrypted = false;
  if (selection.encryptedSuffix) encrypted = path.some((k) => k.endsWith(selection.encryptedSuffix!));
  if (selection.unencryptedRegex) {
    const re = new RegExp(selection.unencryptedRegex);
    if (path.some((k) => re.test(k))) encrypted = false;
  }
  if (selection.encryptedRegex) {
    const re = new RegExp(selection.encryptedRegex);
    encrypted = path.some((k) => re.test(k));
  }
  return encrypted;
}

/** The bytes sops hashes and encrypts for a scalar, with the type name it writes. */
export function scalarBytes(
  value: SopsScalar,
  numberIsFloat = false,
): { bytes: Buffer; type: 'str' | 'int' | 'float' | 'bool' } {
  if (typeof value === 'string') return { bytes: Buffer.from(value, 'utf8'), type: 'str' };
  if (typeof value === 'boolean') return { bytes: Buffer.from(value ? 'True' : 'False'), type: 'bool' };
  const text = String(value);
  if (!Number.isFinite(value) || /e/i.test(text))
    throw new Error(`the number ${text} has no SOPS form capi-render writes`);
  return { bytes: Buffer.from(text), type: numberIsFloat || !Number.isInteger(value) ? 'float' : 'int' };
}

/** Encrypts one value (see the module comment); `iv` only for tests. */
export function encryptValue(
  value: SopsScalar,
  dataKey: Uint8Array,
  additionalData: string,
  options: { numberIsFloat?: boolean; iv?: Buffer } = {},
): string {
  const { bytes, type } = scalarBytes(value, options.numberIsFloat);
  if (type === 'str' && bytes.length === 0) return '';
  const iv = options.iv ?? randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(additionalData, 'utf8'));
  const data = Buffer.concat([cipher.update(bytes), cipher.final()]);
  return `ENC[AES256_GCM,data:${data.toString('base64')},iv:${iv.toString('base64')},tag:${cipher.getAuthTag().toString('base64')},type:${type}]`;
}

/** The parts of an encrypted value, or a reason it is not one (for structure checks without the key). */
export function parseEncryptedValue(
  text: string,
): { data: Buffer; iv: Buffer; tag: Buffer; type: string } | { problem: string } {
  const m = VALUE_FORMAT.exec(text);
  if (!m) return { problem: 'is not a SOPS encrypted value (ENC[AES256_GCM,data:…,iv:…,tag:…,type:…])' };
  const [, data, iv, tag, type] = m as unknown as [string, string, string, string, string];
  for (const [name, part] of [
    ['data', data],
    ['iv', iv],
    ['tag', tag],
  ] as const)
    if (!BASE64.test(part)) return { problem: `has a ${name} that is not base64` };
  const parts = {
    data: Buffer.from(data, 'base64'),
    iv: Buffer.from(iv, 'base64'),
    tag: Buffer.from(tag, 'base64'),
    type,
  };
  if (parts.iv.length === 0) return { problem: 'has an empty iv' };
  if (parts.tag.length !== TAG_BYTES)
    return { problem: `has a ${parts.tag.length}-byte tag (AES-GCM's is ${TAG_BYTES})` };
  if (!['str', 'int', 'float', 'bool', 'bytes', 'time', 'comment'].includes(type))
    return { problem: `has an unknown type ${type}` };
  return parts;
}

/** Decrypts one value; throws Error (never naming the value) when it does not authenticate. */
export function decryptValue(text: string, dataKey: Uint8Array, additionalData: string): SopsScalar {
  if (text === '') return '';
  const parts = parseEncryptedValue(text);
  if ('problem' in parts) throw new Error(parts.problem);
  const decipher = createDecipheriv('aes-256-gcm', dataKey, parts.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(additionalData, 'utf8'));
  decipher.setAuthTag(parts.tag);
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(parts.data), decipher.final()]);
  } catch {
    throw new Error('does not authenticate with the data key (altered, or encrypted under another key path)');
  }
  const s = plain.toString('utf8');
  switch (parts.type) {
    case 'int': {
      if (!/^[-+]?\d+$/.test(s)) throw new Error('decrypts to an int that is not one');
      return Number(s);
    }
    case 'float': {
      const n = Number(s);
      if (s.trim() === '' || Number.isNaN(n)) throw new Error('decrypts to a float that is not one');
      return n;
    }
    case 'bool': {
      const b = /^(1|t|T|TRUE|true|True)$/.test(s) ? true : /^(0|f|F|FALSE|false|False)$/.test(s) ? false : undefined;
      if (b === undefined) throw new Error('decrypts to a bool that is not one');
      return b;
    }
    default:
      return s;
  }
}

/** The running MAC of a document, fed in document order. */
export class SopsMac {
  private readonly hash: Hash = createHash('sha512');
  constructor(private readonly selection: SopsSelection) {
    if (selection.macOnlyEncrypted) this.hash.update(MAC_ONLY_ENCRYPTED_PREFIX);
  }

  /** Adds one plaintext value (at `path`, encrypted or not). */
  add(value: SopsScalar, encrypted: boolean, numberIsFloat = false): void {
    if (this.selection.macOnlyEncrypted && !encrypted) return;
    this.hash.update(scalarBytes(value, numberIsFloat).bytes);
  }

  hex(): string {
    return this.hash.digest('hex').toUpperCase();
  }
}

/** sops's additional data for a value at `path`. */
export function additionalDataOf(path: readonly string[]): string {
  return `${path.join(':')}:`;
}

/**
 * The additional data of the MAC: `lastmodified` as Go's RFC 3339 formatting gives it back after
 * parsing (seconds precision; fractional seconds dropped), or undefined when it is not RFC 3339.
 */
export function macAdditionalData(lastmodified: string): string | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(lastmodified);
  if (!m) return undefined;
  // Go's "Z07:00" layout writes a zero offset as Z.
  return `${m[1]}${m[2] === '+00:00' || m[2] === '-00:00' ? 'Z' : m[2]}`;
}

/** `date` in the form sops writes `lastmodified`: RFC 3339, UTC, whole seconds. */
export function lastModifiedOf(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
