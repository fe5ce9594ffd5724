/**
 * Where templates come from: a repository's own templates folder (`templatesDir`) over the ones
 * bundled with capi-render (`<package>/bundled-templates/`), looked up by relative name
 * (`argocd/application.yaml.hbs`, `report/report.html.hbs`). One lookup for every templated output,
 * so overriding works the same way everywhere.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from './errors.js';
import { readInputFileSync } from './repository-files.js';

/** Reads a file's text, or returns undefined when it does not exist. */
export type ReadTextFile = (file: string) => string | undefined;

/** Where templates come from: the user's folder (optional) over the bundled one. */
export interface TemplateSource {
  userDir: string | undefined;
  bundledDir: string;
  read: ReadTextFile;
}

/** Reads with node:fs; a missing file is undefined, any other failure throws. */
export const readTextFileSync: ReadTextFile = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
};

/**
 * Reads templates for the repository `repoRoot`: a file inside it (the user's templates folder) is
 * an input, read by the repository reader (links inside followed, out refused, regular files only,
 * size limited); any other (the bundled templates) with {@link readTextFileSync}.
 */
export function templateReader(repoRoot: string): ReadTextFile {
  return (file) => {
    const rel = path.relative(repoRoot, file);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return readTextFileSync(file);
    return readInputFileSync(repoRoot, rel)?.bytes.toString('utf8');
  };
}

/** A located template: its text and the file it came from (for messages). */
export interface LoadedTemplate {
  file: string;
  text: string;
}

/** The user's template `name` if it exists, else the bundled one; SpecError `template` when neither does. */
export function loadTemplate(name: string, source: TemplateSource): LoadedTemplate {
  if (source.userDir !== undefined) {
    const file = path.join(source.userDir, name);
    const text = source.read(file);
    if (text !== undefined) return { file, text };
  }
  const file = path.join(source.bundledDir, name);
  const text = source.read(file);
  if (text === undefined) {
    throw new SpecError(
      error('template', `template ${name} was not found`, {
        file,
        hint: 'reinstall capi-render, or add the template to your templates folder',
      }),
    );
  }
  return { file, text };
}

/**
 * Handlebars reports run-time errors with `lineNumber`/`column` (0-based column) and parse errors
 * as a multi-line message: `Parse error on line N:`, an excerpt, a caret, then what was expected.
 */
export function describeTemplateError(e: unknown): { message: string; line?: number; col?: number } {
  const err = e as { message?: unknown; lineNumber?: unknown; column?: unknown };
  const message = typeof err.message === 'string' ? err.message : String(e);
  if (typeof err.lineNumber === 'number') {
    return {
      message: message.replace(/ - \d+:\d+$/, ''),
      line: err.lineNumber,
      ...(typeof err.column === 'number' ? { col: err.column + 1 } : {}),
    };
  }
  const parse = /^Parse error on line (\d+):/.exec(message);
  if (parse) {
    const lines = message.split('\n');
    return { message: `parse error: ${lines[lines.length - 1]}`, line: Number(parse[1]) };
  }
  const nl = message.indexOf('\n');
  return { message: nl < 0 ? message : message.slice(0, nl) };
}

/** The SpecError `template` for a template that failed to compile or run: named, located where handlebars says. */
export function templateFailure(name: string, file: string, e: unknown, hint: string): SpecError {
  const problem = describeTemplateError(e);
  return new SpecError(
    error('template', `template ${name} failed: ${problem.message}`, {
      file,
      ...(problem.line !== undefined ? { line: problem.line } : {}),
      ...(problem.col !== undefined ? { col: problem.col } : {}),
      hint,
    }),
  );
}
