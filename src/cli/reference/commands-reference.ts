/**
 * docs/reference/commands.md: every command with its summary, usage line and every option with its
 * help text (the same tables `--help` prints and the parser reads), the global options and the exit
 * codes. Pure and deterministic (the commands in their table's order, no dates or paths).
 */
import { commandUsage, type Command } from '../command.js';
import { GLOBAL_OPTIONS } from '../global-options.js';
import { flagText, type OptionTable } from '../options.js';
import { cell, prose } from './markdown-text.js';
import { REGENERATE } from './settings-reference.js';

/** What the page is made of; `run.ts` holds both tables (loadCommands, EXIT_CODES). */
export interface CommandsReferenceInput {
  commands: readonly Command[];
  exitCodes: readonly { code: number; meaning: string }[];
}

/** The markdown of docs/reference/commands.md. */
export function commandsReference({ commands, exitCodes }: CommandsReferenceInput): string {
  const lines = [
    '# Command reference',
    '',
    `<!-- Generated from the CLI's command and option tables (src/cli/commands/, src/cli/global-options.ts) by \`${REGENERATE}\`; do not edit. -->`,
    '',
    'Every command and every option it accepts; `capi-render <command> --help` prints the same.',
    '',
    '```text',
    'capi-render [global options] <command> [options]',
    '```',
    '',
    '## Global options',
    '',
    'Before or after the command (`capi-render --repo DIR build` and `capi-render build --repo DIR` are one).',
    '',
    ...optionTable(GLOBAL_OPTIONS),
    '',
    '## Exit codes',
    '',
    '| Code | Meaning |',
    '| --- | --- |',
    ...exitCodes.map((e) => `| ${e.code} | ${cell(e.meaning)} |`),
    '',
    '## Commands',
    '',
    ...commands.map((c) => `- [\`${c.name}\`](#${c.name}) — ${prose(c.summary)}`),
  ];
  for (const command of commands) lines.push('', ...commandSection(command));
  return `${lines.join('\n')}\n`;
}

function commandSection(c: Command): string[] {
  const words = Object.entries(c.arguments?.help ?? {});
  const flags = Object.keys(c.options).length > 0;
  return [
    `### ${c.name}`,
    '',
    `${prose(capitalise(c.summary))}.`,
    '',
    '```text',
    `capi-render ${c.name} ${commandUsage(c)}`,
    '```',
    ...(words.length > 0
      ? [
          '',
          '| Argument | Meaning |',
          '| --- | --- |',
          ...words.map(([word, text]) => `| \`${word}\` | ${cell(text)} |`),
        ]
      : []),
    ...(flags ? ['', ...optionTable(c.options)] : []),
    '',
    'And the [global options](#global-options).',
  ];
}

/**
 * One row per option, its fixed values after its text; then the rows of its further help (a
 * combination with other options; a continued text, its flag cell left empty).
 */
function optionTable(table: OptionTable): string[] {
  return [
    '| Option | Meaning |',
    '| --- | --- |',
    ...Object.entries(table).flatMap(([name, o]) => {
      const choices = o.choices ? `; one of ${o.choices.map((v) => `\`${v}\``).join(', ')}` : '';
      return [
        `| \`${flagText(name, o)}\` | ${cell(o.help)}${choices} |`,
        ...(o.moreHelp ?? []).map(([flag, text]) => `| ${flag ? `\`${flag}\`` : ''} | ${cell(text)} |`),
      ];
    }),
  ];
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
