/**
 * Fields the API server reads as string maps: every object's `metadata.labels` and
 * `metadata.annotations`, a ConfigMap's `data` and `binaryData`, a Secret's `data` and `stringData`.
 * A value that parses as a YAML boolean or number there (a `${VAR}` substituted unquoted, e.g.
 * CAPM3's `CAPM3_FAST_TRACK: ${CAPM3_FAST_TRACK:='false'}` with the value `true`) is an object
 * clusterctl would send and the API server refuse ("cannot unmarshal bool into Go struct field
 * ConfigMap.data of type string"); in GitOps output it would fail every sync. Reported at render
 * time instead, all at once. A null value decodes to "" and passes. The value itself is never
 * printed: it may come from a secret. Pure.
 */
import { error, type Diagnostic } from '../errors.js';
import { isJsonObject, nameOf, namespaceOf, type KubeObject } from '../manifest/object.js';

export interface StringMapCheckContext {
  providerRef: string;
  file: string;
  line: number;
}

const MAPS: Record<string, readonly string[]> = { ConfigMap: ['data', 'binaryData'], Secret: ['data', 'stringData'] };

/** One diagnostic (code `components-invalid`) per value that is not a string; empty when all are. */
export function checkStringMaps(objects: readonly KubeObject[], ctx: StringMapCheckContext): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const object of objects) {
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    const fields: [string, unknown][] = [
      ['metadata.labels', metadata.labels],
      ['metadata.annotations', metadata.annotations],
      ...(object.apiVersion === 'v1' ? (MAPS[object.kind] ?? []).map((f): [string, unknown] => [f, object[f]]) : []),
    ];
    const id = [object.kind, namespaceOf(object), nameOf(object)].filter((s) => s !== '').join('/');
    for (const [field, map] of fields) {
      if (!isJsonObject(map)) continue;
      for (const [key, value] of Object.entries(map)) {
        if (value === null || typeof value === 'string') continue;
        problems.push(
          error(
            'components-invalid',
            `${ctx.providerRef}: ${id} ${field}.${key} is ${describe(value)}, not a string: the API server refuses the object`,
            {
              file: ctx.file,
              line: ctx.line,
              col: 1,
              object: id,
              field: `${field}.${key}`,
              hint: "a ${VAR} substituted there unquoted is read as YAML: give the variable a value that carries its own quotes (e.g. \"'true'\", as a default written ${VAR:='false'} does), or fix the value with a spec.patches entry",
            },
          ),
        );
      }
    }
  }
  return problems;
}

function describe(value: unknown): string {
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number') return 'a number';
  return Array.isArray(value) ? 'a list' : 'a map';
}
