/**
 * The settings the manual shows are settings capi-render accepts: every YAML block in
 * README.md and docs/ that is a capi-render.yaml or an overlay — a whole document (`kind: Config` /
 * `kind: Overlay`), a block whose comment names the file, or a fragment made only of capi-render.yaml
 * keys — validates against the JSON Schemas shipped for editors (schemas/*.schema.json).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { fencedBlocks, manualFiles, readManual } from '../helpers/markdown.js';

type Kind = 'Config' | 'Overlay';
const schemaFile: Record<Kind, string> = {
  Config: 'schemas/capi-render.schema.json',
  Overlay: 'schemas/overlay.schema.json',
};
const schemas = Object.fromEntries(
  Object.entries(schemaFile).map(([k, f]) => [
    k,
    JSON.parse(readFileSync(path.join(REPO_ROOT, f), 'utf8')) as { properties: Record<string, unknown> },
  ]),
) as Record<Kind, { properties: Record<string, unknown> }>;
const validators = Object.fromEntries(
  Object.entries(schemas).map(([k, s]) => [k, new Ajv({ strict: false, allErrors: true }).compile(s)]),
) as Record<Kind, ReturnType<Ajv['compile']>>;

/** Which file a block shows, from its document's kind, a comment naming the file, or its keys. */
function kindOf(lines: string[], doc: Record<string, unknown>): Kind | undefined {
  if (doc.kind === 'Config' || doc.kind === 'Overlay') return doc.kind;
  if (doc.apiVersion !== undefined || doc.kind !== undefined) return undefined;
  // The file a block shows is named by the comment just above its first key (`# capi-render.yaml`,
  // `# overlays/prod/overlay.yaml`), or by a comment on that key's line.
  const first = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const above = lines.slice(0, Math.max(first, 0)).filter((l) => l.trimStart().startsWith('#'));
  const comment =
    above.at(-1) ??
    (first >= 0 && lines[first]!.includes(' #') ? lines[first]!.slice(lines[first]!.indexOf(' #')) : '');
  if (/overlay\.yaml/.test(comment) && !/capi-render\.yaml/.test(comment)) return 'Overlay';
  if (/capi-render\.yaml/.test(comment)) return 'Config';
  const keys = Object.keys(doc);
  return keys.length > 0 && keys.every((k) => k in schemas.Config.properties) ? 'Config' : undefined;
}

const shown = manualFiles(REPO_ROOT).flatMap((file) =>
  fencedBlocks(readManual(REPO_ROOT, file))
    .filter((b) => b.lang === 'yaml')
    .flatMap((b) =>
      parseAllDocuments(b.lines.join('\n')).flatMap((d, i) => {
        const doc = d.toJS() as unknown;
        if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return [];
        const kind = kindOf(b.lines, doc as Record<string, unknown>);
        return kind
          ? [
              {
                where: `${file}:${b.line} (document ${i + 1})`,
                kind,
                doc: { apiVersion: 'capi-render/v1alpha1', kind, ...doc },
              },
            ]
          : [];
      }),
    ),
);

describe('settings shown in the manual', () => {
  it('include the full capi-render.yaml and overlay references and the fragments of the guides', () => {
    expect(shown.filter((s) => s.kind === 'Config').length).toBeGreaterThanOrEqual(8);
    expect(shown.filter((s) => s.kind === 'Overlay').length).toBeGreaterThanOrEqual(3);
  });

  it.each(shown.map((s) => [s.where, s] as const))(
    '%s validates against the shipped schema',
    (_where, { kind, doc }) => {
      const validate = validators[kind];
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    },
  );
});
