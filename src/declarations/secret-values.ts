/**
 * A Secret among the inputs, read as the API server would store it: its values by key. Both the
 * variables a configSecret supplies and the registry credentials of a pull secret come from here.
 */
import { SpecError, error } from '../errors.js';
import { isJsonObject, type JsonObject } from '../manifest/object.js';
import type { InputObject } from './inputs.js';

/** A Secret input's values: `data` decoded from base64, then `stringData` (which wins, as in the API server). */
export function secretValues(input: InputObject): Record<string, string> {
  const out: Record<string, string> = {};
  const data = input.object.data;
  if (data !== undefined) {
    if (!isJsonObject(data)) throw badSecret(input, ['data'], 'data must be a map of base64 strings');
    for (const [k, v] of Object.entries(data as JsonObject)) {
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.replace(/\s+/g, ''))) throw badSecret(input, ['data', k], `data.${k} is not base64`);
      out[k] = Buffer.from(v, 'base64').toString('utf8');
    }
  }
  const stringData = input.object.stringData;
  if (stringData !== undefined) {
    if (!isJsonObject(stringData)) throw badSecret(input, ['stringData'], 'stringData must be a map of strings');
    // Like the API server, stringData wins over data for the same key.
    for (const [k, v] of Object.entries(stringData as JsonObject)) {
      if (typeof v !== 'string') throw badSecret(input, ['stringData', k], `stringData.${k} is not a string`);
      out[k] = v;
    }
  }
  return out;
}

function badSecret(input: InputObject, path: string[], message: string): SpecError {
  return new SpecError(error('config-secret', `Secret in ${input.file}: ${message}`, { file: input.file, ...input.locate(path), field: path.join('.') }));
}
