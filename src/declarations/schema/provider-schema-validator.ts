/**
 * Validates provider CRs against the cluster-api-operator's own CRD schemas (schemas/, v1alpha2),
 * the hand-implemented CEL rules those CRDs carry, and capi-render's stricter envelope rules
 * (unknown fields are errors, metadata.namespace is required, status must not be set).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { KeywordDefinition, ValidateFunction } from 'ajv';
import { isJsonObject } from '../../manifest/object.js';
import { kindInfo, PROVIDER_KINDS, type ProviderKind } from '../provider-kinds.js';
import { convertAjvErrors } from './ajv-issues.js';
import { evaluateCelCheck, type CelCheck } from './cel-rules.js';
import { CEL_KEYWORD, LIST_MAP_KEYS_KEYWORD } from './convert-structural-schema.js';
import { hoistSharedSubschemas } from './hoist-shared-subschemas.js';
import { KUBERNETES_FORMATS } from './k8s-formats.js';
import { findDuplicateListEntries } from './list-map-keys.js';
import { crdSchemaJsonFile, loadCrdSchema } from './load-crd-schema.js';
import { buildProviderJsonSchema, checkEnvelope } from './object-envelope.js';
import { createIssue, describeValue, sortIssues, type SchemaIssue } from './schema-issue.js';
import { canonicalJson } from '../../manifest/canonical-json.js';
import { packagePath } from '../../package-files.js';
import { NO_VALIDATION_MEMO, type ValidationMemo } from './validation-memo.js';
import {
  compileValidator,
  failUnless,
  loadValidatorModule,
  validatorKey,
  VALIDATORS_DIR,
  type ValidatorSpec,
} from '../../schema-validator.js';

/** The CRD version provider CRs are validated against. */
export const PROVIDER_SCHEMA_VERSION = 'v1alpha2';

/** Validates provider CRs of any kind; each kind's schema is loaded and compiled on first use. */
export interface ProviderSchemaValidator {
  /**
   * Returns every schema problem of `object` as a CR of `kind`, sorted by path (then rule, then
   * message); an empty list means the CR is valid. Never throws for bad input; throws
   * InternalError when the kind's CRD file is missing or carries a rule capi-render does not
   * implement (an unknown CEL rule or schema keyword).
   */
  validate(kind: ProviderKind, object: unknown): SchemaIssue[];
}

/** Options of {@link createProviderSchemaValidator}. */
export interface ProviderSchemaValidatorOptions {
  /** Folder holding the operator CRD files named by `kindInfo(kind).schemaFile`. Default: the package's `schemas/`. */
  schemaDir?: string;
  /** Successes remembered across builds (see validation-memo.ts). Default: none. */
  memo?: ValidationMemo;
  /** Makes a kind's validator from its schema when none is precompiled. Default: compileValidator. */
  compile?: (spec: ValidatorSpec) => ValidateFunction;
  /** Where `npm run build` put the precompiled validators and their index of kinds. Default: the package's. */
  validatorsDir?: string;
}

/** What `npm run build` records of a packaged kind's schema, by the bytes of its JSON file. */
export interface PrecompiledKind {
  /** sha256 of the schema's JSON file (load-crd-schema.ts crdSchemaJsonFile), as read. */
  source: string;
  /** The converted schema's digest (KindSchema.digest). */
  digest: string;
  /** The validator's key (schema-validator.ts validatorKey): its file in the validators folder. */
  validator: string;
}

/** The index of precompiled kinds in the validators folder (scripts/compile-validators.mjs writes it). */
export const PROVIDER_KINDS_INDEX = 'provider-kinds.json';

interface KindSchema {
  /** Kinds with equal keys share one validator: the converted schema's canonical JSON, or the precompiled validator's key. */
  key: string;
  /** sha256 of the converted schema's canonical JSON: names the schema in a remembered success. */
  digest: string;
  /** The precompiled validator's key, when the index vouches for this kind's schema file. */
  precompiled?: string;
  /** The converted schema (converted on first call when the index vouched for the file). */
  schema: () => Record<string, unknown>;
}

/**
 * Builds a validator. Nothing is read until a kind is first validated; the compiled schemas are
 * cached in the returned object (not in the module), and kinds whose converted schemas are
 * identical (today all seven: their CRDs differ only in descriptions) share one compiled validator.
 * A kind whose schema file has the bytes the build's index records takes the digest and validator
 * recorded there, without converting the schema (~10 ms a kind); any other is converted here.
 */
export function createProviderSchemaValidator(options: ProviderSchemaValidatorOptions = {}): ProviderSchemaValidator {
  const memo = options.memo ?? NO_VALIDATION_MEMO;
  const schemaDir = options.schemaDir ?? packagePath('schemas');
  const validatorsDir = options.validatorsDir ?? packagePath(...VALIDATORS_DIR);
  const schemas = new Map<ProviderKind, KindSchema>();
  const compiledByKey = new Map<string, ValidateFunction>();
  let index: Partial<Record<ProviderKind, PrecompiledKind>> | undefined;

  function schemaFor(kind: ProviderKind): KindSchema {
    let entry = schemas.get(kind);
    if (!entry) {
      entry = indexedSchema(kind) ?? convertedSchema(schemaDir, kind);
      schemas.set(kind, entry);
    }
    return entry;
  }

  function indexedSchema(kind: ProviderKind): KindSchema | undefined {
    index ??= readIndex(path.join(validatorsDir, PROVIDER_KINDS_INDEX));
    const known = index[kind];
    if (!known) return undefined;
    let bytes: Buffer;
    try {
      bytes = readFileSync(crdSchemaJsonFile(schemaDir, kindInfo(kind).schemaFile, PROVIDER_SCHEMA_VERSION));
    } catch {
      return undefined;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== known.source) return undefined;
    let converted: KindSchema | undefined;
    return {
      key: known.validator,
      digest: known.digest,
      precompiled: known.validator,
      schema: () => (converted ??= convertedSchema(schemaDir, kind)).schema(),
    };
  }

  function compiledFor(entry: KindSchema): ValidateFunction {
    let compiled = compiledByKey.get(entry.key);
    if (!compiled) {
      const file = entry.precompiled && path.join(validatorsDir, `${entry.precompiled}.cjs`);
      compiled =
        file && existsSync(file)
          ? loadValidatorModule(file, { formats: KUBERNETES_FORMATS, functions: FUNCTIONS })
          : (options.compile ?? compileValidator)(providerValidatorSpec(entry.schema()));
      compiledByKey.set(entry.key, compiled);
    }
    return compiled;
  }

  return {
    validate(kind, object) {
      const entry = schemaFor(kind);
      if (!isJsonObject(object))
        return [createIssue([], 'type', `must be a ${kind} object, got ${describeValue(object)}`)];
      const subject = `provider ${kind} ${entry.digest}\n${canonicalJson(object)}`;
      if (memo.passed(subject)) return [];
      const issues = checkEnvelope(kind, object);
      const compiled = compiledFor(entry);
      if (!compiled(object)) issues.push(...convertAjvErrors(compiled.errors ?? [], object));
      if (issues.length === 0) memo.remember(subject);
      return sortIssues(issues);
    },
  };
}

/** A kind's schema converted from its CRD file in `schemaDir`. */
function convertedSchema(schemaDir: string, kind: ProviderKind): KindSchema {
  const openApi = loadCrdSchema(schemaDir, kindInfo(kind).schemaFile, PROVIDER_SCHEMA_VERSION);
  const schema = buildProviderJsonSchema(openApi, kind);
  const key = canonicalJson(schema);
  return { key, digest: createHash('sha256').update(key).digest('hex'), schema: () => schema };
}

/** The index `npm run build` writes; empty when there is none or it is not one. */
function readIndex(file: string): Partial<Record<ProviderKind, PrecompiledKind>> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return isJsonObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The index of the kinds whose schema files are in `schemaDir` (what the build script writes). */
export function precompiledKinds(schemaDir: string): Record<string, PrecompiledKind> {
  const out: Record<string, PrecompiledKind> = {};
  for (const { kind, schemaFile } of PROVIDER_KINDS) {
    const entry = convertedSchema(schemaDir, kind);
    out[kind] = {
      source: createHash('sha256')
        .update(readFileSync(crdSchemaJsonFile(schemaDir, schemaFile, PROVIDER_SCHEMA_VERSION)))
        .digest('hex'),
      digest: entry.digest,
      validator: validatorKey(providerValidatorSpec(entry.schema())),
    };
  }
  return out;
}

/** The schema of a provider kind (as converted from its CRD) with ajv's settings, formats and keywords. */
export function providerValidatorSpec(schema: Record<string, unknown>): ValidatorSpec {
  return {
    schema: hoistSharedSubschemas(schema),
    options: AJV_OPTIONS,
    formats: KUBERNETES_FORMATS,
    keywords: KEYWORDS,
    functions: FUNCTIONS,
  };
}

/** The provider schema of the package's own CRDs (what `npm run build` precompiles). */
export function packagedProviderValidatorSpec(kind: ProviderKind): ValidatorSpec {
  const openApi = loadCrdSchema(packagePath('schemas'), kindInfo(kind).schemaFile, PROVIDER_SCHEMA_VERSION);
  return providerValidatorSpec(buildProviderJsonSchema(openApi, kind));
}

const AJV_OPTIONS = {
  // One issue per problem needs every error, and verbose errors carry the failing value and schema.
  allErrors: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  // The schemas are built by our own conversion, checked against ajv's meta-schema in the tests.
  validateSchema: false,
  // Shared sub-schemas are hoisted into $defs so they compile once; inlining them would undo that.
  inlineRefs: false,
  // Compiling dominates when it happens at run time; skipping ajv's code optimiser saves ~25% of it.
  code: { optimize: false },
  // Unknown formats are dropped during conversion; the ones left are all in KUBERNETES_FORMATS.
  validateFormats: true,
};

const celChecksPass = (checks: CelCheck[], data: unknown): boolean =>
  checks.every((check) => evaluateCelCheck(check, data));
const listMapKeysUnique = (keys: string[], data: unknown): boolean => findDuplicateListEntries(data, keys).length === 0;
const FUNCTIONS = { celChecksPass, listMapKeysUnique };

// Defined by `code`, not `validate`, so the validator can be written out as standalone code; a
// failing check is one error of the keyword with no params, as a `validate` keyword without errors gives.
const KEYWORDS: KeywordDefinition[] = [
  {
    keyword: CEL_KEYWORD,
    type: 'object',
    schemaType: 'array',
    code: (cxt) => failUnless(cxt, 'celChecksPass', celChecksPass),
  },
  {
    keyword: LIST_MAP_KEYS_KEYWORD,
    type: 'array',
    schemaType: 'array',
    code: (cxt) => failUnless(cxt, 'listMapKeysUnique', listMapKeysUnique),
  },
];
