/**
 * Option tables: each option of a command declared once — its type, value placeholder, help text,
 * fixed values — and everything else read from that one declaration: the node:util parseArgs
 * config, the help rows, the usage line, shell completion, the generated reference, and the type of
 * the parsed values (a repeatable `--env NAME` is a `string[]`, a flag a `boolean`), so a
 * command reads `values.env` with no cast. No runtime imports: the no-op build bundle reaches
 * global-options.ts, which uses these types.
 */

export interface OptionDecl {
  readonly type: 'string' | 'boolean';
  /** Repeatable (`--env a --env b`): the value is every one given, in order; `[]` when none is. */
  readonly multiple?: boolean;
  /** A one-letter alias (`-h`). */
  readonly short?: string;
  /** The placeholder of a string option's value in help and usage (`NAME`, `FILE`); completion offers folders for DIR and files for FILE. */
  readonly value?: string;
  readonly help: string;
  /** The fixed set of values it takes: completion offers it, the reference lists it, the command checks against it. */
  readonly choices?: readonly string[];
  /**
   * A string option whose value may be left out (`mirror --images --to DIR`): written without one
   * (the last argument, or followed by an option), its value is the empty string.
   */
  readonly optionalValue?: boolean;
  /** The value when the option is not given (the help text says so in its own words). */
  readonly default?: string;
  /**
   * Help rows shown right after the option's own: a combination with other options (`--images --to
   * DIR`), or lines that continue its text (flag text '').
   */
  readonly moreHelp?: readonly HelpRow[];
}

/** A help row: flag text (`--env NAME`, `-h, --help`, or a word: `info`) and its description. */
export type HelpRow = readonly [string, string];

/** Option name (without `--`) → declaration, in the order help, usage and completion list them. */
export type OptionTable = Readonly<Record<string, OptionDecl>>;

/** The parsed value of one option. */
export type OptionValue<D extends OptionDecl> = D extends { type: 'boolean' }
  ? boolean
  : D extends { multiple: true }
    ? string[]
    : D extends { default: string }
      ? string
      : string | undefined;

/** Parsed values of any table, for code that serves every command (run.ts, the parser). */
export type AnyOptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** The parsed values of `T`, typed option by option. */
export type OptionValues<T extends OptionTable> = string extends keyof T
  ? AnyOptionValues
  : { readonly [K in keyof T]: OptionValue<T[K]> };

/** Declares a table, keeping each option's literal type so {@link OptionValues} can read it. */
export function defineOptions<const T extends OptionTable>(table: T): T {
  return table;
}

/** parseArgs' view of a table: type, repeatable, short alias, default. */
export type ParserOptions = Record<
  string,
  { type: 'string' | 'boolean'; multiple?: boolean; short?: string; default?: string }
>;

export function parserOptions(table: OptionTable): ParserOptions {
  const out: ParserOptions = {};
  for (const [name, o] of Object.entries(table)) {
    out[name] = {
      type: o.type,
      ...(o.multiple ? { multiple: true } : {}),
      ...(o.short !== undefined ? { short: o.short } : {}),
      ...(o.default !== undefined ? { default: o.default } : {}),
    };
  }
  return out;
}

/**
 * parseArgs' values completed by the table: a flag not given reads false, a repeatable option not
 * given reads []. What parseArgs returns for each option is what the table declares (it refuses
 * anything else), which is why the result may be typed by the table.
 */
export function completeValues(table: OptionTable, parsed: Readonly<Record<string, unknown>>): AnyOptionValues {
  const out: Record<string, string | boolean | string[] | undefined> = {};
  for (const [name, o] of Object.entries(table)) {
    const value = parsed[name];
    if (o.type === 'boolean') out[name] = value === true;
    else if (o.multiple) out[name] = Array.isArray(value) ? value.map(String) : [];
    else out[name] = typeof value === 'string' ? value : undefined;
  }
  return out;
}

/** The flag text of an option in help and the reference: `--env NAME`, `-h, --help`. */
export function flagText(name: string, o: OptionDecl): string {
  return `${o.short !== undefined ? `-${o.short}, ` : ''}--${name}${o.value !== undefined ? ` ${o.value}` : ''}`;
}

/** A table's help rows: each option's own, then its {@link OptionDecl.moreHelp}. */
export function optionHelpRows(table: OptionTable): HelpRow[] {
  return Object.entries(table).flatMap(([name, o]): HelpRow[] => [[flagText(name, o), o.help], ...(o.moreHelp ?? [])]);
}

/**
 * The usage words of a table, in its order: `[--flag]`, `[--name VALUE]` (the fixed values joined
 * with `|` where there are some, like `[--fail-on danger|warning]`), `[--env NAME]...` when repeatable.
 */
export function usageOf(table: OptionTable): string {
  return Object.entries(table)
    .map(([name, o]) => {
      if (o.type === 'boolean') return `[--${name}]`;
      const value = o.choices ? o.choices.join('|') : (o.value ?? 'VALUE');
      return `[--${name} ${value}]${o.multiple ? '...' : ''}`;
    })
    .join(' ');
}

/** Whether `value` is one of `choices` (narrowing it to their type). */
export function isOneOf<T extends string>(choices: readonly T[], value: string): value is T {
  return choices.some((c) => c === value);
}
