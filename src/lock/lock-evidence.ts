/**
 * The lock is evidence, never authority: an entry is reused only when it is a decision the inputs
 * allow. An entry that claims to resolve the current request from the current source but records a
 * version that request does not allow (an exact `spec.version` of v1.12.0 locked at v1.11.0, a
 * `~1.12` locked at v1.11.3) can only come from an edit of the lock. `build` re-resolves it and says
 * so in one line; `check` and `--frozen` refuse it, naming the lock line and the input it contradicts.
 */
import semver from 'semver';
import { SpecError, error, warning, type Diagnostic } from '../errors.js';
import { parseVersionRequest } from '../resolve/select-version.js';
import { parseVersion } from '../declarations/versions.js';
import { LOCK_FILE, type LockedProvider } from './lock-types.js';

/** What a build does with a lock entry the inputs contradict. */
export type LockContradictionRule = 'repair' | 'refuse';

/** Whether `version` is one the request `requested` (a spec.version as written) allows. */
export function versionAllowed(requested: string, version: string): boolean {
  const request = parseVersionRequest(requested);
  const parsed = parseVersion(version);
  if (!request || !parsed) return false;
  switch (request.kind) {
    case 'exact':
      return version === request.version;
    case 'range':
      return semver.satisfies(parsed, request.range, { includePrerelease: /-/.test(request.range) });
    case 'latest':
      return true;
  }
}

/** Where the input that a lock entry must satisfy is written. */
export interface InputSite {
  /** What the input is, for the message (`spec.version v1.12.0`). */
  what: string;
  file: string;
  line?: number;
  col?: number;
}

/**
 * The locked entry to reuse for `requested` from `sourceId`, or undefined to resolve afresh. An entry
 * for another request or source is simply stale (the inputs changed): it is resolved again without a
 * word. A contradicting entry is reported through `note` (repair) or thrown (refuse).
 */
export function usableLockEntry(
  locked: LockedProvider | undefined,
  requested: string,
  sourceId: string,
  context: {
    env: string;
    site: InputSite | (() => InputSite);
    lockText: string | undefined;
    rule: LockContradictionRule;
    note: (d: Diagnostic) => void;
  },
): LockedProvider | undefined {
  if (!locked || locked.requested !== requested || locked.source !== sourceId) return undefined;
  if (versionAllowed(requested, locked.version)) return locked;
  const line =
    context.lockText === undefined
      ? undefined
      : lockEntryLine(context.lockText, context.env, locked.provider, 'version');
  const site = typeof context.site === 'function' ? context.site() : context.site;
  const at = `${site.file}${site.line ? `:${site.line}${site.col ? `:${site.col}` : ''}` : ''}`;
  // Errors are tagged with their environment when they are merged (render/merge-problems.ts); warnings are not.
  const message = (inEnv: string) =>
    `${locked.provider}${inEnv} is locked at ${locked.version}, which ${site.what} (${at}) does not allow`;
  const where = { file: LOCK_FILE, ...(line ? { line, col: 1 } : {}), object: locked.provider };
  if (context.rule === 'refuse') {
    throw new SpecError(
      error('lock', `${message('')}: capi-render.lock contradicts its inputs (edited by hand?)`, {
        ...where,
        hint: `run \`capi-render build\` to re-resolve it from ${at} and commit the result; the lock records decisions the inputs allow, it never overrides them`,
      }),
    );
  }
  context.note(warning('lock', `${message(` in environment ${context.env}`)}: re-resolved from the inputs`, where));
  return undefined;
}

/**
 * 1-based line of `field` of the entry for `provider` in environment `env` of a lock text as
 * serializeLock writes it (one `- name:` per environment, one `- provider:` per entry); undefined
 * when the text is laid out otherwise.
 */
export function lockEntryLine(text: string, env: string, provider: string, field: string): number | undefined {
  const lines = text.split('\n');
  let inEnv = false;
  let inEntry = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    const envMatch = /^- name: (.*)$/.exec(line);
    if (envMatch) {
      inEnv = unquote(envMatch[1]!) === env;
      inEntry = false;
      continue;
    }
    if (/^\S/.test(line)) inEnv = false;
    if (!inEnv) continue;
    const entry = /^ {2}- provider: (.*)$/.exec(line);
    if (entry) {
      inEntry = unquote(entry[1]!) === provider;
      continue;
    }
    if (inEntry && new RegExp(`^ {4}${field}:`).test(line)) return i + 1;
  }
  return undefined;
}

function unquote(value: string): string {
  const v = value.trim();
  return /^(['"]).*\1$/.test(v) ? v.slice(1, -1) : v;
}
