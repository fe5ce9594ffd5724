/**
 * Loads real release artifacts from test/fixtures for unit tests: gunzips `*.gz`, replaces
 * `${NAME:=default}`, `${NAME:-default}` and `${NAME=default}` by their default (a stand-in for the
 * real substitution step, which lives elsewhere) and parses every YAML document with js-yaml.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import type { KubeObject } from '../../src/manifest/object.js';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** Real v1.12.0 artifacts the customisation and image tests run on. */
export const CORE_COMPONENTS = 'repository/cluster-api/v1.12.0/core-components.yaml.gz';
export const DOCKER_COMPONENTS = 'repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz';
export const CERT_MANAGER = 'repository/cert-manager/v1.19.4/cert-manager.yaml.gz';

/** Replaces each `${NAME<op>default}` (op `:=`, `:-` or `=`) by `default`; other text is kept. */
export function substituteDefaults(text: string): string {
  return text.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*(?::=|:-|=)([^}]*)\}/g, (_match, fallback: string) => fallback);
}

/** The objects of a fixture file (path relative to test/fixtures), defaults substituted. */
export function loadFixtureObjects(path: string): KubeObject[] {
  const bytes = readFileSync(new URL(path, FIXTURES));
  const text = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return jsYaml.loadAll(substituteDefaults(text)).filter((doc): doc is KubeObject => typeof doc === 'object' && doc !== null);
}

/** The one object of `kind` named `name`; throws when absent, so a fixture change fails loudly. */
export function findObject(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && (o.metadata as { name?: string } | undefined)?.name === name);
  if (found === undefined) throw new Error(`fixture has no ${kind} ${name}`);
  return found;
}
