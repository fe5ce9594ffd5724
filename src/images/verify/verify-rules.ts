/**
 * `imagePolicy.verify`: which images must carry which cosign signature. A list of rules, each an
 * image glob and one requirement — keyless (a Fulcio certificate for an OIDC identity and issuer)
 * or a public key from the repository. The first rule whose glob matches an image applies; an image
 * that no rule matches is not verified.
 *
 * Design notes: docs/internals.md "images/verify/verify-rules.ts".
 */
import { createHash, createPublicKey } from 'node:crypto';
import { json } from '@sigstore/core';
import { error, warning, type Diagnostic } from '../../errors.js';
import { suggestField } from '../../declarations/schema/suggest-field.js';
import type { VerifyRule } from './verify-rules-schema.js';
import { imageName } from '../image-name.js';
import { keyPathProblem, readVerifyKey } from './verify-key.js';

export { keyPathProblem } from './verify-key.js';

export { imageName } from '../image-name.js';

export type { VerifyRule } from './verify-rules-schema.js';
export { VERIFY_RULES_SCHEMA } from './verify-rules-schema.js';

const FIELD = 'imagePolicy.verify';
const RULE_KEYS = ['images', 'keyless', 'key'] as const;
const KEYLESS_KEYS = ['issuer', 'issuerRegExp', 'identity', 'identityRegExp'] as const;
/** What an image name may hold (distribution/reference, host names in any case), plus the glob characters. */
const GLOB_CHARACTERS = /^[A-Za-z0-9._\-/:[\]*?]+$/;

/** The regular expression a glob stands for (whole-name match). */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      while (glob[i + 1] === '*') i++;
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else {
      out += c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/** Whether `image` (a reference, with or without tag and digest) is matched by `glob`. */
export function imageMatches(glob: string, image: string): boolean {
  return globToRegExp(glob).test(imageName(image));
}

/**
 * The first rule whose glob matches `image` — or one of `released`, the names the provider released
 * it under before `images:` overrides moved it (a rule for `registry.k8s.io/cluster-api/*` still
 * covers the mirror the images are pulled from) — with its index in the list; undefined when none does.
 */
export function ruleFor(
  rules: readonly VerifyRule[],
  image: string,
  released: readonly string[] = [],
): { rule: VerifyRule; index: number } | undefined {
  const names = [imageName(image), ...released.map(imageName)];
  for (let index = 0; index < rules.length; index++) {
    const pattern = globToRegExp(rules[index]!.images);
    if (names.some((name) => pattern.test(name))) return { rule: rules[index]!, index };
  }
  return undefined;
}

/**
 * The indexes of the rules whose glob matches none of `images` (as rendered, each with the names
 * it was released under): such a rule verifies nothing, which a user who wrote it would never know.
 */
export function rulesMatchingNothing(
  rules: readonly VerifyRule[],
  images: readonly { image: string; released: readonly string[] }[],
): number[] {
  const names = images.flatMap((i) => [imageName(i.image), ...i.released.map(imageName)]);
  return rules.flatMap((rule, index) => {
    const pattern = globToRegExp(rule.images);
    return names.some((name) => pattern.test(name)) ? [] : [index];
  });
}

/**
 * A stable id of a rule, recorded in the lock beside what it verified: `sha256:` and the first 12
 * hex digits of the SHA-256 of the canonical (RFC 8785) JSON of the rule's fields — with the SHA-256
 * of the key file's bytes for a key rule, so replacing the key changes the id. Unknown fields and
 * absent ones do not count, so the id does not change with the order or spelling of the YAML.
 */
export function ruleId(rule: VerifyRule, keyPem?: string): string {
  const canonical: Record<string, unknown> = { images: rule.images };
  if (rule.keyless) {
    const keyless: Record<string, string> = {};
    for (const k of KEYLESS_KEYS) if (typeof rule.keyless[k] === 'string') keyless[k] = rule.keyless[k];
    canonical.keyless = keyless;
  }
  if (rule.key !== undefined) canonical.key = rule.key;
  if (keyPem !== undefined) canonical.keySha256 = createHash('sha256').update(keyPem, 'utf8').digest('hex');
  return `sha256:${createHash('sha256').update(json.canonicalize(canonical), 'utf8').digest('hex').slice(0, 12)}`;
}

/** A one-line description of a rule for messages: `keyless (issuer …, identity …)` or `key keys/cosign.pub`. */
export function describeRule(rule: VerifyRule): string {
  if (rule.key !== undefined) return `key ${rule.key}`;
  const k = rule.keyless ?? {};
  const issuer = k.issuer !== undefined ? `issuer ${k.issuer}` : `issuerRegExp ${k.issuerRegExp ?? '?'}`;
  const identity = k.identity !== undefined ? `identity ${k.identity}` : `identityRegExp ${k.identityRegExp ?? '?'}`;
  return `keyless (${issuer}, ${identity})`;
}

/**
 * Every problem of an `imagePolicy.verify` value, each with its field (`imagePolicy.verify[1].keyless`):
 * not a list; a rule that is not an object or has unknown fields (with the closest known name);
 * `images` missing, empty, with characters no image name has, or naming a tag or digest; not exactly
 * one of `keyless` and `key`; `keyless` without `issuer` or `issuerRegExp`, or without `identity` or
 * `identityRegExp`, or with both forms of one; a regexp that does not compile (and a warning for an
 * unanchored one); a `key` that is absolute or leaves the repository — and, given `repoRoot`, one
 * that is missing or not a PEM public key. Collects; never throws.
 */
export function checkRules(rules: unknown, options: { repoRoot?: string; file?: string } = {}): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (field: string, hint?: string) => ({
    field,
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(hint !== undefined ? { hint } : {}),
  });
  if (rules === undefined || rules === null) return out;
  if (!Array.isArray(rules)) {
    out.push(
      error(
        'config',
        `${FIELD} must be a list of rules`,
        at(
          FIELD,
          'write `verify:` as a YAML list: `- images: "registry.k8s.io/cluster-api/*"` with `keyless:` or `key:`',
        ),
      ),
    );
    return out;
  }
  rules.forEach((rule: unknown, i) => {
    const field = `${FIELD}[${i}]`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
      out.push(error('config', `${field} must be a rule (an object with images and keyless or key)`, at(field)));
      return;
    }
    const r = rule as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if ((RULE_KEYS as readonly string[]).includes(key)) continue;
      const guess = suggestField(key, RULE_KEYS);
      out.push(
        error(
          'config',
          `${field} has an unknown field ${JSON.stringify(key)}${guess ? `; did you mean "${guess}"?` : ''}`,
          at(`${field}.${key}`, 'a rule has images, and keyless or key'),
        ),
      );
    }
    checkImages(r.images, `${field}.images`, out, at);
    const hasKeyless = r.keyless !== undefined;
    const hasKey = r.key !== undefined;
    if (hasKeyless === hasKey) {
      out.push(
        error(
          'config',
          hasKey
            ? `${field} has both keyless and key; a rule requires one kind of signature`
            : `${field} has neither keyless nor key`,
          at(field, 'write two rules to accept either kind, or pick the one the image publisher uses'),
        ),
      );
    }
    if (hasKeyless) checkKeyless(r.keyless, `${field}.keyless`, out, at);
    if (hasKey) checkKey(r.key, `${field}.key`, out, at, options.repoRoot);
  });
  return out;
}

type At = (field: string, hint?: string) => { field: string; file?: string; hint?: string };

function checkImages(images: unknown, field: string, out: Diagnostic[], at: At): void {
  if (typeof images !== 'string' || images.trim() === '') {
    out.push(
      error('config', `${field} must be a non-empty image glob`, at(field, 'e.g. "registry.k8s.io/cluster-api/*"')),
    );
    return;
  }
  if (!GLOB_CHARACTERS.test(images)) {
    out.push(
      error(
        'config',
        `${field} ${JSON.stringify(images)} has characters no image name has`,
        at(field, 'a glob is an image name with * (any characters, / included) and ? (one character)'),
      ),
    );
    return;
  }
  const slash = images.lastIndexOf('/');
  if (images.includes('@') || (slash >= 0 && images.indexOf(':', slash) > slash)) {
    out.push(
      error(
        'config',
        `${field} ${JSON.stringify(images)} names a tag or digest; rules match the image name before its tag`,
        at(field, `write ${JSON.stringify(imageName(images))}: every tag and digest of the image is then covered`),
      ),
    );
  }
}

function checkKeyless(keyless: unknown, field: string, out: Diagnostic[], at: At): void {
  if (typeof keyless !== 'object' || keyless === null || Array.isArray(keyless)) {
    out.push(
      error(
        'config',
        `${field} must be an object with issuer (or issuerRegExp) and identity (or identityRegExp)`,
        at(field),
      ),
    );
    return;
  }
  const k = keyless as Record<string, unknown>;
  for (const key of Object.keys(k)) {
    if ((KEYLESS_KEYS as readonly string[]).includes(key)) continue;
    const guess = suggestField(key, KEYLESS_KEYS);
    out.push(
      error(
        'config',
        `${field} has an unknown field ${JSON.stringify(key)}${guess ? `; did you mean "${guess}"?` : ''}`,
        at(`${field}.${key}`, 'keyless has issuer or issuerRegExp, and identity or identityRegExp'),
      ),
    );
  }
  for (const [exact, regexp, example] of [
    ['issuer', 'issuerRegExp', 'https://accounts.google.com'],
    ['identity', 'identityRegExp', 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com'],
  ] as const) {
    const e = k[exact];
    const r = k[regexp];
    if (e === undefined && r === undefined) {
      out.push(
        error(
          'config',
          `${field} needs ${exact} or ${regexp}`,
          at(
            field,
            `e.g. ${exact}: ${example}; without it any ${exact === 'issuer' ? 'OIDC issuer' : 'identity'} would pass`,
          ),
        ),
      );
      continue;
    }
    if (e !== undefined && r !== undefined)
      out.push(error('config', `${field} has both ${exact} and ${regexp}; give one`, at(`${field}.${regexp}`)));
    if (e !== undefined && (typeof e !== 'string' || e === ''))
      out.push(error('config', `${field}.${exact} must be a non-empty string`, at(`${field}.${exact}`)));
    if (r !== undefined) {
      if (typeof r !== 'string' || r === '') {
        out.push(error('config', `${field}.${regexp} must be a non-empty string`, at(`${field}.${regexp}`)));
        continue;
      }
      try {
        new RegExp(r);
      } catch (cause) {
        out.push(
          error(
            'config',
            `${field}.${regexp} ${JSON.stringify(r)} is not a regular expression: ${(cause as Error).message}`,
            at(`${field}.${regexp}`),
          ),
        );
        continue;
      }
      if (!r.startsWith('^') || !r.endsWith('$')) {
        out.push(
          warning(
            'config',
            `${field}.${regexp} ${JSON.stringify(r)} is not anchored: it matches any ${exact} that contains a match`,
            at(
              `${field}.${regexp}`,
              `anchor it and escape the dots, e.g. ${JSON.stringify(`^${r.replace(/^\^|\$$/g, '')}$`)}`,
            ),
          ),
        );
      }
    }
  }
}

function checkKey(key: unknown, field: string, out: Diagnostic[], at: At, repoRoot: string | undefined): void {
  if (typeof key !== 'string' || key === '') {
    out.push(
      error(
        'config',
        `${field} must be the path of a PEM public key file in the repository`,
        at(field, 'e.g. keys/cosign.pub'),
      ),
    );
    return;
  }
  const problem = keyPathProblem(key);
  if (problem) {
    out.push(
      error(
        'config',
        `${field} ${JSON.stringify(key)} ${problem}`,
        at(
          field,
          'put the public key in the repository and give its path relative to the repository root, e.g. keys/cosign.pub',
        ),
      ),
    );
    return;
  }
  if (repoRoot === undefined) return;
  const read = readVerifyKey(repoRoot, key);
  if ('problem' in read) {
    out.push(
      error(
        'config',
        `${field} ${key} ${read.missing ? 'does not exist' : read.problem.replace(/^file \S+ /, '')}`,
        at(
          field,
          'commit the public key (cosign.pub, from `cosign generate-key-pair` or the image publisher) at that path',
        ),
      ),
    );
    return;
  }
  const pem = read.pem;
  try {
    createPublicKey(pem);
  } catch {
    out.push(
      error(
        'config',
        `${field} ${key} is not a PEM public key`,
        at(field, 'it must begin with -----BEGIN PUBLIC KEY----- (the .pub file, never the private key)'),
      ),
    );
  }
}

/** {@link ruleId} with the key's bytes for a key rule whose key can be read (as verification computes it). */
export function ruleIdIn(repoRoot: string, rule: VerifyRule): string {
  if (rule.key === undefined) return ruleId(rule);
  const read = readVerifyKey(repoRoot, rule.key);
  return ruleId(rule, 'pem' in read ? read.pem : undefined);
}
