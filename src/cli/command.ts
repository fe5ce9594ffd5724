/** The shape of a CLI command: its option table (options.ts), help text and handler. */
import type { CliIo } from './io.js';
import {
  optionHelpRows,
  usageOf,
  type AnyOptionValues,
  type HelpRow,
  type OptionTable,
  type OptionValues,
} from './options.js';

export interface CommandContext<V = AnyOptionValues> {
  io: CliIo;
  /** Parsed option values, typed by the command's table. */
  values: V;
  /** Words after the options, for commands that take them ({@link Command.arguments}); else empty. */
  positionals: string[];
  /** The repository root (`--repo`, default the working directory). */
  repoRoot: string;
  color: boolean;
  /** Registers work to do when the command ends, however it ends (stopping progress timers). */
  defer(cleanup: () => void): void;
}

/** The words a command takes besides options (`cache info|prune`, `merge SHARD...`). */
export interface CommandArguments {
  /** Word (or a placeholder: `SHARD...`) → help text, listed before the options. */
  readonly help: Readonly<Record<string, string>>;
  /** True when the words above are the only ones it takes (completion offers them). */
  readonly fixed?: boolean;
}

/** What every command says of itself besides its options and handler. */
interface CommandInfo {
  name: string;
  summary: string;
  /**
   * The usage line after `capi-render <name>`, where the table cannot say it: alternatives, options
   * that go together, positional words. Without it, the usage line lists the table (options.ts usageOf).
   */
  synopsis?: string;
  /** The words it takes besides options; without them any word is a usage error. */
  arguments?: CommandArguments;
  /** True when the command creates the repository (init), so `--repo` need not exist yet. */
  createsRepo?: boolean;
}

/** A declared command: its handler reads values typed by its own table. */
export interface CommandDeclaration<T extends OptionTable> extends CommandInfo {
  /** Every option the command takes besides the global ones, each declared once. */
  options: T;
  /** Returns the exit code. */
  run(ctx: CommandContext<OptionValues<T>>): Promise<number>;
}

/** What run.ts, help, completion and the reference see of a command: one of any table. */
export interface Command extends CommandInfo {
  options: OptionTable;
  run(ctx: CommandContext): Promise<number>;
}

/**
 * Declares a command, typing its handler's values by its option table. The handler is a method, so
 * its parameter is compared both ways: a handler typed by its own table is one of any table, and
 * run.ts passes it what exactly that table parsed (options.ts completeValues).
 */
export function defineCommand<const T extends OptionTable>(command: CommandDeclaration<T>): Command {
  return command;
}

/** A command's help rows: its words (`info`, `SHARD...`), then its options, from its table. */
export function commandHelpRows(c: Command): HelpRow[] {
  return [...Object.entries(c.arguments?.help ?? {}), ...optionHelpRows(c.options)];
}

/** The usage line after `capi-render <name>`: the command's synopsis, or its table's options. */
export function commandUsage(c: Command): string {
  return c.synopsis ?? usageOf(c.options);
}
