/** Access to the real upstream artifacts under test/fixtures (gzip'd transparently). */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import type { KubeObject } from 'capi-render';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Real v1.12.0 artifacts many unit tests run on. */
export const CORE_COMPONENTS = 'repository/cluster-api/v1.12.0/core-components.yaml';
export const DOCKER_COMPONENTS = 'repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml';
export const CERT_MANAGER = 'repository/cert-manager/v1.19.4/cert-manager.yaml';

/** Text of a fixture file, given its path under test/fixtures (with or without `.gz`). */
export function fixtureText(relative: string): string {
  const plain = FIXTURES + relative.replace(/\.gz$/, '');
  if (existsSync(plain)) return readFileSync(plain, 'utf8');
  return gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
}

/**
 * Replaces each `${NAME:=default}`, `${NAME:-default}` or `${NAME=default}` by its default (a
 * stand-in for the real substitution step, for tests of the steps after it).
 */
export function withVariableDefaults(text: string): string {
  return text.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::=|:-|=)([^}]*)\}/g, (_m, d: string) => d);
}

/** The objects of a components fixture, variables resolved to their defaults. */
export function fixtureObjects(relative: string): KubeObject[] {
  return (
    jsYaml.loadAll(withVariableDefaults(fixtureText(relative)), undefined, {
      schema: jsYaml.CORE_SCHEMA,
    }) as KubeObject[]
  ).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
}

/** The one object of `kind` named `name`; throws when absent, so a fixture change fails loudly. */
export function findObject(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && (o.metadata as { name?: string } | undefined)?.name === name);
  if (found === undefined) throw new Error(`fixture has no ${kind} ${name}`);
  return found;
}

/** Deep-freezes a value so a test fails if code under test mutates it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
