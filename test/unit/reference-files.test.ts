/**
 * The generated files are committed in step with their sources: docs/reference/commands.md (the CLI's
 * command and option tables), docs/reference/config.md and the editor schemas (the loaders' schemas
 * and their descriptions). And every setting has a description, so none ships undocumented.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DESCRIPTIONS } from '../../src/config/config-descriptions.js';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.js';
import { OVERLAY_DESCRIPTIONS } from '../../src/overlay/overlay-descriptions.js';
import { OVERLAY_SCHEMA } from '../../src/overlay/overlay-schema.js';
import { commandUsage } from '../../src/cli/command.js';
import { COMMANDS, EXIT_CODES } from '../../src/cli/run.js';
import { EDITOR_SCHEMA_SOURCES, schemaSettings } from '../../src/cli/reference/editor-schemas.js';
import { referenceFiles } from '../../src/cli/reference/reference-files.js';
import { REGENERATE } from '../../src/cli/reference/settings-reference.js';
import { packageVersion } from '../../src/package-files.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

const files = await referenceFiles(packageVersion());

describe('generated reference and editor schemas', () => {
  it.each([...files.keys()])('%s is up to date', (file) => {
    const committed = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    // One message that says what to run, rather than a diff of a generated file to copy by hand.
    expect(committed === files.get(file), `${file} is stale: run \`${REGENERATE}\` and commit the result`).toBe(true);
  });

  it('generating twice gives the same bytes', async () => {
    expect(await referenceFiles(packageVersion())).toEqual(files);
  });

  it('commands.md names every command, usage line, option and exit code', async () => {
    const page = files.get('docs/reference/commands.md')!;
    for (const name of Object.keys(COMMANDS)) {
      const command = await COMMANDS[name]!();
      const start = page.indexOf(`\n### ${name}\n`);
      const next = page.indexOf('\n### ', start + 1);
      expect(start, name).toBeGreaterThan(0);
      const section = page.slice(start, next < 0 ? undefined : next);
      expect(section, name).toContain(`capi-render ${name} ${commandUsage(command)}`);
      for (const [option, { choices }] of Object.entries(command.options)) {
        expect(section, `${name} --${option}`).toMatch(new RegExp(`\\| \`(-\\w, )?--${option}[ \`]`));
        if (choices) expect(section).toContain(`one of ${choices.map((v) => `\`${v}\``).join(', ')}`);
      }
    }
    for (const { code } of EXIT_CODES) expect(page).toMatch(new RegExp(`^\\| ${code} \\| `, 'm'));
    expect(page).toContain('| `--repo DIR` |');
  });

  it.each([
    ['capi-render.yaml', CONFIG_SCHEMA, CONFIG_DESCRIPTIONS, CONFIG_DESCRIPTIONS],
    ['overlay.yaml', OVERLAY_SCHEMA, OVERLAY_DESCRIPTIONS, EDITOR_SCHEMA_SOURCES.overlay.descriptions],
  ])('every setting of %s has a description, and every description names a setting', (_file, schema, own, all) => {
    const paths = schemaSettings(schema).map((s) => s.path);
    expect(
      paths.filter((p) => all[p] === undefined),
      'settings without a description (add them to src/config/config-descriptions.ts or src/overlay/overlay-descriptions.ts)',
    ).toEqual([]);
    expect(
      Object.keys(own).filter((p) => !paths.includes(p)),
      'descriptions of no setting',
    ).toEqual([]);
  });

  it('config.md has a row for every setting of capi-render.yaml and every setting of overlay.yaml of its own', () => {
    const page = files.get('docs/reference/config.md')!;
    for (const { path: p } of schemaSettings(CONFIG_SCHEMA)) expect(page).toContain(`| \`${p}\``);
    for (const p of Object.keys(OVERLAY_DESCRIPTIONS)) expect(page).toContain(`| \`${p}\``);
  });
});
