/**
 * Every `--help` lists every option its command accepts, and nothing it does not: the help text is
 * compared with the parser's option table (the command's own options plus the global ones).
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandHelp, commandOptions } from '../../src/cli/run.js';

describe('command help', () => {
  it.each(Object.keys(COMMANDS))('%s --help lists exactly the options the parser accepts', async (name) => {
    const command = await COMMANDS[name]!();
    const help = commandHelp(command);
    const optionsSection = help.slice(help.indexOf('Options:'));
    const listed = new Set([...optionsSection.matchAll(/^ {2}(?:-\w, )?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]));
    const accepted = new Set(Object.keys(commandOptions(command)));
    expect([...listed].sort()).toEqual([...accepted].sort());
    // The usage line names only options that exist.
    for (const m of help.split('\n')[0]!.matchAll(/--([a-z][a-z0-9-]*)/g))
      expect(accepted.has(m[1]!), `usage names --${m[1]}`).toBe(true);
  });
});
