/**
 * A Secret the guard hands on for SOPS encryption (`secrets.mode: sops`): the rendered Secret, still
 * in plain text, with a `sops:` placeholder naming the Flux decryption Secret. The GitOps stage sees
 * it (a Flux Kustomization whose folder holds one gets `spec.decryption`), and the seal step
 * (seal-environment.ts) replaces it, file and object, with the encrypted document before anything
 * is written or compared. Should the placeholder ever reach a cluster, it is no SOPS metadata: Flux
 * refuses to apply it rather than apply plain text.
 */
import { isJsonObject, type KubeObject } from '../../manifest/object.js';
import type { RenderedEnvironment } from '../../plan/output-plan.js';

const PENDING = 'capi-render/pending';

/** The default name of the Secret holding the age identity Flux decrypts with. */
export const DEFAULT_DECRYPTION_SECRET = 'sops-age';

/**
 * `secret` marked for encryption; `decryptionSecret` is what the Flux Kustomization will name.
 * `valuesUnavailable`: its values could not be rendered (secret references left unset on purpose):
 * the committed ciphertext is kept once it proves itself, and nothing else can stand in for it.
 */
export function markForSops(
  secret: KubeObject,
  decryptionSecret: string,
  options: { valuesUnavailable?: boolean } = {},
): KubeObject {
  return {
    ...secret,
    sops: { [PENDING]: true, decryptionSecret, ...(options.valuesUnavailable ? { valuesUnavailable: true } : {}) },
  };
}

/** Whether a marked Secret's values are unavailable (see {@link markForSops}). */
export function valuesUnavailable(obj: KubeObject): boolean {
  return isMarkedForSops(obj) && (obj.sops as Record<string, unknown>).valuesUnavailable === true;
}

/** Whether `obj` is a Secret marked for encryption. */
export function isMarkedForSops(obj: KubeObject): boolean {
  return obj.kind === 'Secret' && isJsonObject(obj.sops) && obj.sops[PENDING] === true;
}

/** Whether any object of `environment` is marked for SOPS. */
export function hasSopsSecrets(environment: RenderedEnvironment): boolean {
  return environment.components.some((c) => c.objects.some(isMarkedForSops));
}

/** The decryption Secret a marked Secret names, or undefined for any other object. */
export function sopsDecryptionSecret(obj: KubeObject): string | undefined {
  if (!isMarkedForSops(obj)) return undefined;
  const name = (obj.sops as Record<string, unknown>).decryptionSecret;
  return typeof name === 'string' ? name : DEFAULT_DECRYPTION_SECRET;
}

/** The marked Secret without its placeholder: what is encrypted. */
export function withoutMark(obj: KubeObject): KubeObject {
  const { sops: _mark, ...rest } = obj;
  return rest;
}

/**
 * `secret` without the values `unavailable` says are not set (entries of data and stringData):
 * what stands for a Secret whose values are not all available. The values kept are compared with
 * the committed file when it can be decrypted.
 */
export function withoutValues(secret: KubeObject, unavailable: (value: string) => boolean): KubeObject {
  const out: KubeObject = { ...secret };
  for (const field of ['data', 'stringData'] as const) {
    const map = secret[field];
    if (!isJsonObject(map)) continue;
    out[field] = Object.fromEntries(Object.entries(map).filter(([, v]) => !(typeof v === 'string' && unavailable(v))));
  }
  return out;
}
