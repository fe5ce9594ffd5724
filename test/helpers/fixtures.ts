/** Access to the real upstream artifacts under test/fixtures (gzip'd transparently). */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import type { KubeObject } from '../../src/manifest/object.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Text of a fixture file, given its path under test/fixtures without `.gz`. */
export function fixtureText(relative: string): string {
  const plain = FIXTURES + relative;
  if (existsSync(plain)) return readFileSync(plain, 'utf8');
  return gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
}

/** Resolves `${NAME:=default}`-style variables to their defaults (for tests of later steps only). */
export function withVariableDefaults(text: string): string {
  return text.replace(/\$\{([A-Za-z0-9_]+)(?::?[=-])([^}]*)\}/g, (_m, _n, d: string) => d);
}

/** The objects of a components fixture, variables resolved to their defaults. */
export function fixtureObjects(relative: string): KubeObject[] {
  return (jsYaml.loadAll(withVariableDefaults(fixtureText(relative)), undefined, { schema: jsYaml.CORE_SCHEMA }) as KubeObject[]).filter(Boolean);
}

/** Deep-freezes a value so a test fails if code under test mutates it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
