/**
 * The secret guard: values from secret sources (a provider's configSecret, a variable mapped
 * `fromEnv`) must not reach git in plain text. After a provider is rendered, every string of every
 * object is searched for each sensitive value; inside a Secret's data the configured mode decides
 * (`fail`, `omit`, `external-secrets`, `sops`, `plaintext`), anywhere else only `plaintext` lets it
 * through. No value is ever put in a message, the lock or any output other than a plaintext Secret.
 *
 * Design notes: docs/internals.md "secrets/secret-guard.ts".
 */
import { SpecError, error, warning, type Diagnostic } from '../errors.js';
import type { SecretMode, SecretsConfig } from './secrets-config.js';
import {
  describeObject,
  isJsonObject,
  nameOf,
  namespaceOf,
  type JsonValue,
  type KubeObject,
} from '../manifest/object.js';
import { DEFAULT_DECRYPTION_SECRET, markForSops, withoutValues } from './sops/pending.js';
import { holdsUnsetMarker } from './unset-marker.js';

export interface SensitiveValue {
  variable: string;
  value: string;
  /** Where the value came from, for messages (never the value). */
  from: string;
}

/** A Secret left out of the output, to be created out-of-band (secrets.required.yaml). */
export interface RequiredSecret {
  component: string;
  namespace: string;
  name: string;
  type: string;
  keys: { key: string; variables: string[] }[];
}

export interface GuardResult {
  objects: KubeObject[];
  required: RequiredSecret[];
  diagnostics: Diagnostic[];
}

/** Which of the used variables hold sensitive values. */
export function sensitiveValues(
  used: readonly { variable: string; value: string; secret: boolean; from: string }[],
  config: SecretsConfig,
): SensitiveValue[] {
  const allowed = new Set(config.notSecret ?? []);
  return used
    .filter((u) => u.secret && !allowed.has(u.variable) && isSensitiveText(u.value))
    .map(({ variable, value, from }) => ({ variable, value, from }));
}

function isSensitiveText(value: string): boolean {
  const v = value.trim();
  return v.length >= 4 && !/^(true|false|yes|no|on|off)$/i.test(v) && !/^[-+]?\d+(\.\d+)?$/.test(v);
}

export function modeFor(component: string, config: SecretsConfig): SecretMode {
  return config.providers?.[component] ?? config.mode ?? 'fail';
}

/** Applies the guard to one component's objects. */
export function guardSecrets(
  component: string,
  objects: readonly KubeObject[],
  values: readonly SensitiveValue[],
  config: SecretsConfig,
): GuardResult {
  if (values.length === 0) return { objects: [...objects], required: [], diagnostics: [] };
  const mode = modeFor(component, config);
  const out: KubeObject[] = [];
  const required: RequiredSecret[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const obj of objects) {
    const hits = findValues(obj, values);
    if (hits.length === 0) {
      out.push(obj);
      continue;
    }
    const inSecretData =
      obj.kind === 'Secret' &&
      obj.apiVersion === 'v1' &&
      hits.every((h) => h.path[0] === 'data' || h.path[0] === 'stringData');
    const where = (h: Hit) => `${describeObject(obj)} ${fieldPath(h.path)}`;
    if (mode === 'plaintext') {
      out.push(obj);
      diagnostics.push(
        warning(
          'secret-guard',
          `secrets.mode plaintext: ${hits.map((h) => `${h.variable} (${h.from})`).join(', ')} written in plain text into ${[...new Set(hits.map(where))].join(', ')}`,
          { object: describeObject(obj) },
        ),
      );
      continue;
    }
    if (!inSecretData || mode === 'fail') {
      for (const h of hits) {
        diagnostics.push(
          error('secret-guard', `the value of ${h.variable} (${h.from}) would be written to git in ${where(h)}`, {
            object: describeObject(obj),
            field: fieldPath(h.path),
            hint: inSecretData
              ? `choose secrets.mode (or secrets.providers.${component}): omit, external-secrets, sops or plaintext; or list ${h.variable} in secrets.notSecret if it is not sensitive`
              : `only a Secret's data can be left out; list ${h.variable} in secrets.notSecret if it is not sensitive, or opt in with secrets.mode: plaintext`,
          }),
        );
      }
      continue;
    }
    if (mode === 'sops') {
      // Encrypted when the environment's files are planned (sops/seal-environment.ts). A reference
      // with no value leaves only the committed ciphertext to write: its stand-ins are dropped here.
      const decryptionSecret = config.sops?.decryptionSecret ?? DEFAULT_DECRYPTION_SECRET;
      out.push(
        holdsUnsetMarker(JSON.stringify(obj))
          ? markForSops(withoutValues(obj, holdsUnsetMarker), decryptionSecret, { valuesUnavailable: true })
          : markForSops(obj, decryptionSecret),
      );
      continue;
    }
    const secret = describeRequired(component, obj, hits);
    if (mode === 'omit') {
      required.push(secret);
      diagnostics.push(
        warning(
          'secret-guard',
          `left out ${describeObject(obj)}: it holds ${[...new Set(hits.map((h) => h.variable))].join(', ')}; create it out-of-band (see secrets.required.yaml)`,
          { object: describeObject(obj) },
        ),
      );
    } else {
      out.push(externalSecret(obj, secret, config));
    }
  }
  if (diagnostics.some((d) => d.severity === 'error'))
    throw new SpecError(diagnostics.filter((d) => d.severity === 'error'));
  return { objects: out, required, diagnostics };
}

/** An unset value that lands where the guard would keep it: the value is needed there. */
export interface NeededValue {
  variable: string;
  /** `Kind/namespace/name field.path`, never the marker. */
  where: string;
  /** The object is a Secret and every landing is in its data: another mode would not need the value. */
  inSecretData: boolean;
}

/**
 * Where the markers of unset values (`markers`: each variable's unset marker as its value) land
 * outside a Secret's data/stringData that this component's mode leaves out (`omit`) or replaces
 * (`external-secrets`), one entry per variable (its first landing, in object order).
 */
export function unsetValuesOutside(
  component: string,
  objects: readonly KubeObject[],
  markers: readonly SensitiveValue[],
  config: SecretsConfig,
): NeededValue[] {
  if (markers.length === 0) return [];
  const mode = modeFor(component, config);
  const needed = new Map<string, NeededValue>();
  for (const obj of objects) {
    const hits = findValues(obj, markers);
    // A stand-in where no value is searched (a map key) is needed there too.
    const text = JSON.stringify(obj);
    for (const m of markers) {
      if (text.includes(m.value) && !hits.some((h) => h.variable === m.variable) && !needed.has(m.variable))
        needed.set(m.variable, { variable: m.variable, where: describeObject(obj), inSecretData: false });
    }
    if (hits.length === 0) continue;
    const inSecretData =
      obj.kind === 'Secret' &&
      obj.apiVersion === 'v1' &&
      hits.every((h) => h.path[0] === 'data' || h.path[0] === 'stringData');
    if (inSecretData && (mode === 'omit' || mode === 'external-secrets' || mode === 'sops')) continue;
    for (const h of hits)
      if (!needed.has(h.variable))
        needed.set(h.variable, {
          variable: h.variable,
          where: `${describeObject(obj)} ${fieldPath(h.path)}`,
          inSecretData,
        });
  }
  return [...needed.values()];
}

function fieldPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

interface Hit {
  variable: string;
  from: string;
  path: (string | number)[];
}

function findValues(obj: KubeObject, values: readonly SensitiveValue[]): Hit[] {
  const hits: Hit[] = [];
  const visit = (v: JsonValue, path: (string | number)[], base64: boolean) => {
    if (typeof v === 'string') {
      const decoded = base64 ? tryBase64(v) : undefined;
      for (const s of values)
        if (v.includes(s.value) || (decoded !== undefined && decoded.includes(s.value)))
          hits.push({ variable: s.variable, from: s.from, path });
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i], base64));
    else if (isJsonObject(v))
      for (const [k, x] of Object.entries(v))
        visit(x, [...path, k], base64 || (obj.kind === 'Secret' && path.length === 0 && k === 'data'));
  };
  visit(obj, [], false);
  return hits;
}

function tryBase64(v: string): string | undefined {
  return /^[A-Za-z0-9+/\s]*={0,2}$/.test(v) ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

function describeRequired(component: string, obj: KubeObject, hits: Hit[]): RequiredSecret {
  const keys = new Map<string, Set<string>>();
  for (const field of ['data', 'stringData'] as const) {
    const map = obj[field];
    if (isJsonObject(map)) for (const k of Object.keys(map)) keys.set(k, keys.get(k) ?? new Set());
  }
  for (const h of hits) keys.get(String(h.path[1]))?.add(h.variable);
  return {
    component,
    namespace: namespaceOf(obj),
    name: nameOf(obj),
    type: typeof obj.type === 'string' ? obj.type : 'Opaque',
    keys: [...keys.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, vars]) => ({ key, variables: [...vars].sort() })),
  };
}

/** An external-secrets.io ExternalSecret that makes the store produce the same Secret. */
function externalSecret(obj: KubeObject, secret: RequiredSecret, config: SecretsConfig): KubeObject {
  const store = config.externalSecrets;
  if (!store) {
    throw new SpecError(
      error(
        'secret-guard',
        `secrets mode external-secrets needs secrets.externalSecrets.storeRef in capi-render.yaml`,
        { file: 'capi-render.yaml', field: 'secrets.externalSecrets' },
      ),
    );
  }
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const remoteKey = `${store.keyPrefix ?? ''}${secret.namespace}/${secret.name}`;
  return {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: {
      name: secret.name,
      namespace: secret.namespace,
      ...(isJsonObject(meta.labels) ? { labels: meta.labels } : {}),
    },
    spec: {
      refreshInterval: store.refreshInterval ?? '1h',
      secretStoreRef: { name: store.storeRef.name, kind: store.storeRef.kind ?? 'ClusterSecretStore' },
      target: {
        name: secret.name,
        creationPolicy: 'Owner',
        template: { type: secret.type, ...(isJsonObject(meta.labels) ? { metadata: { labels: meta.labels } } : {}) },
      },
      data: secret.keys.map((k) => ({ secretKey: k.key, remoteRef: { key: remoteKey, property: k.key } })),
    },
  };
}
