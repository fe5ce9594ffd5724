/**
 * The options every command takes (--repo, --debug, --help), and where they may stand: after the
 * command, as any option, or before it (`capi-render --repo DIR build`, as git and kubectl allow).
 * No imports: the no-op build bundle (no-op-build.ts) uses this too and must stay small.
 */

/** node:util parseArgs specs of the global options. */
export const GLOBAL_OPTIONS = {
  repo: { type: 'string' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Help pairs of the global options (flag text → description), for every help page, the reference and completion. */
export const GLOBAL_HELP_PAIRS: [string, string][] = [
  ['--repo DIR', 'the repository to work on (default: the current directory)'],
  ['--debug', 'print stack traces of unexpected errors'],
  ['-h, --help', 'show help'],
];

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
