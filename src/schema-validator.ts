/**
 * JSON Schema validators (ajv), compiled once at build time where possible. Compiling a schema is
 * most of what validating costs in a short run (the operator's CR schema ~50 ms, each of the config,
 * overlay and lock schemas several ms), so `npm run build` writes the validators the package uses as
 * ajv standalone code (scripts/compile-validators.mjs) into dist/validators/, one file per validator,
 * named by {@link validatorKey}: a digest of the schema, the ajv options and the formats and keywords
 * it is compiled with. A validator whose file is there is loaded from it; any other (a test's own
 * schema folder, a build that did not write them) is compiled here, with the same options — the
 * same generated code either way.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { _, Ajv, type FormatDefinition, type KeywordCxt, type KeywordDefinition, type Name, type Options } from 'ajv';
import type { ValidateFunction } from 'ajv';
import equalModule from 'ajv/dist/runtime/equal.js';
import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { packagePath } from './package-files.js';

/** A function a keyword's generated code calls; reached through {@link callFunction}. */
type SchemaFunction = (...args: never[]) => unknown;

/** What a validator is compiled from. */
export interface ValidatorSpec {
  schema: Record<string, unknown>;
  /** ajv's options (`code.source` and `code.formats` are added when the code is written out). */
  options: Options;
  formats?: Readonly<Record<string, FormatDefinition<string> | FormatDefinition<number>>>;
  /** Keywords defined by `code` (a keyword's `validate` function cannot be written out as code). */
  keywords?: readonly KeywordDefinition[];
  /** The functions the keywords' code calls, by the names given to {@link callFunction}. */
  functions?: Readonly<Record<string, SchemaFunction>>;
}

/** What a precompiled module's factory is given: the values its code refers to by name. */
interface ValidatorDeps {
  formats: ValidatorSpec['formats'];
  functions: ValidatorSpec['functions'];
}

/**
 * Names the precompiled file of `spec`: a digest of its schema, its options and the names and types
 * of its formats and keywords, so a schema or option changed since the build is compiled afresh.
 */
export function validatorKey(spec: ValidatorSpec): string {
  const keywords = (spec.keywords ?? []).map(({ keyword, type, schemaType }) => ({ keyword, type, schemaType }));
  const described = { schema: spec.schema, options: spec.options, formats: Object.keys(spec.formats ?? {}), keywords };
  // The spec is built by the same code at build time and at run time, so its JSON text is stable.
  return createHash('sha256').update(JSON.stringify(described)).digest('hex');
}

/** The folder of the precompiled validators inside the package. */
export const VALIDATORS_DIR = ['dist', 'validators'] as const;

const requireFile = createRequire(import.meta.url);

/**
 * ajv's run-time helpers that generated code requires, as this code's own imports: in the CLI bundle
 * they are part of it, so a precompiled validator loads no module of ajv's from node_modules.
 */
export const RUNTIME_HELPERS: Readonly<Record<string, { default: unknown }>> = {
  'ajv/dist/runtime/equal': asCommonJs(equalModule),
  'ajv/dist/runtime/ucs2length': asCommonJs(ucs2lengthModule),
};

/**
 * The module.exports generated code expects (`{ default: fn }`) from a default import of one of
 * ajv's CommonJS modules: Node gives module.exports, a loader that honours `__esModule` (vitest) the function.
 */
function asCommonJs(imported: unknown): { default: unknown } {
  return typeof imported === 'function' ? { default: imported } : (imported as { default: unknown });
}

/** The `require` a precompiled file is given: a helper above, else Node's (for a helper a later ajv adds). */
function helperRequire(id: string): unknown {
  return RUNTIME_HELPERS[id] ?? requireFile(id);
}

/**
 * The validator of `spec`: loaded from its precompiled file in `dir` (default: the package's
 * dist/validators/) when there is one, else compiled now.
 */
export function compileValidator(spec: ValidatorSpec, dir = packagePath(...VALIDATORS_DIR)): ValidateFunction {
  const file = path.join(dir, `${validatorKey(spec)}.cjs`);
  return existsSync(file) ? loadValidatorModule(file, spec) : compileSchema(spec);
}

/** Compiles `spec` with ajv now, as its precompiled file was made. */
export function compileSchema(spec: ValidatorSpec): ValidateFunction {
  return createAjv(spec, spec.options).compile(spec.schema);
}

/** The validator in a file of {@link validatorModuleSource}'s text, given `spec`'s formats and functions. */
export function loadValidatorModule(file: string, spec: ValidatorSpec): ValidateFunction {
  const factory = requireFile(file) as (deps: ValidatorDeps, require: typeof helperRequire) => ValidateFunction;
  return factory({ formats: spec.formats, functions: spec.functions }, helperRequire);
}

/**
 * The text of `spec`'s precompiled file: a CommonJS module exporting a factory that takes the
 * formats and functions (ajv's standalone code cannot import them) and the `require` its code loads
 * ajv's run-time helpers with ({@link RUNTIME_HELPERS}, wherever the file is), and returns the validator.
 */
export async function validatorModuleSource(spec: ValidatorSpec): Promise<string> {
  // A CommonJS module: Node's default export is its module.exports, whose `default` is the function.
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default.default;
  const ajv = createAjv(spec, {
    ...spec.options,
    code: { ...spec.options.code, source: true, formats: _`deps.formats` },
  });
  const code = standaloneCode(ajv, ajv.compile(spec.schema));
  // The standalone code assigns `module.exports`; a local `module` keeps that inside the factory.
  return [
    '"use strict";',
    `// ajv standalone code, generated by scripts/compile-validators.mjs; key ${validatorKey(spec)}`,
    'module.exports = function (deps, require) {',
    '  const module = { exports: undefined };',
    code,
    '  return module.exports;',
    '};',
    '',
  ].join('\n');
}

/**
 * For a keyword's `code`: the expression that calls `spec.functions[name]` (`fn` itself when compiled
 * here, the factory's `deps.functions[name]` in a precompiled file).
 */
export function callFunction(cxt: KeywordCxt, name: string, fn: SchemaFunction): Name {
  return cxt.gen.scopeValue('func', { ref: fn, code: _`deps.functions[${name}]` });
}

function createAjv(spec: ValidatorSpec, options: Options): Ajv {
  const ajv = new Ajv(options);
  for (const [name, format] of Object.entries(spec.formats ?? {})) ajv.addFormat(name, format);
  for (const keyword of spec.keywords ?? []) ajv.addKeyword(keyword);
  return ajv;
}
