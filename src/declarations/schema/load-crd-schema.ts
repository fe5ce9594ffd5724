/**
 * Reads the openAPIV3Schema of one version of a CRD file. The schemas/ files are part of the
 * package, so anything wrong with them is an InternalError (a broken install or a bad update),
 * never the user's fault.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { InternalError } from '../../errors.js';
import { isJsonObject, type JsonObject } from '../../manifest/object.js';

/**
 * Loads `file` under `schemaDir` with js-yaml's core schema (the fast loader; CRDs are ~230 KB)
 * and returns `spec.versions[name=version].schema.openAPIV3Schema`.
 */
export function loadCrdSchema(schemaDir: string, file: string, version: string): JsonObject {
  // The package ships each CRD's schema as JSON too (scripts/generate-schema-json.mjs; a test keeps
  // it in step with the CRD): reading it is ~50 times faster than parsing the CRD's YAML.
  const json = crdSchemaJsonFile(schemaDir, file, version);
  if (existsSync(json)) {
    try {
      return JSON.parse(readFileSync(json, 'utf8')) as JsonObject;
    } catch (cause) {
      throw new InternalError(`cannot read the schema ${json}`, { cause });
    }
  }
  const path = join(schemaDir, file);
  let crd: unknown;
  try {
    crd = jsYaml.load(readFileSync(path, 'utf8'), { schema: jsYaml.CORE_SCHEMA, filename: path });
  } catch (cause) {
    throw new InternalError(`cannot read the CRD schema ${path}`, { cause });
  }
  const versions =
    isJsonObject(crd) && isJsonObject(crd.spec) && Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
  const entry = versions.find((v) => isJsonObject(v) && v.name === version);
  const schema = isJsonObject(entry) && isJsonObject(entry.schema) ? entry.schema.openAPIV3Schema : undefined;
  if (!isJsonObject(schema)) throw new InternalError(`${path} has no openAPIV3Schema for version ${version}`);
  return schema;
}

/** The JSON file of one version's schema beside the CRD `file`, which loadCrdSchema prefers when it exists. */
export function crdSchemaJsonFile(schemaDir: string, file: string, version: string): string {
  return join(schemaDir, file.replace(/\.yaml$/, `.${version}.json`));
}
