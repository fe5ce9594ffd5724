/** The shape of a CLI command: its options (node:util parseArgs config), help text and handler. */
import type { ParseArgsConfig } from 'node:util';
import type { CliIo } from './io.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  io: CliIo;
  /** Parsed option values. */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** Words after the options, for commands that take them ({@link Command.positionals}); else empty. */
  positionals: string[];
  /** The repository root (`--repo`, default the working directory). */
  repoRoot: string;
  color: boolean;
  /** Registers work to do when the command ends, however it ends (stopping progress timers). */
  defer(cleanup: () => void): void;
}

export interface Command {
  name: string;
  summary: string;
  /** Usage line after `capi-render <name>`. */
  usage: string;
  /** Option help: flag text → description. */
  help: [string, string][];
  options: OptionSpec;
  /** True when the command takes words besides options (`cache info`, `merge DIR…`). Default false. */
  positionals?: boolean;
  /** True when the command creates the repository (init), so `--repo` need not exist yet. */
  createsRepo?: boolean;
  /**
   * Option name → the fixed set of values it takes (`--format`: repository, configmaps, oci), where
   * it has one: the command checks against the same list, shell completion offers it and the
   * reference lists it. Options without an entry take any value (or none).
   */
  choices?: Record<string, readonly string[]>;
  /**
   * String options whose value may be left out (`mirror --images --to DIR` beside `mirror --images
   * REGISTRY/PREFIX`): written without one (the last argument, or followed by an option), they
   * read as the empty string.
   */
  optionalValues?: readonly string[];
  /** The words the command takes as positionals when they are a fixed set (`cache info|prune`). */
  words?: readonly string[];
  /** Returns the exit code. */
  run(ctx: CommandContext): Promise<number>;
}
