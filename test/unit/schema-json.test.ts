/** The shipped schemas/*.v1alpha2.json are exactly the CRDs' schemas without descriptions. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';

const dir = path.join(REPO_ROOT, 'schemas');
const strip = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(strip)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([k, x]) => !(k === 'description' && typeof x === 'string'))
            .map(([k, x]) => [k, strip(x)]),
        )
      : v;

describe('schemas/*.v1alpha2.json', () => {
  it.each(readdirSync(dir).filter((f) => f.startsWith('operator.') && f.endsWith('.yaml')))(
    '%s is in step with its CRD (run scripts/generate-schema-json.mjs)',
    (file) => {
      const crd = jsYaml.load(readFileSync(path.join(dir, file), 'utf8'), { schema: jsYaml.CORE_SCHEMA }) as {
        spec: { versions: { name: string; schema: { openAPIV3Schema: unknown } }[] };
      };
      const expected = strip(crd.spec.versions.find((v) => v.name === 'v1alpha2')!.schema.openAPIV3Schema);
      expect(JSON.parse(readFileSync(path.join(dir, file.replace(/\.yaml$/, '.v1alpha2.json')), 'utf8'))).toEqual(
        expected,
      );
    },
  );
});
