/**
 * The age side of a SOPS file: the data key wrapped for each recipient as the armored age file sops
 * writes (`-----BEGIN AGE ENCRYPTED FILE-----`), and the identities that unwrap it, read from the
 * variables sops reads them from: `SOPS_AGE_KEY` (the keys themselves) and `SOPS_AGE_KEY_FILE` (a
 * file of them, as age-keygen writes it). The age reference implementation's JavaScript package
 * (age-encryption) does all the age work; no key is ever put in a message.
 */
import path from 'node:path';
import { readBoundedSync } from '../../bounded-read.js';
import { Decrypter, Encrypter, armor } from 'age-encryption';

export const SOPS_AGE_KEY = 'SOPS_AGE_KEY';
export const SOPS_AGE_KEY_FILE = 'SOPS_AGE_KEY_FILE';

/** An identity file bigger than this is not one (age-keygen writes a few hundred bytes). */
const MAX_KEY_FILE_BYTES = 1024 * 1024;

const RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;
const IDENTITY = /^AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}$/;

/** The age identities available to this process; `problems` say why a variable gave none (never its value). */
export interface AgeIdentities {
  keys: string[];
  /** Where they came from, for messages: the variable names. */
  sources: string[];
  problems: string[];
}

/** Reads SOPS_AGE_KEY and SOPS_AGE_KEY_FILE from `env` (the process environment). */
export function ageIdentitiesFrom(env: Readonly<Record<string, string | undefined>>): AgeIdentities {
  const keys: string[] = [];
  const sources: string[] = [];
  const problems: string[] = [];
  const take = (text: string, source: string) => {
    const found = identitiesIn(text);
    if (found.bad > 0)
      problems.push(
        `${source} has ${found.bad} line${found.bad === 1 ? '' : 's'} that ${found.bad === 1 ? 'is' : 'are'} not an age identity (AGE-SECRET-KEY-1…)`,
      );
    if (found.keys.length > 0) {
      keys.push(...found.keys);
      sources.push(source);
    }
  };
  const inline = env[SOPS_AGE_KEY];
  if (inline) take(inline, SOPS_AGE_KEY);
  const file = env[SOPS_AGE_KEY_FILE];
  if (file) {
    try {
      // Opened once, without blocking (a FIFO is refused, not waited on), bounded, through links as sops does.
      const read = readBoundedSync(path.resolve(file), { limit: MAX_KEY_FILE_BYTES, follow: true });
      if (read.outcome === 'read') take(read.bytes.toString('utf8'), `${SOPS_AGE_KEY_FILE} (${file})`);
      else if (read.outcome === 'missing') problems.push(`${SOPS_AGE_KEY_FILE} names ${file}, which does not exist`);
      else if (read.outcome === 'irregular')
        problems.push(`${SOPS_AGE_KEY_FILE} names ${file}, which is not a regular file`);
      else
        problems.push(`${SOPS_AGE_KEY_FILE} names ${file}, which is larger than an identity file (${read.size} bytes)`);
    } catch (e) {
      problems.push(
        `${SOPS_AGE_KEY_FILE} names ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  return { keys: [...new Set(keys)], sources, problems };
}

/** The identities of an age identity file's text: one a line, `#` comments and blank lines skipped. */
export function identitiesIn(text: string): { keys: string[]; bad: number } {
  const keys: string[] = [];
  let bad = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (IDENTITY.test(line)) keys.push(line);
    else bad++;
  }
  return { keys, bad };
}

/** Whether `text` is an age X25519 recipient (`age1…`), the only kind capi-render encrypts to. */
export function isAgeRecipient(text: string): boolean {
  return RECIPIENT.test(text);
}

/** The data key wrapped for one recipient, armored as sops writes it. */
export async function wrapDataKey(dataKey: Uint8Array, recipient: string): Promise<string> {
  const e = new Encrypter();
  e.addRecipient(recipient);
  return armor.encode(await e.encrypt(dataKey));
}

/**
 * The data key, unwrapped from any of the armored stanzas with any of the identities; undefined
 * when none of them opens any stanza.
 */
export async function unwrapDataKey(
  armoredKeys: readonly string[],
  identities: readonly string[],
): Promise<Uint8Array | undefined> {
  if (identities.length === 0) return undefined;
  const d = new Decrypter();
  for (const id of identities) d.addIdentity(id);
  for (const armored of armoredKeys) {
    let file: Uint8Array;
    try {
      file = armor.decode(armored);
    } catch {
      continue;
    }
    try {
      const key = await d.decrypt(file);
      if (key.length === 32) return key;
    } catch {
      // Not for these identities; try the next recipient's stanza.
    }
  }
  return undefined;
}

/** Whether an armored data key is well-formed (decodes to an age file), for checks without a key. */
export function isArmoredAgeFile(text: string): boolean {
  try {
    const bytes = armor.decode(text);
    return Buffer.from(bytes.subarray(0, 21)).toString('latin1') === 'age-encryption.org/v1';
  } catch {
    return false;
  }
}
