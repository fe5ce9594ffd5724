/**
 * The generated files committed in the repository, by path: the reference pages and the editor
 * schemas. `npm run docs:reference` (scripts/generate-reference.mjs) writes them; a test renders
 * them again and fails when a committed one differs. Deterministic for a given package version.
 */
import { EDITOR_SCHEMA_FILES } from '../../config/editor-schema-url.js';
import { EXIT_CODES, loadCommands } from '../run.js';
import { commandsReference } from './commands-reference.js';
import { editorSchemaText } from './editor-schemas.js';
import { settingsReference } from './settings-reference.js';

/** Repository-relative path → text of every generated file, for capi-render `version`. */
export async function referenceFiles(version: string): Promise<Map<string, string>> {
  return new Map([
    ['docs/reference/commands.md', commandsReference({ commands: await loadCommands(), exitCodes: EXIT_CODES })],
    ['docs/reference/config.md', settingsReference()],
    [`schemas/${EDITOR_SCHEMA_FILES.config}`, editorSchemaText('config', version)],
    [`schemas/${EDITOR_SCHEMA_FILES.overlay}`, editorSchemaText('overlay', version)],
    [`schemas/${EDITOR_SCHEMA_FILES.lock}`, editorSchemaText('lock', version)],
  ]);
}
