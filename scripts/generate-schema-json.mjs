#!/usr/bin/env node
// Regenerates schemas/*.v1alpha2.json from the operator's CRD files: each CRD's v1alpha2
// openAPIV3Schema without descriptions, as compact JSON, so validation needs no 230 KB YAML parse.
// `npm test` fails when these files are out of date (test/unit/schema-json.test.ts).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';

const dir = fileURLToPath(new URL('../schemas/', import.meta.url));
for (const file of readdirSync(dir).filter((f) => /^operator\.cluster\.x-k8s\.io_.*\.yaml$/.test(f))) {
  const crd = jsYaml.load(readFileSync(dir + file, 'utf8'), { schema: jsYaml.CORE_SCHEMA });
  const version = crd.spec.versions.find((v) => v.name === 'v1alpha2');
  writeFileSync(
    dir + file.replace(/\.yaml$/, '.v1alpha2.json'),
    `${JSON.stringify(stripDescriptions(version.schema.openAPIV3Schema))}\n`,
  );
}

function stripDescriptions(value) {
  if (Array.isArray(value)) return value.map(stripDescriptions);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) => !(k === 'description' && typeof v === 'string'))
        .map(([k, v]) => [k, stripDescriptions(v)]),
    );
  }
  return value;
}
