/**
 * The CLI as a function: parse argv, dispatch to a command, and map error classes to exit codes —
 * in this one place. 0 success; 1 render, validation, fetch or drift failure; 2 bad usage.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { RenderError, UsageError, error, type Diagnostic } from '../errors.js';
import { commandHelpRows, commandUsage, type Command } from './command.js';
import { formatDiagnostics } from './format.js';
import { GLOBAL_OPTIONS, splitCommandLine } from './global-options.js';
import { optionHelpRows, type HelpRow, type OptionTable } from './options.js';
import { didYouMean } from '../declarations/schema/suggest-field.js';
import { parseCommandArgs } from './parse-argv.js';
import { useColor, type CliIo } from './io.js';

/**
 * The commands, loaded on demand: a command's module pulls in only what it needs, so `build` does
 * not pay for loading `upgrade`'s git and pull-request code (or the other way round).
 */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  build: async () => (await import('./commands/build.js')).buildCommand,
  cache: async () => (await import('./commands/cache.js')).cacheCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  'cmp-generate': async () => (await import('./commands/cmp-generate.js')).cmpGenerateCommand,
  completion: async () => (await import('./commands/completion.js')).completionCommand,
  diff: async () => (await import('./commands/diff.js')).diffCommand,
  images: async () => (await import('./commands/images.js')).imagesCommand,
  import: async () => (await import('./commands/import.js')).importCommand,
  init: async () => (await import('./commands/init.js')).initCommand,
  inputs: async () => (await import('./commands/inputs.js')).inputsCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  mirror: async () => (await import('./commands/mirror.js')).mirrorCommand,
  plan: async () => (await import('./commands/plan.js')).planCommand,
  publish: async () => (await import('./commands/publish.js')).publishCommand,
  rbac: async () => (await import('./commands/rbac.js')).rbacCommand,
  report: async () => (await import('./commands/report.js')).reportCommand,
  sbom: async () => (await import('./commands/sbom.js')).sbomCommand,
  upgrade: async () => (await import('./commands/upgrade.js')).upgradeCommand,
  variables: async () => (await import('./commands/variables.js')).variablesCommand,
};

/** Every command, in the order of {@link COMMANDS} (by name): for the help, the reference and completion. */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(Object.values(COMMANDS).map((load) => load()));
}

/** The exit codes, mapped in {@link run} alone: the code, the help's word for it, and what it means. */
export const EXIT_CODES: { code: number; brief: string; meaning: string }[] = [
  { code: 0, brief: 'success', meaning: 'success' },
  {
    code: 1,
    brief: 'render/validation/drift failure',
    meaning: 'a render, validation, fetch or drift failure; the message on stderr says what, where and how to fix it',
  },
  { code: 2, brief: 'bad usage', meaning: 'bad usage: an unknown command or option, or a missing or malformed value' },
];

/** The hidden command the shell completion scripts call (`capi-render __complete WORD…`): see completion/complete-words.ts. */
export const COMPLETE_COMMAND = '__complete';

const loadCommand = (name: string | undefined): Promise<Command> | undefined =>
  name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name]!() : undefined;

/** Every command's parser table: its own options plus the global ones. */
export function commandOptions(command: Command): OptionTable {
  return { ...command.options, ...GLOBAL_OPTIONS };
}

/** Help rows of the global options, from their table (global-options.ts). */
export const GLOBAL_HELP: readonly HelpRow[] = optionHelpRows(GLOBAL_OPTIONS);

export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const color = useColor(io);
  // Global options may come before the command too (`capi-render --repo DIR build`).
  const { name, rest, leading } = splitCommandLine(argv);
  if (name === undefined && leading.length > 0) {
    io.stderr.write(`capi-render: no command after ${leading.join(' ')}\n\n${await mainHelp()}`);
    return 2;
  }
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    const target = name === 'help' ? await loadCommand(rest[leading.length]) : undefined;
    io.stdout.write(target ? commandHelp(target) : await mainHelp());
    return 0;
  }
  if (name === COMPLETE_COMMAND) {
    // The words as the shell split them, options included: nothing is parsed or checked here.
    const { completeWords } = await import('./completion/complete-words.js');
    io.stdout.write(await completeWords(argv.slice(1), { commands: await loadCommands(), cwd: io.cwd }));
    return 0;
  }
  if (name === '--version') {
    io.stdout.write(`capi-render ${await version()}\n`);
    return 0;
  }
  const command = await loadCommand(name);
  if (!command) {
    const what = name.startsWith('-')
      ? unknownLeadingOption(name, argv)
      : `unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}`;
    io.stderr.write(`capi-render: ${what}\n\n${await mainHelp()}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseCommandArgs(rest, commandOptions(command), { allowPositionals: command.arguments !== undefined });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(
      `capi-render ${command.name}: ${e.message}\nRun "capi-render ${command.name} --help" for its options.\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  const debug = parsed.values.debug === true;
  const repo = parsed.values.repo;
  const repoRoot = path.resolve(io.cwd, typeof repo === 'string' ? repo : '.');
  if (!command.createsRepo && !isDirectory(repoRoot)) {
    io.stderr.write(
      `capi-render ${command.name}: --repo ${repoRoot} is not a directory; pass the repository's folder (the one holding providers/), or run capi-render init there first\n`,
    );
    return 2;
  }
  const cleanups: (() => void)[] = [];
  try {
    return await command.run({
      io,
      values: parsed.values,
      positionals: parsed.positionals,
      repoRoot,
      color,
      defer: (cleanup) => void cleanups.push(cleanup),
    });
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`capi-render ${command.name}: ${e.message}\n`);
      return 2;
    }
    if (e instanceof RenderError) {
      io.stderr.write(formatDiagnostics(e.diagnostics, { color }));
      if (debug) io.stderr.write(`${e.stack}\n`);
      return 1;
    }
    const err = e as NodeJS.ErrnoException;
    if (err && typeof err.code === 'string' && typeof err.syscall === 'string') {
      // File-system and network errors the library did not classify: still the user's environment.
      io.stderr.write(formatDiagnostics([systemErrorDiagnostic(err, io.cwd)], { color }));
      if (debug) io.stderr.write(`${err.stack}\n`);
      return 1;
    }
    io.stderr.write(
      `capi-render: internal error: ${(e as Error)?.message ?? String(e)}\nThis is a bug in capi-render; please report it with the command you ran${debug ? '' : ' and the output of --debug'}.\n`,
    );
    if (debug) io.stderr.write(`${(e as Error)?.stack}\n`);
    return 1;
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/** An option before the command that is not a global one: the closest global one, or where a command's option goes. */
function unknownLeadingOption(option: string, argv: readonly string[]): string {
  const word = option.replace(/^-+/, '').split('=')[0]!;
  const suggestion = didYouMean(word, ['version', 'help', ...Object.keys(GLOBAL_OPTIONS)], (c) => `--${c}`);
  const command = argv.find((a) => Object.hasOwn(COMMANDS, a));
  const after =
    !suggestion && command
      ? `; before the command only the global options (--repo, --debug) may stand, a command's own options go after it: capi-render ${command} ${option}`
      : '';
  return `unknown option ${option}${suggestion}${after}`;
}

const NETWORK_CALLS = new Set(['getaddrinfo', 'connect', 'read', 'write', 'socket']);
const WRITING_CALLS = new Set([
  'open',
  'write',
  'rename',
  'unlink',
  'mkdir',
  'rmdir',
  'rm',
  'link',
  'copyfile',
  'chmod',
  'symlink',
  'utime',
  'fsync',
  'ftruncate',
  'mkdtemp',
]);

/** An unclassified system error, named by what it is: a network failure, a failed write, or a file that cannot be read. */
function systemErrorDiagnostic(err: NodeJS.ErrnoException, cwd: string): Diagnostic {
  const file = err.path ? path.relative(cwd, err.path) || '.' : undefined;
  const where = file ? { file } : {};
  if (!err.path && NETWORK_CALLS.has(err.syscall!))
    return error('fetch', `${err.syscall} failed: ${err.message}`, where);
  const reason = err.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  if (WRITING_CALLS.has(err.syscall!))
    return error('write', `cannot ${err.syscall} ${file ?? ''}: ${reason}`.replace('  ', ' '), {
      ...where,
      hint: 'check the permissions and free space of that folder',
    });
  return error('input-path', `cannot read ${file ?? ''}: ${reason}`.replace('  ', ' '), {
    ...where,
    hint: 'check that the path exists and is readable',
  });
}

function table(rows: readonly HelpRow[]): string {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}\n`).join('');
}

async function mainHelp(): Promise<string> {
  const commands = await loadCommands();
  return (
    'capi-render — render Cluster API provider installs for GitOps\n\n' +
    'Usage: capi-render [global options] <command> [options]\n\nCommands:\n' +
    table(commands.map((c) => [c.name, c.summary])) +
    '\nGlobal options (before or after the command):\n' +
    table(GLOBAL_HELP) +
    '\nRun "capi-render <command> --help" for a command\'s options.\n' +
    `Exit codes: ${EXIT_CODES.map((e) => `${e.code} ${e.brief}`).join(', ')}.\n`
  );
}

export function commandHelp(c: Command): string {
  return `Usage: capi-render ${c.name} ${commandUsage(c)}\n\n${c.summary}\n\nOptions:\n${table([...commandHelpRows(c), ...GLOBAL_HELP])}`;
}

async function version(): Promise<string> {
  return (await import('../package-files.js')).packageVersion();
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
