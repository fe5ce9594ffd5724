/**
 * The seal step of `secrets.mode: sops`: every Secret the guard marked (pending.ts) becomes the
 * SOPS document sops would write for it, encrypted to the age recipients of the first `.sops.yaml`
 * creation rule matching its path (relative to the repository, where `.sops.yaml` lives). It runs
 * on an environment's planned files, after the GitOps stage, before anything is written or compared.
 *
 * Design notes: docs/internals.md "secrets/sops/seal-environment.ts".
 */
import path from 'node:path';
import jsYaml from 'js-yaml';
import { parseDocument } from 'yaml';
import { SpecError, error, warning, type Diagnostic } from '../../errors.js';
import { isJsonObject, type KubeObject } from '../../manifest/object.js';
import { sortObjects } from '../../manifest/order.js';
import { serializeObject } from '../../manifest/serialize.js';
import { assignFileNames } from '../../plan/file-names.js';
import type { OutputFiles, RenderedEnvironment } from '../../plan/output-plan.js';
import { displayPath, readInputFileSync, readRecordFileSync, resolveInput } from '../../repository-files.js';
import { SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, ageIdentitiesFrom, type AgeIdentities } from './age-keys.js';
import { hasSopsSecrets, isMarkedForSops, valuesUnavailable, withoutMark } from './pending.js';
import {
  decryptSopsDocument,
  encryptDocument,
  looksEncrypted,
  readSopsDocument,
  recordError,
  shapeOf,
  unencryptedPaths,
} from './sops-document.js';
import { parseSopsRules, type SopsRule, type SopsRules } from './sops-rules.js';
import { SOPS_CONFIG_FILES } from './sops-config-file.js';
import type { SopsSelection } from './sops-values.js';

/** A .sops.yaml larger than this is not one. */
const MAX_SOPS_CONFIG_BYTES = 1024 * 1024;

const KEY_HINT = `set ${SOPS_AGE_KEY} or ${SOPS_AGE_KEY_FILE} to an age identity of its recipients`;

export interface SopsSealContext {
  repoRoot: string;
  /** Absolute output folder. */
  outputDir: string;
  /** The process environment: SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, SOURCE_DATE_EPOCH. */
  env: Readonly<Record<string, string | undefined>>;
  /** `check`: records are verified, never replaced. */
  check: boolean;
  /** `lastmodified` of what is encrypted anew. Default SOURCE_DATE_EPOCH, else the system clock. */
  now?: () => Date;
}

export interface SopsSealer {
  /**
   * Seals the marked Secrets of `environment` in `files` (changed in place) and returns the
   * environment with their encrypted objects, with the warnings of the step.
   */
  seal(
    environment: RenderedEnvironment,
    files: OutputFiles,
    flavour: string,
  ): Promise<{ environment: RenderedEnvironment; warnings: Diagnostic[] }>;
}

/** A sealer reading `.sops.yaml` and the identities once, when the first marked Secret needs them. */
export function createSopsSealer(ctx: SopsSealContext): SopsSealer {
  let rules: SopsRules | undefined;
  let identities: AgeIdentities | undefined;
  const rulesFor = (repoRel: string): SopsRule => {
    if (!rules) {
      const file = SOPS_CONFIG_FILES.find((f) => resolveInput(ctx.repoRoot, f) !== undefined);
      const read = file ? readInputFileSync(ctx.repoRoot, file, MAX_SOPS_CONFIG_BYTES) : undefined;
      if (!file || !read) {
        throw new SpecError(
          error(
            'sops',
            `secrets.mode sops: the repository has no .sops.yaml to take the recipients of ${repoRel} from`,
            {
              file: '.sops.yaml',
              hint: 'create .sops.yaml beside capi-render.yaml with a creation rule: {path_regex: ..., encrypted_regex: "^(data|stringData)$", age: age1…} (docs/flux.md "SOPS-encrypted Secrets")',
            },
          ),
        );
      }
      rules = parseSopsRules(read.bytes.toString('utf8'), file);
    }
    return rules.ruleFor(repoRel);
  };
  const rulesFile = () => rules?.file ?? '.sops.yaml';
  const keys = (): AgeIdentities => {
    if (!identities) {
      identities = ageIdentitiesFrom(ctx.env);
      if (identities.problems.length > 0)
        throw new SpecError(
          error('sops', identities.problems[0]!, {
            hint: `fix ${SOPS_AGE_KEY_FILE} or ${SOPS_AGE_KEY}, or unset them`,
          }),
        );
    }
    return identities;
  };
  const now = (): Date => {
    if (ctx.now) return ctx.now();
    const epoch = ctx.env.SOURCE_DATE_EPOCH;
    if (epoch && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000);
    return new Date();
  };

  const sealOne = async (secret: KubeObject, rel: string, warnings: Diagnostic[]): Promise<string> => {
    const abs = path.join(ctx.outputDir, ...rel.split('/'));
    const repoRel = displayPath(abs, ctx.repoRoot);
    const rule = rulesFor(repoRel);
    const plainText = serializeObject(withoutMark(secret));
    // The guard let the Secret through to be encrypted: a rule that would leave a value of its data in plain text cannot.
    const plain = unencryptedPaths(plainText, rule, ['data', 'stringData']);
    if (plain.length > 0) {
      throw new SpecError(
        error(
          'sops',
          `creation_rules[${rule.index}] of .sops.yaml would leave ${plain.join(', ')} of ${repoRel} unencrypted, and it holds secret values`,
          {
            file: rulesFile(),
            line: rule.line,
            hint: 'use encrypted_regex: ^(data|stringData)$ for the rendered files',
          },
        ),
      );
    }
    // Written as every output file is (serializeObject: sops: at its sorted place, which sops reads
    // as well as its own last place), so `build --stdout` prints exactly what rendered/ holds.
    const fresh = async () =>
      serializeObject(
        jsYaml.load(await encryptDocument(plainText, rule, now()), { schema: jsYaml.CORE_SCHEMA }) as KubeObject,
      );
    const committedText = readRecordFileSync(ctx.repoRoot, abs, 'output')?.toString('utf8').replace(/\r\n/g, '\n');
    if (valuesUnavailable(secret)) return keepUnavailable(committedText, repoRel, rule, withoutMark(secret));
    if (committedText === undefined || !looksEncrypted(committedText)) return fresh();
    const record = readSopsDocument(committedText, repoRel);
    if (record.problems.length > 0) {
      if (ctx.check) throw recordError(record, record.problems[0]!, 'rebuild it with `capi-render build`');
      warnings.push(
        warning(
          'sops',
          `${repoRel} ${record.problems[0]!.message} (line ${record.problems[0]!.line}); encrypted anew`,
          { file: repoRel },
        ),
      );
      return fresh();
    }
    const committedRecipients = record.age.map((a) => a.recipient);
    if (!sameSet(committedRecipients, rule.recipients) || !sameSelection(record.selection, rule)) {
      warnings.push(
        warning(
          'sops',
          `${repoRel} is encrypted to other recipients or values than creation_rules[${rule.index}] of .sops.yaml names; ${ctx.check ? 'it needs rebuilding' : 'encrypted anew'}`,
          { file: repoRel },
        ),
      );
      return fresh();
    }
    // Keys and unencrypted values (names, labels, type) are readable without a key: they must match.
    if (shapeOf(committedText, rule) !== shapeOf(plainText, rule)) {
      warnings.push(
        warning(
          'sops',
          `${repoRel} holds other keys or unencrypted values than the inputs render; ${ctx.check ? 'it needs rebuilding' : 'encrypted anew'}`,
          { file: repoRel },
        ),
      );
      return fresh();
    }
    const identity = keys();
    if (identity.keys.length > 0) {
      let decrypted: Awaited<ReturnType<typeof decryptSopsDocument>>;
      try {
        decrypted = await decryptSopsDocument(record, identity.keys);
      } catch (e) {
        if (ctx.check || !(e instanceof SpecError)) throw e;
        warnings.push(warning('sops', `${e.diagnostics[0]!.message}; encrypted anew`, { file: repoRel }));
        return fresh();
      }
      if (decrypted) {
        if (JSON.stringify(decrypted.plaintext) === JSON.stringify(parseDocument(plainText).toJS()))
          return committedText;
        if (ctx.check)
          warnings.push(
            warning('sops', `${repoRel} decrypts to other values than the inputs render`, { file: repoRel }),
          );
        return fresh();
      }
      if (ctx.check) return committedText;
      warnings.push(
        warning(
          'sops',
          `${repoRel}: no identity in ${identity.sources.join(', ')} opens it, so it could not be compared; encrypted anew`,
          { file: repoRel, hint: KEY_HINT },
        ),
      );
      return fresh();
    }
    // No key: check proves structure and recipients; build cannot tell whether the values changed.
    if (ctx.check) return committedText;
    warnings.push(
      warning(
        'sops',
        `${repoRel}: encrypted anew (no ${SOPS_AGE_KEY} or ${SOPS_AGE_KEY_FILE} to compare the committed ciphertext with)`,
        { file: repoRel, hint: KEY_HINT },
      ),
    );
    return fresh();
  };

  /**
   * A Secret whose values are unavailable: only the committed ciphertext can be written, once it is
   * well-formed, for the rule's recipients, and (with an identity) verified. Anything less is an error.
   */
  const keepUnavailable = async (
    committedText: string | undefined,
    repoRel: string,
    rule: SopsRule,
    known: KubeObject,
  ): Promise<string> => {
    const refuse = (why: string, line?: number) =>
      new SpecError(
        error('sops', `${repoRel}: its values are not set in this build, and ${why}`, {
          file: repoRel,
          ...(line ? { line } : {}),
          hint: 'set the variables it is rendered from and build, so it is encrypted anew',
        }),
      );
    if (committedText === undefined || !looksEncrypted(committedText))
      throw refuse('there is no committed encrypted file to keep');
    const record = readSopsDocument(committedText, repoRel);
    if (record.problems.length > 0)
      throw refuse(`the committed file ${record.problems[0]!.message}`, record.problems[0]!.line);
    if (
      !sameSet(
        record.age.map((a) => a.recipient),
        rule.recipients,
      ) ||
      !sameSelection(record.selection, rule)
    ) {
      throw refuse(
        `the committed file is encrypted to other recipients or values than creation_rules[${rule.index}] of .sops.yaml names`,
      );
    }
    const identity = keys();
    // With an identity the record must decrypt and verify, and hold the values that are set.
    const decrypted = identity.keys.length > 0 ? await decryptSopsDocument(record, identity.keys) : undefined;
    if (decrypted) {
      for (const field of ['data', 'stringData'] as const) {
        const set = known[field];
        const committed = decrypted.plaintext[field] as Record<string, unknown> | undefined;
        if (!isJsonObject(set)) continue;
        for (const [key, value] of Object.entries(set)) {
          if (committed?.[key] !== value)
            throw refuse(
              `the committed file holds another ${field}.${key} than the inputs render, which cannot be encrypted anew while the others are not set`,
            );
        }
      }
    }
    return committedText;
  };

  return {
    async seal(environment, files, flavour) {
      const warnings: Diagnostic[] = [];
      if (!hasSopsSecrets(environment)) return { environment, warnings };
      if (flavour === 'argocd') {
        throw new SpecError(
          error(
            'sops',
            `secrets.mode sops in environment ${environment.name}: Argo CD cannot decrypt SOPS files by itself`,
            {
              file: 'capi-render.yaml',
              field: 'secrets.mode',
              hint: 'with Argo CD choose secrets.mode external-secrets (or omit); sops is for the flux flavour (or kustomize with your own decryption)',
            },
          ),
        );
      }
      const components = [];
      for (const component of environment.components) {
        if (!component.objects.some(isMarkedForSops)) {
          components.push(component);
          continue;
        }
        const sorted = sortObjects(component.objects.map((object) => ({ object }))).map((x) => x.object);
        const names = assignFileNames(sorted, `${environment.name}/${component.name}`);
        const objects: KubeObject[] = [];
        for (const obj of component.objects) {
          if (!isMarkedForSops(obj)) {
            objects.push(obj);
            continue;
          }
          const rel = `${environment.name}/${component.name}/${names[sorted.indexOf(obj)]!}`;
          const text = await sealOne(obj, rel, warnings);
          files.set(rel, text);
          objects.push(jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA }) as KubeObject);
        }
        components.push({ ...component, objects });
      }
      return { environment: { ...environment, components }, warnings };
    },
  };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function sameSelection(a: SopsSelection, b: SopsSelection): boolean {
  return (
    (a.encryptedRegex ?? '') === (b.encryptedRegex ?? '') &&
    (a.unencryptedRegex ?? '') === (b.unencryptedRegex ?? '') &&
    (a.encryptedSuffix ?? '') === (b.encryptedSuffix ?? '') &&
    (a.unencryptedSuffix ?? '') === (b.unencryptedSuffix ?? '') &&
    Boolean(a.macOnlyEncrypted) === Boolean(b.macOnlyEncrypted)
  );
}
