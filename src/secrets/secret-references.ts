/**
 * The loading edge of values given by reference in a Secret input's `stringData`
 * (declarations/secret-values.ts): reads each `{fromEnv: NAME}` from the environment passed in and
 * each `{fromFile: PATH}` from disk, and returns the Secret inputs with the values attached. No value
 * is an error here: an unset variable or an absent file leaves the key without a value, and the
 * render decides whether the output needs it (render-environment.ts, secret-guard.ts).
 *
 * Design notes: docs/internals.md "secrets/secret-references.ts".
 */
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { readBounded } from '../bounded-read.js';
import { SpecError, error, type Diagnostic } from '../errors.js';
import type { InputObject } from '../declarations/inputs.js';
import { secretReferences } from '../declarations/secret-values.js';
import { isJsonObject } from '../manifest/object.js';

/** Largest file a `{fromFile}` reference may name: a Kubernetes Secret holds at most 1 MiB. */
export const MAX_SECRET_FILE_BYTES = 1024 * 1024;

/** What reading references needs; everything is passed in, nothing read from the process. */
export interface ReferenceReadContext {
  /** Absolute path of the repository (the folder of capi-render.yaml). */
  repoRoot: string;
  /** The environment `{fromEnv}` reads. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Whether git ignores the file at this absolute path, in the work tree holding the repository, and
   * that work tree's top folder. Default: asks `git` (with `env`'s PATH).
   */
  git?: GitView;
}

/** What git says about the repository's files. */
export interface GitView {
  /** The top folder of the git work tree holding the repository, or undefined when there is none. */
  topLevel(): Promise<string | undefined>;
  /** Whether `file` (absolute, inside the work tree) is ignored and untracked. */
  ignores(file: string): Promise<boolean>;
}

/** Reads references once per file per build: the same Secret is read by every environment. */
export interface ReferenceReader {
  /** The Secret inputs, those with references carrying their values (others unchanged). */
  resolve(secrets: readonly InputObject[]): Promise<InputObject[]>;
}

/** A reader for one build; throws SpecError `config-secret` listing every refused reference. */
export function createReferenceReader(context: ReferenceReadContext): ReferenceReader {
  const git = context.git ?? gitView(context.repoRoot, context.env);
  const files = new Map<string, Promise<FileOutcome>>();
  const readOnce = (file: string) => {
    let outcome = files.get(file);
    if (!outcome) files.set(file, (outcome = readReferenceFile(file, context.repoRoot, git)));
    return outcome;
  };
  return {
    async resolve(secrets) {
      const problems: Diagnostic[] = [];
      const out = await Promise.all(
        secrets.map(async (input) => {
          const references = secretReferences(input);
          if (references.length === 0) return input;
          const values = new Map<string, string | undefined>();
          for (const [key, reference] of references) {
            if ('fromEnv' in reference) {
              values.set(key, context.env[reference.fromEnv]);
              continue;
            }
            const outcome = await readOnce(reference.fromFile);
            if (outcome.refused) problems.push(refusal(input, key, reference, outcome.refused));
            else values.set(key, outcome.value);
          }
          return { ...input, references: values };
        }),
      );
      if (problems.length > 0) throw new SpecError(problems);
      return out;
    },
  };
}

type FileOutcome = { value: string | undefined; refused?: undefined } | { refused: { why: string; hint: string } };

async function readReferenceFile(file: string, repoRoot: string, git: GitView): Promise<FileOutcome> {
  if (file.startsWith('~'))
    return {
      refused: {
        why: 'starts with `~`, which is not expanded',
        hint: 'write the absolute path (a relative path is relative to the repository root)',
      },
    };
  const named = path.resolve(repoRoot, file);
  let real: string;
  try {
    real = realpathSync.native(named);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Absent (or a link to nothing): the reference has no value, as an unset variable.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { value: undefined };
    if (code === 'ELOOP')
      return { refused: { why: 'is a symbolic link loop', hint: 'point fromFile at a regular file' } };
    return { refused: { why: `cannot be read (${code ?? 'error'})`, hint: 'make the file readable by capi-render' } };
  }
  const root = safeRealpath(repoRoot);
  const top = await git.topLevel();
  const insideRepository = isInside(root, real) || (top !== undefined && isInside(safeRealpath(top), real));
  if (insideRepository && !(await git.ignores(real))) {
    return {
      refused: {
        why: `${real === named ? 'is' : 'leads to a file'} inside the repository that git would commit`,
        hint: 'keep the file outside the repository, or list it in .gitignore (a file git already tracks is refused even if listed)',
      },
    };
  }
  let read;
  try {
    read = await readBounded(real, { limit: MAX_SECRET_FILE_BYTES, follow: false });
  } catch (e) {
    return {
      refused: {
        why: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        hint: 'make the file readable by capi-render',
      },
    };
  }
  switch (read.outcome) {
    case 'missing':
      return { value: undefined };
    case 'irregular':
      return {
        refused: {
          why: `is a ${read.kind === 'folder' ? 'folder' : read.kind === 'other' ? 'special file' : read.kind}, not a regular file`,
          hint: 'point fromFile at a regular file',
        },
      };
    case 'too-large':
      return {
        refused: {
          why: `is larger than ${MAX_SECRET_FILE_BYTES} bytes (a Kubernetes Secret holds at most 1 MiB)`,
          hint: 'point fromFile at the file holding just the value',
        },
      };
    case 'read':
      try {
        return { value: new TextDecoder('utf-8', { fatal: true }).decode(read.bytes) };
      } catch {
        return {
          refused: { why: 'is not UTF-8 text', hint: 'a variable value is text; store binary data base64-encoded' },
        };
      }
  }
}

function refusal(
  input: InputObject,
  key: string,
  reference: { fromFile: string },
  refused: { why: string; hint: string },
): Diagnostic {
  const meta = isJsonObject(input.object.metadata) ? input.object.metadata : {};
  const name = `Secret/${typeof meta.namespace === 'string' ? meta.namespace : 'default'}/${typeof meta.name === 'string' ? meta.name : ''}`;
  return error('config-secret', `${name} stringData.${key}: fromFile ${reference.fromFile} ${refused.why}`, {
    file: input.file,
    ...input.locate(['stringData', key, 'fromFile']),
    field: `stringData.${key}.fromFile`,
    hint: refused.hint,
  });
}

function safeRealpath(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** git as a child process (no shell), in the repository; a failure to run it answers "not ignored". */
function gitView(repoRoot: string, env: Readonly<Record<string, string | undefined>>): GitView {
  const childEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const git = (args: string[]) =>
    new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'git',
        args,
        { cwd: repoRoot, env: childEnv, encoding: 'utf8', maxBuffer: 1024 * 1024 },
        (err, stdout) => {
          const code = err
            ? typeof (err as { code?: unknown }).code === 'number'
              ? (err as { code: number }).code
              : -1
            : 0;
          resolve({ code, stdout: String(stdout ?? '') });
        },
      );
    });
  let top: Promise<string | undefined> | undefined;
  return {
    topLevel: () =>
      (top ??= git(['rev-parse', '--show-toplevel']).then((r) =>
        r.code === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined,
      )),
    // Exit 0: ignored (and, without --no-index, untracked); 1: not ignored; anything else: unknown, so not ignored.
    ignores: async (file) => (await git(['check-ignore', '-q', '--', file])).code === 0,
  };
}
