/**
 * docs/reference/commands.md: every command with its summary, usage line and every option with its
 * help text (the same tables `--help` prints and the parser reads), the global options and the exit
 * codes. Pure and deterministic (the commands in their table's order, no dates or paths).
 */
import type { Command } from '../command.js';
import { GLOBAL_HELP_PAIRS } from '../global-options.js';
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
    ...optionTable(GLOBAL_HELP_PAIRS, undefined),
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
  // A command's fixed words (`cache info`) are its help's rows that are not flags.
  const words = c.help.filter(([flag]) => !flag.startsWith('-'));
  const flags = c.help.filter(([flag]) => flag.startsWith('-'));
  return [
    `### ${c.name}`,
    '',
    `${prose(capitalise(c.summary))}.`,
    '',
    '```text',
    `capi-render ${c.name} ${c.usage}`,
    '```',
    ...(words.length > 0
      ? [
          '',
          '| Argument | Meaning |',
          '| --- | --- |',
          ...words.map(([word, text]) => `| \`${word}\` | ${cell(text)} |`),
        ]
      : []),
    ...(flags.length > 0 ? ['', ...optionTable(flags, c)] : []),
    '',
    'And the [global options](#global-options).',
  ];
}

function optionTable(pairs: readonly [string, string][], command: Command | undefined): string[] {
  return [
    '| Option | Meaning |',
    '| --- | --- |',
    ...pairs.map(([flag, text]) => {
      const name = /--([a-z0-9][a-z0-9-]*)/.exec(flag)?.[1];
      const fixed = name !== undefined ? command?.choices?.[name] : undefined;
      const choices = fixed ? `; one of ${fixed.map((v) => `\`${v}\``).join(', ')}` : '';
      return `| \`${flag}\` | ${cell(text)}${choices} |`;
    }),
  ];
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
