/**
 * Checks a parsed lock against LOCK_SCHEMA (lock-schema.ts) and reports every entry that is not of
 * its shape at once: one diagnostic per entry, saying which entry and what it lacks, at its line.
 * ajv reports the failing value; the entry that holds it is what a reader of the lock looks for
 * (a provider entry without a source is reported at `- provider:`, not at the missing key).
 */
import type { ErrorObject } from 'ajv';
import type YAML from 'yaml';
import { error, type Diagnostic } from '../errors.js';
import { LOCK_SCHEMA } from './lock-schema.js';
import { validatorOnce, type ValidatorSpec } from '../schema-validator.js';
import { yamlLibrary } from '../yaml-library.js';
import { LOCK_API_VERSION, LOCK_FILE, type LockFile } from './lock-types.js';

/** The lock's validator (precompiled by `npm run build`, src/schema-validator.ts). */
export const LOCK_VALIDATOR: ValidatorSpec = {
  schema: LOCK_SCHEMA,
  options: { allErrors: true, strict: true, validateSchema: false, code: { optimize: false } },
};

const validator = validatorOnce(LOCK_VALIDATOR);

/** Whether `doc` is of the lock's shape (for values read back from a cache, which need no message). */
export function isLock(doc: unknown): doc is LockFile {
  return validator()(doc);
}

export const LOCK_HINT = `restore it from git (\`git checkout ${LOCK_FILE}\`), or delete it to re-resolve every version (then review the result)`;

/** Diagnostics `lock` for every entry of `doc` (parsed from `text`) that is not of the lock's shape; empty when it is. */
export function lockProblems(doc: unknown, text: string): Diagnostic[] {
  const validate = validator();
  if (validate(doc)) return [];
  const problems = (validate.errors ?? []).map((e) => describe(e, doc));
  const wrongEntries = new Set(problems.filter((p) => p.entry).map((p) => p.path.join('/')));
  const at = positions(text);
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const problem of problems) {
    // An entry whose whole shape is wrong is reported once, not again for each field of it: the
    // message of a field names the entry by fields that may be the missing ones.
    if (
      problem.path.some(
        (_, n) => n > 0 && n < problem.path.length && wrongEntries.has(problem.path.slice(0, n).join('/')),
      )
    )
      continue;
    const key = `${problem.path.join('/')}\u0000${problem.what}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      error('lock', `${LOCK_FILE} ${problem.what}`, {
        file: LOCK_FILE,
        ...(problem.path.length > 0 ? at(problem.path) : {}),
        hint: LOCK_HINT,
      }),
    );
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

type Path = (string | number)[];

/** What is wrong and the entry it is reported at, for one ajv error. */
interface Problem {
  what: string;
  /** The entry it is reported at. */
  path: Path;
  /** An entry of the wrong shape as a whole: problems inside it are not reported again. */
  entry?: boolean;
}

function describe(e: ErrorObject, doc: unknown): Problem {
  const path: Path = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
  const [top, i, field, j, sub] = path;
  const value = (p: Path) => p.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)?.[k], doc);
  const envName = () => String(value(['environments', i!, 'name']));
  switch (top) {
    case undefined:
    case 'apiVersion':
    case 'kind':
      return { what: `must have apiVersion ${LOCK_API_VERSION} and kind Lock`, path: [] };
    case 'emulates':
      return { what: 'has an emulates entry without a clusterctl version', path: ['emulates'] };
    case 'environments':
      if (i === undefined) return { what: 'has environments that are not a list', path: ['environments'] };
      if (field === 'crds')
        return { what: `has crds of environment ${envName()} that are not a list of names`, path: path.slice(0, 3) };
      if (field === 'inputs')
        return { what: `has inputs of environment ${envName()} that are not a hash`, path: path.slice(0, 3) };
      if (field === 'images')
        return {
          what: `has images of environment ${envName()} that are not a list of references`,
          path: path.slice(0, 3),
        };
      if (field === 'providers' && j !== undefined) {
        if (sub === 'variables') {
          const provider = String(value(['environments', i, 'providers', j, 'provider']));
          return {
            what: `has variables of ${provider} in environment ${envName()} that are not a list of names`,
            path: path.slice(0, 5),
          };
        }
        return {
          what: `has a provider entry of environment ${envName()} without provider, version and source`,
          path: path.slice(0, 4),
          entry: true,
        };
      }
      return { what: 'has an environment entry without a name and providers', path: path.slice(0, 2), entry: true };
    case 'inputFiles':
      return { what: 'has inputFiles entries without file and sha256', path: path.slice(0, 2) };
    case 'images':
      if (field === 'verified')
        return {
          what: `has a verified entry of image ${String(value(['images', i!, 'image']))} without rule, method and format`,
          path: path.slice(0, 3),
        };
      return { what: 'has an images entry without an image and a sha256 digest', path: path.slice(0, 2), entry: true };
    case 'artifacts':
      if (i === undefined) return { what: 'has artifacts that are not a list', path: ['artifacts'] };
      return { what: 'has an artifact entry without source, version, file and a sha256', path: path.slice(0, 2) };
    default:
      // The schema constrains no other top-level field; a new rule gets its message above.
      return { what: `${path.join('.')} ${e.message ?? 'is invalid'}`, path };
  }
}

/** Line and column of the node at a path of `text` (the text is read with positions only when a problem is reported). */
function positions(text: string): (path: Path) => { line?: number; col?: number } {
  let doc: YAML.Document.Parsed | undefined;
  try {
    doc = yamlLibrary().parseDocument(text, { uniqueKeys: false });
  } catch {
    doc = undefined;
  }
  return (path) => {
    const node = doc?.getIn(path, true) as { range?: [number, number, number] } | undefined;
    if (!node?.range) return {};
    const before = text.slice(0, node.range[0]);
    return { line: before.split('\n').length, col: node.range[0] - before.lastIndexOf('\n') };
  };
}
