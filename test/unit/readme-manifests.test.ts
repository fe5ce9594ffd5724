/**
 * The manifests the delivery guides show (docs/argocd.md: "Argo CD plugin and source hydrator";
 * docs/flux.md: "Flux OCI artifacts") are copy-pasteable: every Argo CD / Flux object is valid against
 * the real CRDs, the ApplicationSet expands to valid Applications, plugin.yaml is the shipped one,
 * and the capi-render settings shown pass capi-render's own schema.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { GITOPS_SCHEMA } from '../../src/config/config-schema.js';
import type { JsonObject } from 'capi-render';
import { expandApplicationSet } from '../helpers/applicationset.js';
import { CONSUMER_KINDS, consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

// The delivery guides (split out of README.md) hold every delivery manifest.
const section = ['docs/argocd.md', 'docs/flux.md'].map((f) => readFileSync(path.join(REPO_ROOT, f), 'utf8')).join('\n');
// YAML blocks, and what console transcripts show of a YAML file (`$ cat gitops/….yaml`, or its
// first documents with `$ head -n N`): the generated files the guides show as they are (the
// transcript test keeps those equal to the files).
const catOutputs = [...section.matchAll(/```console\n([^]*?)```/g)].flatMap((m) =>
  m[1]!
    .split(/^(?=\$ )/m)
    .filter((c) => /^\$ (cat|head -n \d+) \S+\.yaml\n/.test(c))
    .map((c) => c.slice(c.indexOf('\n') + 1)),
);
const blocks = [...[...section.matchAll(/```yaml\n([^]*?)```/g)].map((m) => m[1]!), ...catOutputs];
const documents = blocks.flatMap((b) =>
  jsYaml.loadAll(b).filter((d): d is JsonObject => typeof d === 'object' && d !== null),
);
const kindOf = (d: JsonObject) => `${d.apiVersion}/${d.kind}`;

describe('README delivery manifests', () => {
  it('has the sections and their manifests', () => {
    for (const heading of ['## Argo CD plugin and source hydrator', '## Flux OCI artifacts'])
      expect(section).toContain(heading);
    const kinds = documents.map(kindOf);
    for (const k of [
      'argoproj.io/v1alpha1/ApplicationSet',
      'argoproj.io/v1alpha1/Application',
      'source.toolkit.fluxcd.io/v1/OCIRepository',
      'kustomize.toolkit.fluxcd.io/v1/Kustomization',
      'argoproj.io/v1alpha1/ConfigManagementPlugin',
    ]) {
      expect(kinds).toContain(k);
    }
  });

  it('every Argo CD and Flux object is valid against its CRD (Argo CD v3.5.1, source-controller v1.9.1, kustomize-controller v1.9.4)', () => {
    const objects = documents.filter((d) => CONSUMER_KINDS.includes(kindOf(d)));
    expect(objects.length).toBeGreaterThanOrEqual(8);
    for (const o of objects)
      expect(consumerSchemaProblems(o), `${o.kind}/${(o.metadata as JsonObject).name}`).toEqual([]);
  });

  it('the ApplicationSet expands to one valid Application per environment, each with its destination', () => {
    const set = documents.find((d) => d.kind === 'ApplicationSet')!;
    const apps = expandApplicationSet(set);
    expect(apps.map((a) => (a.spec as JsonObject).destination)).toEqual([
      { name: 'mgmt-prod-eu' },
      { server: 'https://mgmt-staging.example.com:6443' },
    ]);
    for (const a of apps) expect(consumerSchemaProblems(a)).toEqual([]);
  });

  it('plugin.yaml is the one deploy/argocd-cmp ships', () => {
    const shown = documents.find((d) => d.kind === 'ConfigManagementPlugin');
    expect(shown).toEqual(jsYaml.load(readFileSync(path.join(REPO_ROOT, 'deploy/argocd-cmp/plugin.yaml'), 'utf8')));
  });

  it('the capi-render settings shown are valid gitops blocks', () => {
    const validate = new Ajv({ strict: false }).compile(GITOPS_SCHEMA);
    const settings = documents.filter((d) => d.gitops !== undefined);
    expect(settings.length).toBeGreaterThanOrEqual(2);
    for (const s of settings) expect(validate(s.gitops), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("the example's own gitops/ folder", () => {
  it('every object is valid against its CRD, and kubectl kustomize builds the Flux folder', async () => {
    const { spawnSync } = await import('node:child_process');
    const { listFiles } = await import('../../src/output/list-files.js');
    const dir = path.join(REPO_ROOT, 'gitops');
    const files = (await listFiles(dir)).filter((f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      for (const o of jsYaml.loadAll(readFileSync(path.join(dir, f), 'utf8')) as JsonObject[])
        expect(consumerSchemaProblems(o), `${f}: ${o.kind}`).toEqual([]);
    }
    const built = spawnSync('kubectl', ['kustomize', path.join(dir, 'flux/dev')], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    expect((jsYaml.loadAll(built.stdout) as JsonObject[]).map((o) => o.kind)).toEqual(Array(5).fill('Kustomization'));
  });
});
