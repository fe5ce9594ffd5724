/**
 * The planned files of each flavour, written to a temp repository (`rendered/` + `gitops/`), must
 * build with the real kustomize (kubectl 1.32's) and yield exactly the rendered objects.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { applyGitopsFlavour, lastAppliedSize, type GitopsOptions } from '../../src/gitops/index.js';
import type { KubeObject } from 'capi-render';
import { annotationsOf, describeObject, labelsOf, nameOf } from '../../src/manifest/object.js';
import { serializeObject } from '../../src/manifest/serialize.js';
import { planEnvironment } from '../../src/plan/output-plan.js';
import { fixtureEnvironment } from '../helpers/gitops-environment.js';
import { skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const skipKustomize = skipWithout(
  spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'kubectl is not installed (https://kubernetes.io/docs/tasks/tools/)',
  'the kubectl kustomize builds of each flavour',
);

function kubectl(...args: string[]): string {
  return execFileSync('kubectl', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}
function build(dir: string): KubeObject[] {
  return (jsYaml.loadAll(kubectl('kustomize', dir), undefined, { schema: jsYaml.CORE_SCHEMA }) as KubeObject[]).filter(
    Boolean,
  );
}
const ids = (objects: readonly KubeObject[]) => objects.map(describeObject).sort();

/** Writes the output files under <repo>/rendered and the extra files relative to it; returns the repo root. */
function writeRepo(files: Map<string, string>, extra: Map<string, string>): string {
  const repo = tempDir('capi-render-gitops-');
  const out = path.join(repo, 'rendered');
  for (const [rel, text] of [...files, ...extra]) {
    const target = path.resolve(out, rel);
    expect(target.startsWith(repo + path.sep), rel).toBe(true);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return repo;
}

describe.skipIf(skipKustomize)('kubectl kustomize over the planned output of each flavour', () => {
  const input = fixtureEnvironment('mgmt', { certManager: true });
  const flavours: { flavour: GitopsOptions['flavour']; options: GitopsOptions; check: (o: KubeObject) => void }[] = [
    { flavour: 'kustomize', options: { flavour: 'kustomize' }, check: () => undefined },
    {
      flavour: 'argocd',
      options: {
        flavour: 'argocd',
        argocd: { application: true, applicationSet: true, repoURL: 'https://git.example.com/m.git' },
      },
      check: (o) => expect(annotationsOf(o)['argocd.argoproj.io/sync-wave']).toMatch(/^-[123]0$/),
    },
    {
      flavour: 'flux',
      options: { flavour: 'flux' },
      check: (o) => {
        if (o.kind === 'CustomResourceDefinition')
          expect(annotationsOf(o)['kustomize.toolkit.fluxcd.io/prune']).toBe('disabled');
      },
    },
  ];

  it.each(flavours)(
    '$flavour: rendered/<env> builds and yields every object, annotations intact',
    ({ options, check }) => {
      const result = applyGitopsFlavour(input, options);
      const repo = writeRepo(planEnvironment(result.environment), result.extraFiles);
      const built = build(path.join(repo, 'rendered', 'mgmt'));
      const expected = result.environment.components.flatMap((c) => c.objects);
      expect(ids(built)).toEqual(ids(expected));
      expect(built.length).toBe(expected.length);
      for (const o of built) check(o);
      // kustomize re-emits what we wrote: no caBundle and nothing lost on the CRDs.
      expect(built.map((o) => serializeObject(o)).join('')).not.toMatch(/caBundle: /);

      if (options.flavour === 'flux') {
        const ks = build(path.join(repo, 'gitops', 'flux', 'mgmt'));
        expect(ks.map((k) => k.kind)).toEqual(Array(5).fill('Kustomization'));
        for (const k of ks) {
          const folder = path.join(repo, (k.spec as { path: string }).path);
          const component = result.environment.components.find((c) => folder.endsWith(`/${c.name}`))!;
          expect(ids(build(folder))).toEqual(ids(component.objects));
        }
      }
      if (options.flavour === 'argocd') {
        const app = jsYaml.load(result.extraFiles.get('../gitops/argocd/applications/mgmt.yaml')!) as {
          spec: { source: { path: string } };
        };
        expect(ids(build(path.join(repo, app.spec.source.path)))).toEqual(ids(expected));
        // The ApplicationSet's directory generator (rendered/*) sees exactly the environments.
        expect(readdirSync(path.join(repo, 'rendered'))).toEqual(['mgmt']);
      }
    },
  );

  it('lastAppliedSize agrees byte for byte with kubectl’s own JSON encoding of real objects (the largest CRDs, a Deployment)', () => {
    const repo = tempDir('capi-render-size-');
    const objects = input.components.flatMap((c) => c.objects);
    for (const name of [
      'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
      'clusterclasses.cluster.x-k8s.io',
      'clusterissuers.cert-manager.io',
      'capi-controller-manager',
    ]) {
      const obj = objects.find((o) => nameOf(o) === name)!;
      const file = path.join(repo, `${name}.yaml`);
      writeFileSync(file, serializeObject(obj));
      // Re-setting an existing label to its value round-trips the object through kubectl's
      // unstructured JSON without a cluster and without changing it.
      const [label, value] = Object.entries(labelsOf(obj))[0]!;
      const pretty = kubectl('label', '--local', '--overwrite', '-f', file, '-o', 'json', `${label}=${value}`);
      const annotations = Object.entries(annotationsOf(obj)).reduce(
        (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
        0,
      );
      const key = 'kubectl.kubernetes.io/last-applied-configuration'.length;
      expect(lastAppliedSize(obj), name).toBe(key + Buffer.byteLength(compactJson(pretty)) + 1 + annotations);
    }
  });
});

/** Removes the whitespace outside strings, keeping Go's escapes (\u003c…) as they are. */
function compactJson(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (!/\s/.test(ch)) {
      out += ch;
      if (ch === '"') inString = true;
    }
  }
  return out;
}
