/**
 * Protects objects that still contain `${` after variable substitution (a literal a provider ships
 * on purpose, e.g. in a script, or one written as `$${…}` in the artifact). Flux's postBuild
 * substitution would replace it — and since kustomize-controller v1.9.0 strict substitution fails
 * the whole reconcile on an unset variable. The object gets
 * `kustomize.toolkit.fluxcd.io/substitute: disabled` (ignored by every other consumer) and the
 * stage reports it, since Argo CD applies the literal as it is.
 */
import { warning, type Diagnostic } from '../errors.js';
import { describeObject, type JsonValue, type KubeObject } from '../manifest/object.js';
import { formatFieldPath } from '../declarations/schema/schema-issue.js';
import { DISABLED, FLUX_SUBSTITUTE, withAnnotation } from './annotations.js';

const MARKER = '${';

/** The path of the first string (or map key) containing `${`, or undefined. Depth-first, in key order. */
export function findSubstitutionLiteral(value: JsonValue): (string | number)[] | undefined {
  // Almost no object holds the marker: a walk that keeps no path answers whether one does 20–30%
  // faster (profiles of the bench's one-environment build), and only then is the path looked for.
  // JSON.stringify(value).includes('${') answers the same natively, but measured ~50% slower than
  // the path walk: the JSON text of a CRD is a large string made only to be searched.
  if (!containsMarker(value)) return undefined;
  // One path stack for the whole walk (copied only on a find): rendered CRDs have tens of
  // thousands of nodes, and a path array per node was most of this stage's time.
  const path: (string | number)[] = [];
  containsMarker(value, path);
  return path;
}

/** Whether some string or map key of `value` contains `${`; with `path`, left holding the first one's. */
function containsMarker(value: JsonValue, path?: (string | number)[]): boolean {
  if (typeof value === 'string') return value.includes(MARKER);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path?.push(i);
      if (containsMarker(value[i]!, path)) return true;
      path?.pop();
    }
    return false;
  }
  for (const key in value) {
    path?.push(key);
    if (key.includes(MARKER) || containsMarker(value[key]!, path)) return true;
    path?.pop();
  }
  return false;
}

/** Annotates an object holding a `${` literal and returns a warning naming it; others are returned as they are. */
export function guardSubstitutionLiterals(obj: KubeObject): { object: KubeObject; warnings: Diagnostic[] } {
  const at = findSubstitutionLiteral(obj);
  if (at === undefined) return { object: obj, warnings: [] };
  const field = formatFieldPath(at);
  return {
    object: withAnnotation(obj, FLUX_SUBSTITUTE, DISABLED),
    warnings: [
      warning('gitops', `${describeObject(obj)} contains a literal "\${" after variable substitution (at ${field})`, {
        object: describeObject(obj),
        field,
        hint: `it was annotated ${FLUX_SUBSTITUTE}: ${DISABLED} so Flux leaves it alone; Argo CD and kubectl apply it literally — make sure that is intended`,
      }),
    ],
  };
}
