/**
 * The string and number formats capi-render checks, registered on an ajv instance: the ones the
 * operator's CRDs use (`int32`, `int64`, `date-time`) and the two name rules the API server applies
 * to metadata (`dns1123-subdomain`, `dns1123-label`). Every other format is dropped when the
 * schema is converted, as Kubernetes ignores formats it does not know.
 */
import type { Ajv, FormatDefinition } from 'ajv';

/** A DNS-1123 subdomain: what the API server requires of a custom resource's name. */
export const DNS1123_SUBDOMAIN_FORMAT = 'dns1123-subdomain';
/** A DNS-1123 label: what the API server requires of a namespace name. */
export const DNS1123_LABEL_FORMAT = 'dns1123-label';

/** The CRD formats kept when a schema is converted; the others are dropped. */
export const CRD_FORMATS: readonly string[] = ['int32', 'int64', 'date-time'];

/** Format name → what it means, for "must be a …" messages. */
export const FORMAT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  int32: '32-bit integer',
  int64: '64-bit integer',
  'date-time': 'RFC 3339 date-time',
  [DNS1123_SUBDOMAIN_FORMAT]:
    'lowercase RFC 1123 subdomain (at most 253 characters of a-z, 0-9, "-" and ".", starting and ending with a letter or digit)',
  [DNS1123_LABEL_FORMAT]:
    'lowercase RFC 1123 label (at most 63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit)',
};

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);
const SINGLE_LABEL = new RegExp(`^${LABEL}$`);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Every format of {@link FORMAT_DESCRIPTIONS}, as ajv format definitions. */
export const KUBERNETES_FORMATS: Readonly<Record<string, FormatDefinition<string> | FormatDefinition<number>>> = {
  // Only the range: `type: integer` already reports a fraction, and one problem gets one issue.
  int32: { type: 'number', validate: (n: number) => n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: 'number', validate: (n: number) => n >= -(2 ** 63) && n < 2 ** 63 },
  'date-time': { type: 'string', validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)) },
  [DNS1123_SUBDOMAIN_FORMAT]: { type: 'string', validate: (s: string) => s.length <= 253 && SUBDOMAIN.test(s) },
  [DNS1123_LABEL_FORMAT]: { type: 'string', validate: (s: string) => s.length <= 63 && SINGLE_LABEL.test(s) },
};

/** Registers every format of {@link KUBERNETES_FORMATS} on `ajv`. */
export function addKubernetesFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(KUBERNETES_FORMATS)) ajv.addFormat(name, format);
}
