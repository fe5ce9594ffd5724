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
import type { FormatDefinition, KeywordCxt, KeywordDefinition, Options, ValidateFunction } from 'ajv';
import type * as AjvExports from 'ajv';
import type { Ajv } from 'ajv';
import type StandaloneCode from 'ajv/dist/standalone/index.js';
import equalModule from 'ajv/dist/runtime/equal.js';
import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { packagePath } from './package-files.js';

/** A function a keyword's generated code calls; reached through {@link failUnless}. */
type SchemaFunction = (...args: never[]) => unknown;

/** What a validator is compiled from. */
export interface ValidatorSpec {
  schema: Record<string, unknown>;
  /** ajv's options (`code.source` and `code.formats` are added when the code is written out). */
  options: Options;
  formats?: Readonly<Record<string, FormatDefinition<string> | FormatDefinition<number>>>;
  /** Keywords defined by `code` (a keyword's `validate` function cannot be written out as code). */
  keywords?: readonly KeywordDefinition[];
  /** The functions the keywords' code calls, by the names given to {@link failUnless}. */
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
 * ajv itself, loaded on first use: a run whose validators are all precompiled never loads it (its
 * ~250 KB of modules cost ~15 ms to load). Not bundled into the CLI: loaded from node_modules.
 */
function ajv(): typeof AjvExports {
  return requireFile('ajv') as typeof AjvExports;
}

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

/**
 * `spec`'s validator, made on the first call and the same one after: for a validator whose schema is
 * a constant of the package (the config, overlay and lock schemas).
 */
export function validatorOnce(spec: ValidatorSpec): () => ValidateFunction {
  let made: ValidateFunction | undefined;
  return () => (made ??= compileValidator(spec));
}

/** Compiles `spec` with ajv now, as its precompiled file was made. */
export function compileSchema(spec: ValidatorSpec): ValidateFunction {
  return createAjv(spec, spec.options).compile(spec.schema);
}

/** The validator in a file of {@link validatorModuleSource}'s text, given `spec`'s formats and functions. */
export function loadValidatorModule(
  file: string,
  spec: Pick<ValidatorSpec, 'formats' | 'functions'>,
): ValidateFunction {
  const factory = requireFile(file) as (deps: ValidatorDeps, require: typeof helperRequire) => ValidateFunction;
  return factory({ formats: spec.formats, functions: spec.functions }, helperRequire);
}

/**
 * The text of `spec`'s precompiled file: a CommonJS module exporting a factory that takes the
 * formats and functions (ajv's standalone code cannot import them) and the `require` its code loads
 * ajv's run-time helpers with ({@link RUNTIME_HELPERS}, wherever the file is), and returns the validator.
 */
export function validatorModuleSource(spec: ValidatorSpec): string {
  // CommonJS: module.exports is the function (its `default` too).
  const standaloneCode = requireFile('ajv/dist/standalone') as typeof StandaloneCode.default;
  const { _ } = ajv();
  const instance = createAjv(spec, {
    ...spec.options,
    code: { ...spec.options.code, source: true, formats: _`deps.formats` },
  });
  const code = standaloneCode(instance, instance.compile(spec.schema));
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
 * For a keyword's `code`: fails the keyword (one error, no params) unless `fn(schema, data)` is
 * true, calling `fn` itself when compiled here and the factory's `deps.functions[name]` in a
 * precompiled file (`fn` must be `spec.functions[name]`).
 */
export function failUnless(cxt: KeywordCxt, name: string, fn: SchemaFunction): void {
  const { _ } = ajv();
  const call = cxt.gen.scopeValue('func', { ref: fn, code: _`deps.functions[${name}]` });
  cxt.fail(_`!${call}(${cxt.schemaValue}, ${cxt.data})`);
}

function createAjv(spec: ValidatorSpec, options: Options): Ajv {
  const instance = new (ajv().Ajv)(options);
  for (const [name, format] of Object.entries(spec.formats ?? {})) instance.addFormat(name, format);
  for (const keyword of spec.keywords ?? []) instance.addKeyword(keyword);
  return instance;
}
