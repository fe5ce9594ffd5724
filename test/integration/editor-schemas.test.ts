/**
 * The shipped JSON Schemas (schemas/capi-render.schema.json, schemas/overlay.schema.json) accept what
 * the loaders accept and refuse what they refuse: the example's files, everything `init` writes, and
 * a table of broken documents, each checked by both. Validated with Ajv as an editor's language
 * server would, from the committed files (the freshness test keeps those equal to the generator's).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parseConfig } from '../../src/config/load-config.js';
import { editorSchemaUrl, schemaModeline } from '../../src/config/editor-schema-url.js';
import { SpecError } from '../../src/errors.js';
import { loadOverlay } from '../../src/overlay/load-overlay.js';
import { packageVersion } from '../../src/package-files.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

type Kind = 'config' | 'overlay';
const SCHEMA_FILE: Record<Kind, string> = {
  config: 'schemas/capi-render.schema.json',
  overlay: 'schemas/overlay.schema.json',
};

// Compiled with the meta-schema check on (Ajv's default): each file must be a valid draft-07 schema.
// strictRequired off as in load-overlay.ts: a oneOf branch's `required` names a property of its parent.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const schemas = Object.fromEntries(
  (Object.keys(SCHEMA_FILE) as Kind[]).map((k) => [
    k,
    JSON.parse(readFileSync(path.join(REPO_ROOT, SCHEMA_FILE[k]), 'utf8')) as Record<string, unknown>,
  ]),
) as Record<Kind, Record<string, unknown>>;
const validators = Object.fromEntries(
  (Object.keys(SCHEMA_FILE) as Kind[]).map((k) => [k, ajv.compile(schemas[k])]),
) as Record<Kind, ValidateFunction>;

/** Whether the loader accepts `text` as a file of `kind` (capi-render.yaml or an overlay.yaml). */
async function loaderAccepts(kind: Kind, text: string): Promise<boolean> {
  try {
    if (kind === 'config') parseConfig(text, 'capi-render.yaml');
    else {
      const repo = tempDir();
      mkdirSync(path.join(repo, 'overlays/x'), { recursive: true });
      writeFileSync(path.join(repo, 'overlays/x/overlay.yaml'), text);
      await loadOverlay(repo, 'overlays/x/overlay.yaml');
    }
    return true;
  } catch (e) {
    if (e instanceof SpecError) return false;
    throw e;
  }
}

function schemaAccepts(kind: Kind, text: string): boolean {
  return validators[kind](YAML.parse(text));
}

describe('editor JSON Schemas', () => {
  it.each(Object.keys(SCHEMA_FILE) as Kind[])(
    '%s: draft-07 with the $id init links to, a title, and a description on every setting',
    (kind) => {
      const schema = schemas[kind];
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(schema.$id).toBe(editorSchemaUrl(kind, packageVersion()));
      expect(schema.title).toEqual(expect.any(String));
      const undescribed: string[] = [];
      const walk = (node: Record<string, unknown>, at: string) => {
        for (const [name, child] of Object.entries(
          (node.properties as Record<string, Record<string, unknown>>) ?? {},
        )) {
          if (typeof child.description !== 'string') undescribed.push(`${at}${name}`);
          walk(child, `${at}${name}.`);
        }
        for (const key of ['items', 'additionalProperties'] as const)
          if (node[key] && typeof node[key] === 'object')
            walk(node[key] as Record<string, unknown>, `${at}${key === 'items' ? '[]' : '*'}.`);
        for (const alt of (node.anyOf as Record<string, unknown>[]) ?? []) walk(alt, at);
      };
      walk(schema, '');
      expect(undescribed).toEqual([]);
    },
  );

  it("accepts the example's capi-render.yaml and overlays, whose first line names the committed schema", () => {
    const files: [Kind, string][] = [
      ['config', 'capi-render.yaml'],
      ...readdirSync(path.join(REPO_ROOT, 'overlays')).map((env): [Kind, string] => [
        'overlay',
        `overlays/${env}/overlay.yaml`,
      ]),
    ];
    expect(files.length).toBeGreaterThan(2);
    for (const [kind, file] of files) {
      const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
      const target = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
      // Relative to the file (yaml-language-server resolves it from the file's folder).
      expect(target && path.resolve(path.dirname(path.join(REPO_ROOT, file)), target), file).toBe(
        path.join(REPO_ROOT, SCHEMA_FILE[kind]),
      );
      expect(schemaAccepts(kind, text), `${file}: ${ajv.errorsText(validators[kind].errors)}`).toBe(true);
    }
  });

  // The init choices init.test.ts, renovate.test.ts, shards.test.ts and first-run.test.ts exercise.
  it.each([
    [[]],
    [
      [
        '--flavour',
        'flux',
        '--version',
        'v1.12.0',
        '--cert-manager-version',
        'v1.19.4',
        '--local-repository',
        `${FIXTURES}repository`,
        '--allow-outside',
      ],
    ],
    [['--flavour', 'argocd', '--env', 'prod-eu']],
    [['--flavour', 'kustomize', '--version', '1.12', '--local-repository', `${FIXTURES}repository`, '--allow-outside']],
    [['--version', '~1.12', '--infrastructure', 'aws']],
    [['--version', '~1.12', '--infrastructure-version', 'v1.12.0', '--cert-manager-version', 'v1.16.1']],
    [['--shards', '4', '--version', 'v1.12.0', '--local-repository', `${FIXTURES}repository`, '--allow-outside']],
  ])('init %j writes files both schemas and the loaders accept, each naming its schema first', async (args) => {
    const repo = tempDir();
    const init = await runCli(['init', ...args], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
    const env = args.includes('--env') ? args[args.indexOf('--env') + 1]! : 'dev';
    for (const [kind, file] of [
      ['config', 'capi-render.yaml'],
      ['overlay', `overlays/${env}/overlay.yaml`],
    ] as [Kind, string][]) {
      const text = readFileSync(path.join(repo, file), 'utf8');
      expect(text.split('\n')[0]).toBe(schemaModeline(kind, packageVersion()));
      expect(schemaAccepts(kind, text), `${file}: ${ajv.errorsText(validators[kind].errors)}`).toBe(true);
      expect(await loaderAccepts(kind, text), file).toBe(true);
    }
  });

  const config = (rest: string) => `apiVersion: capi-render/v1alpha1\nkind: Config\n${rest}`;
  const overlay = (rest: string) => `apiVersion: capi-render/v1alpha1\nkind: Overlay\n${rest}`;
  it.each([
    { name: 'a misspelt key', kind: 'config', text: config('overlayDir: envs\n') },
    { name: 'another apiVersion', kind: 'config', text: 'apiVersion: capi-render/v1\nkind: Config\n' },
    { name: 'no kind', kind: 'config', text: 'apiVersion: capi-render/v1alpha1\n' },
    { name: 'an unknown flavour', kind: 'config', text: config('gitops: {flavour: helm}\n') },
    { name: 'a variable name that is none', kind: 'config', text: config('variables: {1BAD: x}\n') },
    { name: 'a token written in the file', kind: 'config', text: config('gitlab: {accessToken: glpat-xyz}\n') },
    {
      name: 'a Flux sourceRef without a name',
      kind: 'config',
      text: config('gitops: {flux: {sourceRef: {kind: GitRepository}}}\n'),
    },
    { name: 'a digest that is none', kind: 'config', text: config('gitops: {flux: {oci: {digest: latest}}}\n') },
    {
      name: 'an unknown secret mode',
      kind: 'config',
      text: config('secrets: {providers: {infrastructure-aws: hide}}\n'),
    },
    { name: 'an overlay key of capi-render.yaml', kind: 'overlay', text: overlay('outputDir: out\n') },
    {
      name: 'a patch with neither patch nor path',
      kind: 'overlay',
      text: overlay('patches: [{target: {kind: CoreProvider}}]\n'),
    },
    { name: 'a patch with both', kind: 'overlay', text: overlay('patches: [{patch: "[]", path: p.yaml}]\n') },
    { name: 'abstract as a string', kind: 'overlay', text: overlay('abstract: "yes"\n') },
    { name: 'a label that is a number', kind: 'overlay', text: overlay('labels: {replicas: 3}\n') },
  ] as { name: string; kind: Kind; text: string }[])(
    'refuses $name ($kind), as the loader does',
    async ({ kind, text }) => {
      expect(await loaderAccepts(kind, text)).toBe(false);
      expect(schemaAccepts(kind, text)).toBe(false);
    },
  );
});
