/**
 * How big `metadata.annotations` gets when the object is applied client-side (kubectl apply, and
 * Argo CD without ServerSideApply): kubectl stores the whole object, minus that annotation itself,
 * as JSON in `kubectl.kubernetes.io/last-applied-configuration` (kubectl's apply util
 * GetModifiedConfiguration encodes with apimachinery's unstructured JSON scheme, i.e. Go's
 * json.Encoder: compact, HTML-escaping, one trailing newline). The API server rejects an object whose
 * annotation keys plus values exceed 262144 bytes.
 */
import { annotationsOf, setIn, type KubeObject } from '../manifest/object.js';

/** The API server's limit on all annotation keys plus values of one object, in bytes. */
export const ANNOTATIONS_SIZE_LIMIT = 262144;

/**
 * Head-room kept below the limit before ServerSideApply is forced on a non-CRD object. It covers
 * what is added after rendering: Argo CD's `argocd.argoproj.io/tracking-id` annotation (stored
 * twice — in the JSON and as itself), the Application's label, users' kustomize overlays
 * (commonAnnotations, patches), and the next release growing the object. 64 KiB puts the line at
 * 192 KiB, a quarter of the limit kept free.
 */
export const SSA_SIZE_MARGIN = 65536;

/** Objects at or above this many bytes get `ServerSideApply=true` under the Argo CD flavour. */
export const SSA_SIZE_THRESHOLD = ANNOTATIONS_SIZE_LIMIT - SSA_SIZE_MARGIN;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Compact JSON size of an object as the last-applied annotation would hold it, plus the key of
 * that annotation and every other annotation's key and value — the number the API server compares
 * with {@link ANNOTATIONS_SIZE_LIMIT}. UTF-8 bytes. Go's HTML escaping of `<`, `>`, `&` (6 bytes
 * each) and of U+2028/U+2029 is counted, since CRD descriptions are full of `<` and `>`.
 */
export function lastAppliedSize(obj: KubeObject): number {
  const annotations = annotationsOf(obj);
  const stored = LAST_APPLIED in annotations ? setIn(obj, ['metadata', 'annotations', LAST_APPLIED], undefined) : obj;
  let total = byteLength(LAST_APPLIED) + goJsonSize(stored) + 1; // json.Encoder ends with "\n"
  for (const [key, value] of Object.entries(annotations)) {
    if (key !== LAST_APPLIED) total += byteLength(key) + byteLength(typeof value === 'string' ? value : String(value));
  }
  return total;
}

/** Byte length of Go's encoding/json output for a value JSON.stringify can encode. */
function goJsonSize(value: KubeObject): number {
  const text = JSON.stringify(value);
  let extra = 0;
  for (const match of text.matchAll(/[<>&\u2028\u2029]/g)) {
    // `<` (1 byte) becomes `\u003c` (6); U+2028 (3 bytes in UTF-8) becomes `\u2028` (6).
    extra += match[0] === '\u2028' || match[0] === '\u2029' ? 3 : 5;
  }
  return byteLength(text) + extra;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
