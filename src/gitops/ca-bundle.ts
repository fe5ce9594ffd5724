/**
 * Removes placeholder `caBundle` values (`Cg==` — a base64 newline — or empty) from the places
 * cert-manager's cainjector fills: CRD conversion webhooks, admission webhook configurations and
 * APIServices. Shipping a placeholder makes the renderer own the field, so Argo CD shows the object
 * OutOfSync forever and Flux resets the injected CA on every reconcile. A real bundle (anything that decodes to more than whitespace) is kept untouched.
 */
import { warning, type Diagnostic } from '../errors.js';
import { describeObject, getIn, setIn, type JsonValue, type KubeObject } from '../manifest/object.js';
import { formatFieldPath } from '../declarations/schema/schema-issue.js';
import { isCaInjected } from './annotations.js';

const WEBHOOK_CONFIGURATION_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/** True for values a cainjector-managed field must never carry: null, empty, or base64 of whitespace. */
export function isPlaceholderCaBundle(value: JsonValue | undefined): boolean {
  if (value === null) return true;
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (trimmed === '') return true;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) return false;
  return Buffer.from(trimmed, 'base64').toString('latin1').trim() === '';
}

/** The `caBundle` paths of an object that cainjector can fill, existing ones only. */
function caBundlePaths(obj: KubeObject): (string | number)[][] {
  const paths: (string | number)[][] = [];
  if (obj.kind === 'CustomResourceDefinition') {
    paths.push(['spec', 'conversion', 'webhook', 'clientConfig', 'caBundle']);
    // apiextensions v1beta1 spelling; harmless on v1 objects, where the path does not exist.
    paths.push(['spec', 'conversion', 'webhookClientConfig', 'caBundle']);
  } else if (WEBHOOK_CONFIGURATION_KINDS.has(obj.kind)) {
    const webhooks = getIn(obj, ['webhooks']);
    if (Array.isArray(webhooks)) webhooks.forEach((_w, i) => paths.push(['webhooks', i, 'clientConfig', 'caBundle']));
  } else if (obj.kind === 'APIService') {
    paths.push(['spec', 'caBundle']);
  }
  return paths.filter((p) => {
    const parent = getIn(obj, p.slice(0, -1));
    return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && p[p.length - 1]! in parent;
  });
}

/**
 * Returns the object without placeholder caBundles (the same object when there is none) and a
 * warning when a placeholder sat on an object no cainjector fills — its TLS cannot be verified.
 */
export function stripPlaceholderCaBundles(obj: KubeObject): { object: KubeObject; warnings: Diagnostic[] } {
  let out = obj;
  const stripped: string[] = [];
  for (const path of caBundlePaths(obj)) {
    if (!isPlaceholderCaBundle(getIn(obj, path))) continue;
    out = setIn(out, path, undefined);
    stripped.push(formatFieldPath(path));
  }
  const warnings: Diagnostic[] = [];
  if (stripped.length > 0 && !isCaInjected(obj)) {
    warnings.push(
      warning(
        'gitops',
        `${describeObject(obj)} shipped a placeholder caBundle but no cert-manager.io/inject-ca-from annotation; it was removed, and nothing will fill it in-cluster`,
        {
          object: describeObject(obj),
          field: stripped[0],
          hint: 'add cert-manager.io/inject-ca-from (a manifest patch) or set the real CA bundle with a patch',
        },
      ),
    );
  }
  return { object: out, warnings };
}
