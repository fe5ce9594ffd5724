/**
 * The ApplicationSet through real builds of the example: prod and a second Argo CD environment
 * (staging) with their own clusters, and the Flux-managed dev that must never appear in it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from 'capi-render';
import { parseSourceDocuments } from '../../src/declarations/yaml-document.js';
import { expandApplicationSet } from '../helpers/applicationset.js';
import { runCli } from '../helpers/cli.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { copyExample } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const SET = 'gitops/argocd/applicationset.yaml';

function fleetRepo(): string {
  const repo = copyExample({ committed: true });
  const prod = path.join(repo, 'overlays/prod/overlay.yaml');
  writeFileSync(
    prod,
    readFileSync(prod, 'utf8').replace(
      '    application: true\n',
      '    applicationSet: true\n    destination:\n      name: mgmt-prod-eu\n',
    ),
  );
  mkdirSync(path.join(repo, 'overlays/staging'));
  writeFileSync(
    path.join(repo, 'overlays/staging/overlay.yaml'),
    [
      'apiVersion: capi-render/v1alpha1',
      'kind: Overlay',
      'resources:',
      '  - ../prod',
      'gitops:',
      '  argocd:',
      '    destination:',
      '      server: https://mgmt-staging.example.com:6443',
      '    project: staging',
      '',
    ].join('\n'),
  );
  return repo;
}

const applications = (repo: string) =>
  expandApplicationSet(parseSourceDocuments(readFileSync(path.join(repo, SET), 'utf8'), SET)[0]!.value as JsonObject);

describe('the ApplicationSet of a fleet, built', () => {
  it('prod + staging (Argo CD) + dev (Flux) → exactly two Applications, each with its own destination; partial builds keep the others', async () => {
    const repo = fleetRepo();
    const env = { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') };
    const r = await runCli(['build', '--allow-removal'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const apps = applications(repo);
    expect(
      apps.map((a) => [
        (a.metadata as JsonObject).name,
        (a.spec as JsonObject).project,
        (a.spec as JsonObject).destination,
        ((a.spec as JsonObject).source as JsonObject).path,
      ]),
    ).toEqual([
      ['capi-prod', 'default', { name: 'mgmt-prod-eu' }, 'rendered/prod'],
      ['capi-staging', 'staging', { server: 'https://mgmt-staging.example.com:6443' }, 'rendered/staging'],
    ]);
    for (const app of apps) expect(consumerSchemaProblems(app)).toEqual([]);
    // The single Application prod had before is gone with the switch (it was capi-render's file).
    expect(existsSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'))).toBe(false);
    expect((await runCli(['check'], { cwd: repo, env })).code).toBe(0);

    // A build of one environment still lists every Argo CD environment.
    const before = readFileSync(path.join(repo, SET), 'utf8');
    expect((await runCli(['build', '--env', 'prod'], { cwd: repo, env })).code).toBe(0);
    expect(readFileSync(path.join(repo, SET), 'utf8')).toBe(before);

    // Retiring staging (overlay and output together) drops its element.
    rmSync(path.join(repo, 'overlays/staging'), { recursive: true });
    rmSync(path.join(repo, 'rendered/staging'), { recursive: true });
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    expect(applications(repo).map((a) => (a.metadata as JsonObject).name)).toEqual(['capi-prod']);

    // No environment asks any more: the file is removed.
    const prod = path.join(repo, 'overlays/prod/overlay.yaml');
    writeFileSync(prod, readFileSync(prod, 'utf8').replace('    applicationSet: true\n', ''));
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    expect(existsSync(path.join(repo, SET))).toBe(false);
  }, 60_000);

  it.each([
    {
      name: 'staging inherits prod’s cluster from its base overlay → both on one cluster',
      edit: (repo: string) => edit(repo, 'overlays/staging/overlay.yaml', /    destination:\n      server: .*\n/, ''),
      message:
        /^overlays\/staging\/overlay\.yaml: error\[destination\]: environments prod and staging both install Cluster API into cluster mgmt-prod-eu/m,
    },
    {
      name: 'no destination anywhere for prod',
      edit: (repo: string) => edit(repo, 'overlays/prod/overlay.yaml', /    destination:\n      name: .*\n/, ''),
      message:
        /^overlays\/prod\/overlay\.yaml: error\[destination\]: environment prod has no Argo CD destination; Argo CD deploys several environments \(prod, staging\)/m,
    },
  ])(
    '$name: the build fails naming the environment and its overlay; nothing is written',
    async ({ edit: change, message }) => {
      const repo = fleetRepo();
      change(repo);
      const r = await runCli(['build', '--allow-removal'], {
        cwd: repo,
        env: { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(existsSync(path.join(repo, 'rendered/staging'))).toBe(false);
    },
    60_000,
  );
});

function edit(repo: string, file: string, from: RegExp, to: string): void {
  const full = path.join(repo, file);
  const text = readFileSync(full, 'utf8');
  expect(text).toMatch(from);
  writeFileSync(full, text.replace(from, to));
}
