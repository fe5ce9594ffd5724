/**
 * clusterctl's `validateProvider` (cluster-api v1.14.0 `cmd/clusterctl/client/config/providers_client.go`)
 * as small rules that each push a Diagnostic, so every problem of every entry is reported at once
 * (clusterctl stops at the first). Pure.
 */
import { error, type Diagnostic, type Location } from '../../errors.js';
import { PROVIDER_KINDS } from '../../declarations/provider-kinds.js';

/** A provider entry as a user writes it (clusterctl.yaml `providers:`), before validation. */
export interface ProviderEntryInput {
  name: string;
  url: string;
  /** clusterctl's provider type, e.g. `InfrastructureProvider`. */
  type: string;
}

/** The core provider's reserved name. */
export const CORE_PROVIDER_NAME = 'cluster-api';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX = 253;

/**
 * Validates one entry and returns its problems (code `config`), each pointing at `where` plus the
 * field (`name`, `type`, `url`) under `fieldPrefix` (e.g. `providers[2]`). Empty when valid.
 */
export function validateProviderEntry(entry: ProviderEntryInput, where: Location = {}, fieldPrefix = ''): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const at = (field: string, message: string, hint: string): void => {
    problems.push(error('config', message, { ...where, field: fieldPrefix ? `${fieldPrefix}.${field}` : field, hint }));
  };
  const { name, url, type } = entry;
  if (name === '') {
    at('name', 'provider name cannot be empty', 'give the provider a lower-case DNS-1123 name, e.g. "aws"');
  } else if (name !== name.toLowerCase()) {
    at('name', `provider name ${name} must be in lower case`, `use ${JSON.stringify(name.toLowerCase())}`);
  } else if (name.length > DNS1123_SUBDOMAIN_MAX || !DNS1123_SUBDOMAIN.test(name)) {
    at(
      'name',
      `invalid provider name ${JSON.stringify(name)}: not a DNS-1123 subdomain`,
      "use lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
    );
  }
  if ((name === CORE_PROVIDER_NAME) !== (type === 'CoreProvider')) {
    at(
      name === CORE_PROVIDER_NAME ? 'type' : 'name',
      `name ${CORE_PROVIDER_NAME} must be used with the CoreProvider type (name: ${name}, type: ${type})`,
      `the core provider is always named ${CORE_PROVIDER_NAME}, and only it`,
    );
  }
  if (url === '') {
    at(
      'url',
      'provider URL cannot be empty',
      'give the URL of the components file, e.g. https://github.com/o/r/releases/latest/f.yaml',
    );
  } else {
    const reason = goUrlParseError(url);
    if (reason)
      at('url', `error parsing provider URL ${JSON.stringify(url)}: ${reason}`, 'fix the URL (escape % as %25)');
  }
  if (!PROVIDER_KINDS.some((info) => info.clusterctlType === type)) {
    const allowed = PROVIDER_KINDS.map((info) => info.clusterctlType).join(', ');
    at('type', `invalid provider type ${JSON.stringify(type)}`, `allowed values are [${allowed}]`);
  }
  return problems;
}

/**
 * Why Go's `url.Parse` would reject the string, or undefined. Go accepts almost anything
 * (relative paths, bare words); these are the failures it does report.
 */
export function goUrlParseError(url: string): string | undefined {
  if (/[\u0000-\u001f\u007f]/.test(url)) return 'invalid control character in URL';
  if (url.startsWith(':')) return 'missing protocol scheme';
  const hashAt = url.indexOf('#');
  const withoutFragment = hashAt < 0 ? url : url.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : url.slice(hashAt + 1);
  const queryAt = withoutFragment.indexOf('?');
  // Go leaves the query escaped (not validated by Parse) but unescapes path, host and fragment.
  const beforeQuery = queryAt < 0 ? withoutFragment : withoutFragment.slice(0, queryAt);
  if (hasBadEscape(beforeQuery) || hasBadEscape(fragment)) return 'invalid URL escape';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(beforeQuery);
  if (!scheme) {
    const firstSegment = beforeQuery.split('/')[0] ?? '';
    if (firstSegment.includes(':')) return 'first path segment in URL cannot contain colon';
    return undefined;
  }
  const rest = beforeQuery.slice(scheme[0].length);
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0] ?? '';
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const port = /^(?:\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort)?.[1];
    if (port !== undefined && !/^\d*$/.test(port)) return `invalid port ":${port}" after host`;
  }
  return undefined;
}

function hasBadEscape(text: string): boolean {
  return /%(?![0-9A-Fa-f]{2})/.test(text);
}
