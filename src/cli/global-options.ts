/**
 * The options every command takes (--repo, --debug, --help), and where they may stand: after the
 * command, as any option, or before it (`capi-render --repo DIR build`, as git and kubectl allow).
 * Only type imports: the no-op build bundle (no-op-build.ts) uses this too and must stay small.
 */
import type { OptionTable } from './options.js';

/** The global options, declared once (options.ts): the parser, every help page, the reference and completion read them. */
export const GLOBAL_OPTIONS = {
  repo: { type: 'string', value: 'DIR', help: 'the repository to work on (default: the current directory)' },
  debug: { type: 'boolean', help: 'print stack traces of unexpected errors' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} satisfies OptionTable;

export interface CommandLine {
  /** The command word (or `--version`, `--help`, an unknown option…); undefined when there is none. */
  name: string | undefined;
  /** The command's arguments: the global options given before it first, then what followed it. */
  rest: string[];
  /** The global options given before the command, as given. */
  leading: string[];
}

/**
 * Splits argv into the command and its arguments, moving --repo DIR, --repo=DIR and --debug given
 * before the command to the front of its arguments (where one given after the command wins, as a
 * repeated option does). Stops at the first word that is not one of them.
 */
export function splitCommandLine(argv: readonly string[]): CommandLine {
  const leading: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--debug' || arg.startsWith('--repo=')) leading.push(arg);
    else if (arg === '--repo') {
      leading.push(arg);
      if (i + 1 < argv.length) leading.push(argv[++i]!);
    } else break;
  }
  return { name: argv[i], rest: [...leading, ...argv.slice(i + 1)], leading };
}
