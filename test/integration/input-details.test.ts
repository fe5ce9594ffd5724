/**
 * The small things a new user notices: what the build summary counts, when there is colour, `.json`
 * inputs, YAML merge keys in human-edited files, and a Helm template committed by mistake.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useColor } from '../../src/cli/io.js';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (extra = '') =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n${extra}`;
const env = () => ({ CAPI_RENDER_CACHE_DIR: tempDir() });

describe('build summary', () => {
  it('counts unchanged and gitops files, and on a partial no-op build only the requested environment', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('gitops:\n  flavour: flux\n'),
      'providers/core.yaml': CORE(),
      'overlays/dev/overlay.yaml': overlay(),
      'overlays/prod/overlay.yaml': overlay(),
    });
    const e = env();
    const first = await runCli(['build'], { cwd: repo, env: e });
    expect(first.code, first.stderr).toBe(0);
    const written = /rendered: (\d+) written, 0 unchanged, 0 removed; gitops: (\d+) written/.exec(first.stderr);
    expect(written, first.stderr).not.toBeNull();
    const [all, gitops] = [Number(written![1]), Number(written![2])];
    expect(gitops).toBeGreaterThan(0);
    const again = await runCli(['build'], { cwd: repo, env: e });
    expect(again.stderr).toContain(
      `rendered: 0 written, ${all} unchanged, 0 removed; gitops: 0 written, ${gitops} unchanged, 0 removed; capi-render.lock unchanged`,
    );
    const dev = await runCli(['build', '--env', 'dev'], { cwd: repo, env: e });
    expect(dev.stderr).toContain(
      `rendered: 0 written, ${all / 2} unchanged, 0 removed; gitops: 0 written, ${gitops / 2} unchanged`,
    );
  });
});

describe('colour', () => {
  const tty = { write: () => undefined, isTTY: true };
  it.each([
    { env: {}, tty: true, colour: true },
    { env: {}, tty: false, colour: false },
    { env: { NO_COLOR: '1' }, tty: true, colour: false },
    // no-color.org: only a non-empty value disables colour.
    { env: { NO_COLOR: '' }, tty: true, colour: true },
    { env: { TERM: 'dumb' }, tty: true, colour: false },
    { env: { TERM: 'xterm-256color' }, tty: true, colour: true },
  ])('$env on a tty=$tty → colour $colour', ({ env: vars, tty: isTTY, colour }) => {
    expect(useColor({ stdout: tty, stderr: { ...tty, isTTY }, env: vars, cwd: '/' })).toBe(colour);
  });
});

describe('human-edited inputs', () => {
  it('reads .json files in providers/ (JSON is YAML)', async () => {
    const repo = makeRepo({
      'providers/core.json': JSON.stringify({
        apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
        kind: 'CoreProvider',
        metadata: { name: 'cluster-api', namespace: 'capi-system' },
        spec: { version: 'v1.12.0' },
      }),
    });
    const r = await runCli(['build'], { cwd: repo, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('rendered default: cert-manager v1.19.4, cluster-api v1.12.0');
    // A mistake in it is reported with its position, like any input.
    writeFileSync(
      path.join(repo, 'providers/core.json'),
      '{"apiVersion": "operator.cluster.x-k8s.io/v1alpha2", "kind": "CoreProvider",\n "metadata": {"name": "cluster-api", "namespace": "capi-system"}, "spec": {"verison": "v1.12.0"}}',
    );
    const bad = await runCli(['build'], { cwd: repo, env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/providers\/core\.json:2:\d+: error\[schema\]: .*did you mean "version"/);
  });

  it('merges YAML merge keys in providers, overlays and capi-render.yaml, and validates the merged result', async () => {
    const repo = makeRepo({
      'capi-render.yaml': `${configYaml()}gitops:\n  <<: {flavour: kustomize}\n`,
      'providers/core.yaml': `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  <<: &spec\n    version: v1.12.0\n  manager:\n    <<: {verbosity: 2}\n`,
      'overlays/dev/overlay.yaml': overlay('labels: &team\n  team: capi\ngitops:\n  <<: {flavour: flux}\n'),
    });
    const r = await runCli(['build'], { cwd: repo, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('rendered dev: cert-manager v1.19.4, cluster-api v1.12.0');
    // The overlay's merged flavour won over capi-render.yaml's: Flux Kustomizations were written.
    expect(r.stderr).toMatch(/gitops: [1-9]\d* written/);
    // What a merge key brings in is validated like anything else.
    writeFileSync(
      path.join(repo, 'providers/core.yaml'),
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n  <<: {deploymnet: {}}\n`,
    );
    const bad = await runCli(['build'], { cwd: repo, env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('did you mean "deployment"?');
    expect(bad.stderr).not.toContain('<<');
  });

  it.each([
    {
      name: 'a templated value',
      text: `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: {{ .Values.name }}\n  namespace: capi-system\nspec:\n  version: v1.12.0\n`,
      line: 4,
    },
    { name: 'template control lines', text: `{{- if .Values.enabled }}\n${CORE()}{{- end }}\n`, line: 1 },
  ])('refuses a Helm template ($name) with one error and the hint to render it first', async ({ text, line }) => {
    const repo = makeRepo({ 'providers/core.yaml': text });
    const r = await runCli(['build'], { cwd: repo, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/error\[/g)).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^providers/core\\.yaml:${line}:\\d+: error\\[yaml-syntax\\]: this looks like an unrendered template`,
        'm',
      ),
    );
    expect(r.stderr).toContain('helm template');
    expect(r.stderr).not.toContain('[object Object]');
  });
});
