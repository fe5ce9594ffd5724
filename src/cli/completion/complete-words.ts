/**
 * `capi-render __complete WORD…`: the candidates for the last word of a command line, computed from
 * the commands' own tables (options with their help, values and choices; fixed words), so completion can never offer
 * a flag the parser refuses. The shell scripts (shell-scripts.ts) pass the words as the shell split
 * them and only display what this prints, which keeps all logic here, in one tested place.
 *
 * Design notes: docs/internals.md "cli/completion/complete-words.ts".
 */
import path from 'node:path';
import type { Command } from '../command.js';
import { GLOBAL_OPTIONS } from '../global-options.js';
import type { OptionDecl, OptionTable } from '../options.js';
import { environmentNames } from './environment-names.js';

/** What completion needs: the commands (every one, hidden ones excluded by the caller) and the working directory. */
export interface CompletionContext {
  commands: readonly Command[];
  cwd: string;
}

type Mode = 'words' | 'files' | 'dirs' | 'none';
interface Candidate {
  value: string;
  description?: string;
}

/** The candidates for the last of `words` (the words after the program name; the last may be ''), as printed. */
export async function completeWords(words: readonly string[], ctx: CompletionContext): Promise<string> {
  const { before, current, prefix, flag } = splitWords(words);
  let repo: string | undefined;
  let command: Command | undefined;
  let pending: string | undefined; // a string option whose value is the next word
  let positionals = 0;
  for (const word of before) {
    if (pending !== undefined) {
      if (pending === 'repo') repo = word;
      pending = undefined;
    } else if (word.startsWith('--')) {
      const [name, value] = splitFlag(word);
      if (value === undefined && takesValue(command, name)) pending = name;
      else if (name === 'repo') repo = value;
    } else if (!word.startsWith('-') || word === '-') {
      if (command) positionals++;
      else command = ctx.commands.find((c) => c.name === word);
      // An unknown command: nothing to offer after it.
      if (!command) return render([], 'none', prefix);
    }
  }
  const repoRoot = path.resolve(ctx.cwd, repo ?? '.');
  const valueOf = flag ?? pending;
  if (valueOf !== undefined) {
    const [candidates, mode] = await optionValues(command, valueOf, repoRoot);
    return render(candidates, mode, prefix, current);
  }
  if (!command) {
    if (current.startsWith('-')) return render(flagCandidates(undefined), 'words', prefix, current);
    return render(
      ctx.commands.map((c) => ({ value: c.name, description: brief(c.summary) })),
      'words',
      prefix,
      current,
    );
  }
  const args = command.arguments;
  if (current.startsWith('-') || (!args && current === ''))
    return render(flagCandidates(command), 'words', prefix, current);
  if (args?.fixed)
    return render(
      positionals === 0 ? Object.entries(args.help).map(([value, text]) => ({ value, description: brief(text) })) : [],
      'words',
      prefix,
      current,
    );
  return render([], args ? 'files' : 'none', prefix);
}

/**
 * The words before the one being completed, that word, the text a candidate must start with to
 * replace it (`--env=` when the shell passed `--env=de` whole), and the option whose value it is
 * when it is written `--flag=value` (or `--flag`, `=`, `value` as bash splits it).
 */
function splitWords(words: readonly string[]): { before: string[]; current: string; prefix: string; flag?: string } {
  const all = words.length > 0 ? [...words] : [''];
  // bash's split form first: [… --env, =] or [… --env, =, de].
  const n = all.length;
  if (all[n - 1] === '=' && all[n - 2]?.startsWith('--'))
    return { before: joinEquals(all.slice(0, n - 2)), current: '', prefix: '', flag: all[n - 2]!.slice(2) };
  if (all[n - 2] === '=' && all[n - 3]?.startsWith('--'))
    return { before: joinEquals(all.slice(0, n - 3)), current: all[n - 1]!, prefix: '', flag: all[n - 3]!.slice(2) };
  const current = all[n - 1]!;
  const before = joinEquals(all.slice(0, n - 1));
  const [name, value] = current.startsWith('--') ? splitFlag(current) : [current, undefined];
  if (value !== undefined) return { before, current: value, prefix: `--${name}=`, flag: name };
  return { before, current, prefix: '' };
}

/** bash's `--repo`, `=`, `dir` back into `--repo=dir`. */
function joinEquals(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '=' && out.length > 0 && out[out.length - 1]!.startsWith('--'))
      out[out.length - 1] += `=${words[++i] ?? ''}`;
    else out.push(words[i]!);
  }
  return out;
}

function splitFlag(word: string): [string, string | undefined] {
  const at = word.indexOf('=');
  return at < 0 ? [word.slice(2), undefined] : [word.slice(2, at), word.slice(at + 1)];
}

const GLOBALS: OptionTable = GLOBAL_OPTIONS;

/** The declaration of `--name` for `command` (its own options, then the global ones). */
function declared(command: Command | undefined, name: string): OptionDecl | undefined {
  const own = command && Object.hasOwn(command.options, name) ? command.options[name] : undefined;
  return own ?? (Object.hasOwn(GLOBALS, name) ? GLOBALS[name] : undefined);
}

function takesValue(command: Command | undefined, name: string): boolean {
  return declared(command, name)?.type === 'string';
}

/** Values for `--name`: its fixed set, the repository's environments, or the shell's file names by its value placeholder. */
async function optionValues(
  command: Command | undefined,
  name: string,
  repoRoot: string,
): Promise<[Candidate[], Mode]> {
  const own = command && Object.hasOwn(command.options, name) ? command.options[name] : undefined;
  if (own?.choices) return [own.choices.map((value) => ({ value })), 'words'];
  if (name === 'env' && own) return [environmentNames(repoRoot).map((value) => ({ value })), 'words'];
  if (name === 'repo') return [[], 'dirs'];
  const metavar = own?.value ?? '';
  // `--to DIR|REGISTRY/REPO`: a folder is one of the answers. A free value (V, NAME) has no candidates.
  if (/\bDIR\b/.test(metavar)) return [[], 'dirs'];
  if (/\bFILE\b/.test(metavar)) return [[], 'files'];
  return [[], 'none'];
}

/** The flags of a command (its own, then the global ones), or before any command the global ones and --version. */
function flagCandidates(command: Command | undefined): Candidate[] {
  const table: OptionTable = command
    ? { ...command.options, ...GLOBAL_OPTIONS }
    : { ...GLOBAL_OPTIONS, version: { type: 'boolean', help: 'print the version' } };
  return Object.entries(table).map(([name, o]) => ({ value: `--${name}`, description: brief(o.help) }));
}

/** A help text cut to its first clause, at most 72 characters: shells show it beside the candidate. */
function brief(text: string): string {
  const first = text.split(/; | \(/)[0]!;
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}

function render(candidates: readonly Candidate[], mode: Mode, prefix: string, current = ''): string {
  const shown = mode === 'words' ? candidates.filter((c) => c.value.startsWith(current)) : [];
  const lines = shown.map(
    (c) => `${prefix}${c.value}${c.description ? `\t${c.description.replace(/\s+/g, ' ')}` : ''}`,
  );
  return `${[...lines, `:${mode === 'words' && shown.length === 0 ? 'none' : mode}`].join('\n')}\n`;
}
