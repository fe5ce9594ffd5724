/**
 * Option tables (src/cli/options.ts): one declaration per option, from which the parser's values,
 * their types, help rows and usage lines are read — and the commands' tables are consistent.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { commandHelpRows, commandUsage } from '../../src/cli/command.js';
import { defineOptions, flagText, isOneOf, optionHelpRows, usageOf, type OptionValues } from '../../src/cli/options.js';
import { parseCommandArgs } from '../../src/cli/parse-argv.js';
import { loadCommands } from '../../src/cli/run.js';

const TABLE = defineOptions({
  env: { type: 'string', multiple: true, value: 'NAME', help: 'only this environment (repeatable)' },
  base: { type: 'string', value: 'REF', default: 'HEAD', help: 'the revision' },
  format: { type: 'string', value: 'F', choices: ['a', 'b'], help: 'the format' },
  json: {
    type: 'boolean',
    short: 'j',
    help: 'print JSON',
    moreHelp: [['', 'schema line']],
  },
});

describe('option tables', () => {
  it('type the parsed values by the table', () => {
    expectTypeOf<OptionValues<typeof TABLE>>().toEqualTypeOf<{
      readonly env: string[];
      readonly base: string;
      readonly format: string | undefined;
      readonly json: boolean;
    }>();
  });

  it('parse to those types: [] and false when not given, the default, each value given', () => {
    expect(parseCommandArgs([], TABLE).values).toEqual({ env: [], base: 'HEAD', format: undefined, json: false });
    expect(parseCommandArgs(['--env', 'a', '--env=b', '-j', '--base', 'main'], TABLE).values).toEqual({
      env: ['a', 'b'],
      base: 'main',
      format: undefined,
      json: true,
    });
  });

  it('give the help rows, flag texts and usage words', () => {
    expect(flagText('json', TABLE.json)).toBe('-j, --json');
    expect(optionHelpRows(TABLE)).toEqual([
      ['--env NAME', 'only this environment (repeatable)'],
      ['--base REF', 'the revision'],
      ['--format F', 'the format'],
      ['-j, --json', 'print JSON'],
      ['', 'schema line'],
    ]);
    expect(usageOf(TABLE)).toBe('[--env NAME]... [--base REF] [--format a|b] [--json]');
  });

  it('narrow a string to the fixed values', () => {
    const value: string = 'b';
    expect(isOneOf(['a', 'b'] as const, value)).toBe(true);
    expect(isOneOf(['a', 'b'], 'c')).toBe(false);
  });
});

describe("the commands' tables", () => {
  it('declare a value placeholder for each string option and none for a flag', async () => {
    for (const command of await loadCommands()) {
      for (const [name, o] of Object.entries(command.options)) {
        const where = `${command.name} --${name}`;
        if (o.type === 'string') expect(o.value, where).toMatch(/\S/);
        // A flag takes no value: none of these may be set (toEqual skips the undefined ones).
        else expect({ v: o.value, c: o.choices, d: o.default, o: o.optionalValue, m: o.multiple }, where).toEqual({});
        if (o.default !== undefined && o.choices) expect(o.choices, where).toContain(o.default);
      }
    }
  });

  it('give a synopsis only where it says more than the table', async () => {
    for (const command of await loadCommands()) {
      if (command.synopsis !== undefined) expect(command.synopsis, command.name).not.toBe(usageOf(command.options));
      expect(commandUsage(command).length, command.name).toBeGreaterThan(0);
    }
  });

  it('list fixed words (cache info|prune) before the options in help', async () => {
    const cache = (await loadCommands()).find((c) => c.name === 'cache')!;
    expect(commandHelpRows(cache).map(([flag]) => flag)).toEqual([
      'info',
      'prune',
      '--max-size S',
      '--cache-dir DIR',
      '--json',
    ]);
  });
});
