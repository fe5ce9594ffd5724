/**
 * `.sops.yaml` creation rules, resolved for a file as sops resolves them: the path is taken relative
 * to the folder of `.sops.yaml`; rules are tried in order and the first whose `path_regex` matches
 * (or that has none) wins; its recipients are `age:` (a comma-separated string or a list) or, in
 * `key_groups`, the `age:` list of a single group. capi-render writes age only: a rule that also
 * names PGP, KMS or Vault keys, or several key groups (Shamir), is refused, as is a rule without a
 * selection (sops would then encrypt `kind` and `metadata` too, which kustomize cannot read).
 */
import { LineCounter, parseDocument, isMap, isSeq, type Node } from 'yaml';
import { SpecError, error } from '../../errors.js';
import { isAgeRecipient } from './age-keys.js';
import type { SopsSelection } from './sops-values.js';

/** The rule a rendered file is encrypted under. */
export interface SopsRule extends SopsSelection {
  /** age recipients, in the rule's order. */
  recipients: string[];
  /** Index of the rule in creation_rules, and its line, for messages. */
  index: number;
  line: number;
}

export interface SopsRules {
  /** Repository-relative name of the file (`.sops.yaml`). */
  file: string;
  /** The rule for `relativePath` (relative to the folder of the file); throws SpecError naming both. */
  ruleFor(relativePath: string): SopsRule;
}

const OTHER_KEYS = ['pgp', 'kms', 'gcp_kms', 'azure_keyvault', 'hc_vault_transit_uri', 'hckms'] as const;
const SELECTIONS = [
  'encrypted_regex',
  'unencrypted_regex',
  'encrypted_suffix',
  'unencrypted_suffix',
  'encrypted_comment_regex',
  'unencrypted_comment_regex',
] as const;
const HINT_SETUP =
  'add a creation rule such as {path_regex: "rendered/.*\\.yaml$", encrypted_regex: "^(data|stringData)$", age: age1…} (docs/flux.md "SOPS-encrypted Secrets")';

/** Parses `.sops.yaml` text; errors name `file` and a line. */
export function parseSopsRules(text: string, file: string): SopsRules {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  const fail = (message: string, node: Node | undefined | null, hint?: string): never => {
    const line = node?.range ? lines.linePos(node.range[0]).line : 1;
    throw new SpecError(error('sops', message, { file, line, ...(hint ? { hint } : {}) }));
  };
  if (doc.errors.length > 0) fail(`${file} is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`, undefined);
  const root = doc.contents;
  const rulesNode = isMap(root) ? (root.get('creation_rules', true) as Node | undefined) : undefined;
  if (!isSeq(rulesNode)) fail(`${file} has no creation_rules list`, root ?? undefined, HINT_SETUP);
  const rules = (rulesNode as { items: unknown[] }).items;
  type Raw = { node: Node; line: number; value: Record<string, unknown>; index: number; regex?: RegExp };
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch {
    fail(`${file} has aliases capi-render does not expand`, root ?? undefined);
  }
  const values = (js as { creation_rules: unknown[] }).creation_rules;
  const raw: Raw[] = rules.map((node, index) => {
    const n = node as Node;
    const value = values[index];
    if (!isMap(n) || typeof value !== 'object' || value === null || Array.isArray(value))
      return fail(`${file} creation_rules[${index}] is not a map`, n);
    const v = value as Record<string, unknown>;
    const line = n.range ? lines.linePos(n.range[0]).line : 1;
    let regex: RegExp | undefined;
    if (v.path_regex !== undefined && v.path_regex !== null && v.path_regex !== '') {
      if (typeof v.path_regex !== 'string') fail(`${file} creation_rules[${index}].path_regex is not a string`, n);
      try {
        regex = new RegExp(v.path_regex as string);
      } catch {
        fail(
          `${file} creation_rules[${index}].path_regex ${JSON.stringify(v.path_regex)} is not a regular expression capi-render can read`,
          n,
        );
      }
    }
    return { node: n, line, value: v, index, ...(regex ? { regex } : {}) };
  });
  return {
    file,
    ruleFor(relativePath) {
      const match = raw.find((r) => !r.regex || r.regex.test(relativePath));
      if (!match) {
        throw new SpecError(
          error('sops', `no creation rule of ${file} matches ${relativePath}, so it has no recipients to encrypt to`, {
            file,
            line: isSeq(rulesNode) && rulesNode.range ? lines.linePos(rulesNode.range[0]).line : 1,
            hint: HINT_SETUP,
          }),
        );
      }
      return resolveRule(match.value, match.index, match.line, relativePath, (message, hint) =>
        fail(message, match.node, hint),
      );
    },
  };
}

function resolveRule(
  rule: Record<string, unknown>,
  index: number,
  line: number,
  relativePath: string,
  fail: (message: string, hint?: string) => never,
): SopsRule {
  const at = `creation_rules[${index}] (the first rule matching ${relativePath})`;
  const selections = SELECTIONS.filter((k) => rule[k] !== undefined && rule[k] !== null && rule[k] !== '');
  if (selections.length > 1) fail(`${at} sets ${selections.join(' and ')}; sops allows only one of them`);
  if (selections.some((k) => k.endsWith('comment_regex')))
    fail(
      `${at} selects values by comment (${selections[0]}); capi-render writes no comments`,
      'use encrypted_regex: ^(data|stringData)$',
    );
  if (selections.length === 0)
    fail(
      `${at} encrypts every value, kind and metadata included, which kustomize and Flux cannot read`,
      'add encrypted_regex: ^(data|stringData)$ to the rule',
    );
  for (const k of selections) if (typeof rule[k] !== 'string') fail(`${at} ${k} is not a string`);
  for (const k of ['encrypted_regex', 'unencrypted_regex'] as const) {
    if (typeof rule[k] === 'string') {
      try {
        new RegExp(rule[k]);
      } catch {
        fail(`${at} ${k} is not a regular expression capi-render can read`);
      }
    }
  }
  let recipients: string[];
  if (Array.isArray(rule.key_groups) && rule.key_groups.length > 0) {
    if (rule.key_groups.length > 1)
      fail(
        `${at} has ${rule.key_groups.length} key_groups (Shamir secret sharing); capi-render writes one group of age recipients`,
        'list the age recipients in one group, or in age:',
      );
    const group = rule.key_groups[0] as Record<string, unknown>;
    const others = typeof group === 'object' && group !== null ? Object.keys(group).filter((k) => k !== 'age') : [];
    if (others.length > 0)
      fail(`${at} key_groups[0] has ${others.join(', ')} keys; capi-render encrypts to age recipients only`);
    recipients = keyList(group?.age, `${at} key_groups[0].age`, fail);
  } else {
    const others = OTHER_KEYS.filter(
      (k) =>
        rule[k] !== undefined &&
        rule[k] !== null &&
        rule[k] !== '' &&
        !(Array.isArray(rule[k]) && rule[k].length === 0),
    );
    if (others.length > 0)
      fail(
        `${at} names ${others.join(', ')} keys; capi-render encrypts to age recipients only`,
        'give these files a rule of their own with age recipients only',
      );
    recipients = keyList(rule.age, `${at} age`, fail);
  }
  if (recipients.length === 0)
    fail(`${at} has no age recipient`, 'add age: age1… (the public key age-keygen prints) to the rule');
  for (const r of recipients)
    if (!isAgeRecipient(r))
      fail(`${at} has a recipient that is not an age X25519 public key (age1…): ${r.slice(0, 80)}`);
  const str = (k: string) => (typeof rule[k] === 'string' && rule[k] !== '' ? rule[k] : undefined);
  const selection: SopsSelection = {
    ...(str('encrypted_regex') ? { encryptedRegex: str('encrypted_regex')! } : {}),
    ...(str('unencrypted_regex') ? { unencryptedRegex: str('unencrypted_regex')! } : {}),
    ...(str('encrypted_suffix') ? { encryptedSuffix: str('encrypted_suffix')! } : {}),
    ...(str('unencrypted_suffix') ? { unencryptedSuffix: str('unencrypted_suffix')! } : {}),
    ...(rule.mac_only_encrypted === true ? { macOnlyEncrypted: true } : {}),
  };
  return { ...selection, recipients, index, line };
}

/** A key field: a comma-separated string or a list of strings (sops's parseKeyField). */
function keyList(field: unknown, at: string, fail: (message: string) => never): string[] {
  if (field === undefined || field === null) return [];
  if (typeof field === 'string')
    return field
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
  if (Array.isArray(field))
    return field.map((k) => (typeof k === 'string' ? k.trim() : fail(`${at} lists something that is not a string`)));
  return fail(`${at} is neither a string nor a list`);
}
