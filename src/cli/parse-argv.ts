/**
 * A command's arguments, checked before node:util parseArgs sees them, so that every usage mistake
 * gets an answer a person can act on: an unknown option names the closest known one ("did you mean
 * --env?"), a stray word says which option it probably belongs to, and parseArgs' own errors (a
 * missing value) are kept but never shown with Node's internal wording alone. Pure.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { didYouMean } from '../declarations/schema/suggest-field.js';
import { completeValues, parserOptions, type AnyOptionValues, type OptionTable } from './options.js';

export interface ParsedArgv {
  /** Every option of the table: a flag not given reads false, a repeatable option [] (options.ts completeValues). */
  values: AnyOptionValues;
  positionals: string[];
}

/**
 * Parses `args` against the option table `options`. Throws UsageError for an unknown option (with
 * the closest known one), a positional argument (unless `allowPositionals`: the command checks its
 * words itself), or anything parseArgs refuses.
 */
export function parseCommandArgs(
  input: readonly string[],
  options: OptionTable,
  { allowPositionals = false }: { allowPositionals?: boolean } = {},
): ParsedArgv {
  // An option that may go without its value gets an empty one when none follows.
  const args = input.map((arg, i) =>
    options[arg.slice(2)]?.optionalValue === true &&
    arg.startsWith('--') &&
    (i === input.length - 1 || input[i + 1]!.startsWith('-'))
      ? `${arg}=`
      : arg,
  );
  const names = Object.keys(options);
  const shorts = new Map(
    Object.entries(options).flatMap(([name, o]): [string, string][] => (o.short ? [[o.short, name]] : [])),
  );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      const rest = args.slice(i + 1);
      if (rest.length > 0 && !allowPositionals)
        throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}: this command takes options only`);
      break;
    }
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0]!;
      if (!Object.hasOwn(options, name))
        throw new UsageError(`unknown option --${name}${didYouMean(name, names, (c) => `--${c}`)}`);
      // A string option's value is the next argument, even when it looks like a word.
      if (options[name]!.type === 'string' && !arg.includes('=')) i++;
    } else if (arg.startsWith('-') && arg.length > 1) {
      // `-env` for `--env` is the common slip; a real short option (-h) passes.
      const word = arg.slice(1).split('=')[0]!;
      if (!shorts.has(word)) throw new UsageError(`unknown option -${word}${didYouMean(word, names, (c) => `--${c}`)}`);
    } else if (!allowPositionals) {
      // `build dev` for `build --env dev`: say which option the word probably belongs to.
      const hint = names.includes('env') ? `; to choose an environment, pass --env ${arg}` : '';
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)}: this command takes options only${hint}`);
    }
  }
  try {
    const config = { args: [...args], options: parserOptions(options), allowPositionals, strict: true };
    const { values, positionals } = parseArgs(config);
    return { values: completeValues(options, values), positionals };
  } catch (e) {
    // parseArgs' message is precise (which option lacks a value, or got one it does not take); its
    // advice about `--` separators does not apply here, so it is cut off.
    const message = e instanceof Error ? e.message : String(e);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}
