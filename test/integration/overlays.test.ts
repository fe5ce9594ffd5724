/**
 * Environments from overlays: composition, every patch kind, target selection, per-environment
 * provider add/remove, variable precedence, sharding, and the errors overlay mistakes get.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { type KubeObject, render } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { suiteTempDir } from '../helpers/tmp.js';

const DOCKER =
  'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n';
const overlay = (body: string) => `apiVersion: capi-render/v1alpha1\nkind: Overlay\n${body}`;

function objectOf(repo: string, rel: string): KubeObject {
  return jsYaml.load(readFileSync(path.join(repo, 'rendered', rel), 'utf8')) as KubeObject;
}
const deployment = (repo: string, env: string) =>
  objectOf(repo, `${env}/cluster-api/deployment-capi-controller-manager.yaml`) as unknown as {
    spec: {
      replicas: number;
      template: { spec: { containers: { args: string[]; image: string }[]; nodeSelector?: Record<string, string> } };
    };
  };

describe('overlay composition', () => {
  const repo = makeRepo(
    {
      'providers/core.yaml': CORE(),
      'providers/docker.yaml': DOCKER,
      'providers/vars.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: core-vars\n  namespace: capi-system\nstringData:\n  EXP_MACHINE_POOL: "from-secret"\n  CLUSTER_TOPOLOGY: "from-secret"\n',
      'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nsecrets:\n  notSecret: [EXP_MACHINE_POOL, CLUSTER_TOPOLOGY]\nrepositories:\n  - path: ${path.resolve('test/fixtures/repository')}\nvariables:\n  EXP_MACHINE_POOL: "from-config"\n  CLUSTER_TOPOLOGY: "from-config"\n  EXP_RUNTIME_SDK: "from-config"\n`,
      // A base overlay (not an environment) that gives the core provider a configSecret.
      'overlays/base/overlay.yaml': overlay(
        'abstract: true\nresources:\n  - ../../providers\npatches:\n  - target:\n      kind: CoreProvider\n    patch: |-\n      - op: add\n        path: /spec/configSecret\n        value: {name: core-vars}\nvariables:\n  EXP_RUNTIME_SDK: "from-base"\n  CLUSTER_TOPOLOGY: "from-base"\n',
      ),
      'overlays/dev/overlay.yaml': overlay('resources:\n  - ../base\n'),
      // Built on dev, which is built on base: three levels.
      'overlays/prod/overlay.yaml': overlay(
        [
          'resources:',
          '  - ../dev',
          'patches:',
          '  - patch: |-',
          '      apiVersion: operator.cluster.x-k8s.io/v1alpha2',
          '      kind: CoreProvider',
          '      metadata:',
          '        name: cluster-api',
          '        namespace: capi-system',
          '      spec:',
          '        deployment:',
          '          replicas: 3',
          '          nodeSelector: {tier: control-plane}',
          '  - target:',
          '      kind: Infra.*Provider',
          '      name: dock.r',
          '    patch: |-',
          '      - op: replace',
          '        path: /spec/version',
          '        value: v1.11.0',
          'variables:',
          '  CLUSTER_TOPOLOGY: "from-prod"',
          'images:',
          '  cluster-api:',
          '    repository: mirror.example.com/capi',
          '',
        ].join('\n'),
      ),
      'overlays/minimal/overlay.yaml': overlay(
        'resources:\n  - ../../providers/core.yaml\n  - ../../providers/vars.yaml\n',
      ),
    },
    suiteTempDir(),
  );

  beforeAll(async () => {
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
  });

  it('renders every non-abstract environment, each with its own providers and versions', () => {
    expect(snapshotTree(path.join(repo, 'rendered'))['dev/kustomization.yaml']).toBeDefined();
    expect(existsSync(path.join(repo, 'rendered/base'))).toBe(false);
    expect(existsSync(path.join(repo, 'rendered/minimal/infrastructure-docker'))).toBe(false);
    expect(objectOf(repo, 'prod/infrastructure-docker/provider-infrastructure-docker.yaml').version).toBe('v1.11.0');
    expect(objectOf(repo, 'dev/infrastructure-docker/provider-infrastructure-docker.yaml').version).toBe('v1.12.0');
  });

  it('applies strategic-merge patches and image overrides from the innermost overlay', () => {
    const prod = deployment(repo, 'prod');
    expect(prod.spec.replicas).toBe(3);
    expect(prod.spec.template.spec.nodeSelector).toEqual({ tier: 'control-plane' });
    expect(prod.spec.template.spec.containers[0]!.image).toBe('mirror.example.com/capi/cluster-api-controller:v1.12.0');
    expect(deployment(repo, 'dev').spec.replicas).toBe(1);
  });

  it('takes variables from overlay (innermost first), then configSecret, then capi-render.yaml', () => {
    const gates = (env: string) =>
      deployment(repo, env).spec.template.spec.containers[0]!.args.find((a) => a.startsWith('--feature-gates='))!;
    // CLUSTER_TOPOLOGY: prod overlay > base overlay > secret > config.
    expect(gates('prod')).toContain('ClusterTopology=from-prod');
    expect(gates('dev')).toContain('ClusterTopology=from-base');
    // EXP_MACHINE_POOL: only in the secret and config → the configSecret wins.
    expect(gates('dev')).toContain('MachinePool=from-secret');
    // EXP_RUNTIME_SDK: base overlay > config.
    expect(gates('dev')).toContain('RuntimeSDK=from-base');
    // minimal has no overlay variables and no configSecret → capi-render.yaml.
    expect(gates('minimal')).toContain('ClusterTopology=from-config');
  });

  it('shards are disjoint and their union is the full build', async () => {
    const full = await render({ repoRoot: repo });
    const union = new Map<string, string>();
    const names: string[][] = [];
    for (const k of [1, 2]) {
      const part = await render({ repoRoot: repo, shard: `${k}/2` });
      names.push(part.environments.map((e) => e.environment.name));
      for (const [p, t] of part.files) union.set(p, t);
    }
    expect(names[0]!.filter((n) => names[1]!.includes(n))).toEqual([]);
    expect([...names[0]!, ...names[1]!].sort()).toEqual(['dev', 'minimal', 'prod']);
    expect(new Map([...union.entries()].sort())).toEqual(new Map([...full.files.entries()].sort()));
  });

  it('--env renders one environment and keeps the others as they are', async () => {
    const before = snapshotTree(path.join(repo, 'rendered'));
    const r = await runCli(['build', '--env', 'dev'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(before);
  });

  it('inputs prints the effective CRs with secret values redacted', async () => {
    const r = await runCli(['inputs', '--env', 'prod'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'overlays: overlays/base/overlay.yaml → overlays/dev/overlay.yaml → overlays/prod/overlay.yaml',
    );
    expect(r.stdout).toMatch(/replicas: 3/);
    expect(r.stdout).toContain('EXP_MACHINE_POOL: <redacted>');
    expect(r.stdout).not.toContain('from-secret');
  });
});

describe('overlay mistakes', () => {
  const base = { 'providers/core.yaml': CORE(), 'providers/docker.yaml': DOCKER };
  const cases: {
    name: string;
    files: Record<string, string>;
    code: string;
    file: string;
    line?: number;
    text?: RegExp;
  }[] = [
    {
      name: 'a patch whose target matches nothing',
      files: {
        'overlays/a/overlay.yaml': overlay(
          'patches:\n  - target:\n      kind: IPAMProvider\n    patch: |-\n      - {op: remove, path: /spec/version}\n',
        ),
      },
      code: 'overlay',
      file: 'overlays/a/overlay.yaml',
      line: 4,
    },
    {
      name: 'a strategic-merge patch naming an object that does not exist',
      files: {
        'overlays/a/overlay.yaml': overlay(
          'patches:\n  - patch: |-\n      apiVersion: operator.cluster.x-k8s.io/v1alpha2\n      kind: CoreProvider\n      metadata: {name: capi, namespace: capi-system}\n      spec: {version: v1.11.0}\n',
        ),
      },
      code: 'overlay',
      file: 'overlays/a/overlay.yaml',
      text: /matches no object/,
    },
    {
      name: 'a cycle between overlays',
      files: {
        'overlays/a/overlay.yaml': overlay('resources: [../b]\n'),
        'overlays/b/overlay.yaml': overlay('resources: [../a]\n'),
      },
      code: 'overlay',
      file: 'overlays/',
      text: /cycle/,
    },
    {
      name: 'a base that does not exist',
      files: { 'overlays/a/overlay.yaml': overlay('resources:\n  - ../../providers\n  - ../../nothing-here\n') },
      code: 'overlay',
      file: 'overlays/a/overlay.yaml',
      line: 5,
    },
    {
      name: 'a schema violation introduced by a patch, reported at the patch',
      files: {
        'overlays/a/overlay.yaml': overlay(
          'patches:\n  - target:\n      kind: CoreProvider\n    patch: |-\n      - op: add\n        path: /spec/deployment\n        value: {replicas: many}\n',
        ),
      },
      code: 'schema',
      file: 'overlays/a/overlay.yaml',
      line: 4,
    },
    {
      name: 'an unknown overlay field',
      files: { 'overlays/a/overlay.yaml': overlay('patchez: []\n') },
      code: 'overlay',
      file: 'overlays/a/overlay.yaml',
      line: 3,
    },
    {
      name: 'a patch that renames an object',
      files: {
        'overlays/a/overlay.yaml': overlay(
          'patches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: replace, path: /metadata/name, value: other}\n',
        ),
      },
      code: 'overlay',
      file: 'overlays/a/overlay.yaml',
      text: /would change/,
    },
    {
      name: 'an object declared twice',
      files: { 'overlays/a/overlay.yaml': overlay('resources:\n  - ../../providers\n  - ../../providers/core.yaml\n') },
      code: 'overlay',
      file: 'providers/core.yaml',
      text: /declared twice/,
    },
  ];
  it.each(cases)(
    '$name → exit 1, error $code at the overlay, rendered/ untouched',
    async ({ files, code, file, line, text }) => {
      const repo = makeRepo({
        ...base,
        ...files,
        'overlays/ok/overlay.yaml': overlay(''),
        'rendered/ok/kustomization.yaml': 'previous\n',
      });
      const before = snapshotTree(path.join(repo, 'rendered'));
      const r = await runCli(['build'], { cwd: repo });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`error[${code}]`);
      expect(r.stderr).toContain(line ? `${file}:${line}:` : file);
      if (text) expect(r.stderr).toMatch(text);
      // The healthy environment "ok" is not written either: no half-updated rendered/.
      expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(before);
    },
  );

  it('overlays are read in parallel, yet the error is always the first bad one in name order', async () => {
    // z is tiny and fails fast; a is large and fails late: a must still be the one reported.
    const big = overlay(`labels:\n${Array.from({ length: 3000 }, (_, i) => `  key-${i}: v\n`).join('')}patchez: []\n`);
    const repo = makeRepo({
      ...base,
      'overlays/a/overlay.yaml': big,
      'overlays/z/overlay.yaml': overlay('patchez: []\n'),
    });
    for (let run = 0; run < 3; run++) {
      const r = await runCli(['build'], { cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('overlays/a/overlay.yaml:3004:');
      expect(r.stderr).not.toContain('overlays/z/');
    }
  });
});
