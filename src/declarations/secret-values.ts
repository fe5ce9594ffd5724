/**
 * A Secret among the inputs, read as the API server would store it: its values by key. Both the
 * variables a configSecret supplies and the registry credentials of a pull secret come from here.
 *
 * capi-render also accepts, in `stringData` only, a value given by reference — `{fromEnv: NAME}` or
 * `{fromFile: PATH}` — so a credential need not be written into the repository. The operator reads
 * plain strings only: a Secret with references is capi-render input, never applied to a cluster
 * (inputs are never rendered). The references are read at the loading edge
 * (secrets/secret-references.ts); here they are only recognised and looked up.
 */
import { SpecError, error } from '../errors.js';
import { isJsonObject, type JsonValue } from '../manifest/object.js';
import type { InputObject } from './inputs.js';

/** A `stringData` value given by reference. */
export type SecretReference = { fromEnv: string } | { fromFile: string };

/** One key of a Secret input: its value, or (`value` undefined) a reference that has none. */
export interface SecretEntry {
  value: string | undefined;
  /** Set when the value is given by reference. */
  reference?: SecretReference;
}

const ACCEPTED_FORMS =
  'write a string, {fromEnv: NAME} (an environment variable) or {fromFile: PATH} (a file outside the repository or ignored by git); see docs/inputs-and-overlays.md "Variables"';

/** The reference a stringData value spells, or undefined when it is not a reference. */
export function secretReferenceOf(value: JsonValue | undefined): SecretReference | undefined {
  if (!isJsonObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const [key] = keys;
  const target = value[key!];
  if (typeof target !== 'string' || target === '') return undefined;
  return key === 'fromEnv' ? { fromEnv: target } : key === 'fromFile' ? { fromFile: target } : undefined;
}

/** How a reference reads in messages: `environment variable NAME`, `file PATH`. */
export function describeReference(reference: SecretReference): string {
  return 'fromEnv' in reference ? `environment variable ${reference.fromEnv}` : `file ${reference.fromFile}`;
}

/** Every reference of a Secret input's stringData, by key (checked as {@link secretEntries} checks them). */
export function secretReferences(input: InputObject): [key: string, reference: SecretReference][] {
  const stringData = input.object.stringData;
  if (!isJsonObject(stringData)) return [];
  const out: [string, SecretReference][] = [];
  for (const [k, v] of Object.entries(stringData)) {
    const reference = secretReferenceOf(v);
    if (reference) out.push([k, reference]);
  }
  return out;
}

/** Whether any of these Secret inputs gives a value by reference. */
export function hasSecretReferences(inputs: readonly InputObject[]): boolean {
  return inputs.some((i) => secretReferences(i).length > 0);
}

/**
 * A Secret input's keys: `data` decoded from base64, then `stringData` (which wins, as in the API
 * server), where a reference takes the value the loading edge read for it.
 */
export function secretEntries(input: InputObject): Record<string, SecretEntry> {
  const out: Record<string, SecretEntry> = {};
  const data = input.object.data;
  if (data !== undefined) {
    if (!isJsonObject(data)) throw badSecret(input, ['data'], 'data must be a map of base64 strings');
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.replace(/\s+/g, ''))) {
        throw badSecret(
          input,
          ['data', k],
          `data.${k} is not base64`,
          secretReferenceOf(v) ? 'a value by reference goes under stringData, not data' : undefined,
        );
      }
      out[k] = { value: Buffer.from(v, 'base64').toString('utf8') };
    }
  }
  const stringData = input.object.stringData;
  if (stringData !== undefined) {
    if (!isJsonObject(stringData))
      throw badSecret(input, ['stringData'], 'stringData must be a map of strings', ACCEPTED_FORMS);
    // Like the API server, stringData wins over data for the same key.
    for (const [k, v] of Object.entries(stringData)) {
      if (typeof v === 'string') {
        out[k] = { value: v };
        continue;
      }
      const reference = secretReferenceOf(v);
      if (!reference) throw badSecret(input, ['stringData', k], `stringData.${k} is not a string`, ACCEPTED_FORMS);
      // Not read yet (a caller outside a build): the reference has no value here.
      out[k] = { value: input.references?.get(k), reference };
    }
  }
  return out;
}

/** A Secret input's values by key ({@link secretEntries} without the references that have no value). */
export function secretValues(input: InputObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, e] of Object.entries(secretEntries(input))) if (e.value !== undefined) out[k] = e.value;
  return out;
}

function badSecret(input: InputObject, path: string[], message: string, hint?: string): SpecError {
  return new SpecError(
    error('config-secret', `Secret in ${input.file}: ${message}`, {
      file: input.file,
      ...input.locate(path),
      field: path.join('.'),
      ...(hint ? { hint } : {}),
    }),
  );
}
