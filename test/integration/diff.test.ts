/** `capi-render diff` against a git revision, in a throw-away git repository. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { CORE, copyExample, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const BOOTSTRAP = (version: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: ${version}\n`;

/** A built, committed repository at `version`, then rebuilt at `next` in the working tree. */
async function changedRepo(
  version: string,
  next: string,
  subfolder = '',
): Promise<{ root: string; repo: string; env: Record<string, string> }> {
  const root = tempDir();
  const repo = path.join(root, subfolder);
  makeRepo({ 'providers/core.yaml': CORE(version), 'providers/bootstrap.yaml': BOOTSTRAP(version) }, repo);
  const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
  expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
  initRepo(root, env);
  writeFileSync(path.join(repo, 'providers/core.yaml'), CORE(next));
  writeFileSync(path.join(repo, 'providers/bootstrap.yaml'), BOOTSTRAP(next));
  // v1.10.4 → v1.11.0 stops rendering a CRD: a deliberate change here.
  expect((await runCli(['build', '--allow-removal'], { cwd: repo, env })).code).toBe(0);
  return { root, repo, env };
}

describe('capi-render diff', () => {
  it('a CRD the applier is told to keep is reported as left behind, not deleted (the example: prod v1.12.0 → v1.11.0, Argo CD)', async () => {
    const repo = copyExample({ committed: true });
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
    initRepo(repo, env);
    expect((await runCli(['upgrade', '--env', 'prod', '--contract', 'v1beta2'], { cwd: repo, env })).code).toBe(0);
    git(repo, env, 'add', '-A');
    git(repo, env, 'commit', '-q', '-m', 'prod to v1.12.0');
    // Back to v1.11.0, whose (trimmed) fixture has no ipaddresses CRD: the rendered one goes.
    git(repo, env, 'checkout', '-q', 'HEAD~1', '--', 'overlays');
    expect((await runCli(['build', '--allow-downgrade', '--allow-removal'], { cwd: repo, env })).code).toBe(0);
    const r = await runCli(['diff'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      [
        'WARNING prod/cluster-api CustomResourceDefinition.apiextensions.k8s.io/ipaddresses.ipam.cluster.x-k8s.io [crd-removed]',
        '        CRD ipaddresses.ipam.cluster.x-k8s.io is no longer rendered, but it is left behind, not deleted: Argo CD (`Prune=false`, `Delete=false`) leaves it in the cluster, and its objects survive',
      ].join('\n'),
    );
    expect(r.stdout).not.toContain(
      '[crd-removed]\n        CRD ipaddresses.ipam.cluster.x-k8s.io is no longer rendered: pruning it deletes',
    );
  });

  it('leads with the summary table and stays short on the example (prod v1.11.0 → v1.12.0); --stat, --verbose, --markdown, --fail-on', async () => {
    const repo = copyExample({ committed: true });
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
    initRepo(repo, env);
    const upgraded = await runCli(['upgrade', '--env', 'prod', '--contract', 'v1beta2', '--offline'], {
      cwd: repo,
      env,
    });
    expect(upgraded.code, upgraded.stderr).toBe(0);
    const table = [
      'ENVIRONMENT  PROVIDER               VERSION            CONTRACT  DANGER  WARNING  INFO',
      'prod         bootstrap-kubeadm      v1.11.0 → v1.12.0  v1beta2   0       0        4',
      'prod         cluster-api            v1.11.0 → v1.12.0  v1beta2   0       1        12',
      'prod         control-plane-kubeadm  v1.11.0 → v1.12.0  v1beta2   0       1        4',
    ];
    const r = await runCli(['diff', '--env', 'prod'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(80);
    expect(lines.slice(0, 6)).toEqual([...table, '', 'Findings: 0 dangers, 2 warnings, 20 info']);
    // The 15 CRD additions are counted, not listed; the three images are one group.
    expect(lines[6]).toBe('15 info findings need no action (crd-added 1, crd-version-added 14); --verbose lists them');
    expect(r.stdout).not.toContain('[crd-version-added]');
    expect(r.stdout).toContain('INFO    3 objects [image-changed]\n        prod/bootstrap-kubeadm Deployment.apps/');
    expect(r.stdout).toContain(
      '  ~ CustomResourceDefinition.apiextensions.k8s.io/clusters.cluster.x-k8s.io (5 fields)\n',
    );

    const stat = await runCli(['diff', '--env', 'prod', '--stat'], { cwd: repo, env });
    expect([stat.code, stat.stdout]).toEqual([0, `${table.join('\n')}\n`]);

    const verbose = await runCli(['diff', '--env', 'prod', '--verbose'], { cwd: repo, env });
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stdout.startsWith(`${table.join('\n')}\n`)).toBe(true);
    // One block for the eleven CRDs that gain the same two unserved versions, each CRD named once.
    const eleven = verbose.stdout.indexOf(
      'INFO    11 objects [crd-version-added]\n        versions added: v1alpha3 (not served, deprecated), v1alpha4 (not served, deprecated)\n',
    );
    expect(eleven).toBeGreaterThan(0);
    expect(verbose.stdout.match(/kubeadmconfigs\.bootstrap\.cluster\.x-k8s\.io/g)).toHaveLength(2); // the group and the object list
    expect(verbose.stdout).toContain('          added spec.clusterConfiguration.encryptionAlgorithm');

    const md = await runCli(['diff', '--env', 'prod', '--markdown'], { cwd: repo, env });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout.split('\n').slice(0, 4)).toEqual([
      '## Upgrade safety report',
      '',
      '| Environment | Provider | Version | Contract | Danger | Warning | Info |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    ]);

    const gates = [
      {
        argv: ['--fail-on', 'warning'],
        code: 1,
        stderr: 'diff: 2 findings of severity warning or worse (--fail-on warning)\n',
      },
      { argv: ['--fail-on', 'danger'], code: 0, stderr: '' },
      {
        argv: ['--fail-on', 'warning', '--stat'],
        code: 1,
        stderr: 'diff: 2 findings of severity warning or worse (--fail-on warning)\n',
      },
      { argv: ['--fail-on', 'info'], code: 2, stderr: 'capi-render diff: --fail-on must be one of danger, warning\n' },
    ];
    for (const gate of gates) {
      const g = await runCli(['diff', '--env', 'prod', ...gate.argv], { cwd: repo, env });
      expect([gate.argv, g.code, g.stderr]).toEqual([gate.argv, gate.code, gate.stderr]);
      // The review is printed either way; a usage error prints nothing else.
      if (gate.code !== 2) expect(g.stdout.startsWith(table[0]!)).toBe(true);
      else expect(g.stdout).toBe('');
    }
  });

  it('compares the working tree with HEAD: object changes and findings, contract changes from the locks', async () => {
    const { repo, env } = await changedRepo('v1.10.4', 'v1.11.0');
    const r = await runCli(['diff'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Findings: \d+ dangers?, \d+ warnings?, \d+ info$/m);
    // Both providers move contract: one block, the shared steps once, then where.
    // Each provider's contract move is worded for its kind (the core's differs), so each is its own block.
    expect(r.stdout).toMatch(
      /^WARNING default\/bootstrap-kubeadm \[contract-changed\]\n {8}bootstrap-kubeadm: contract v1beta1 → v1beta2\n/m,
    );
    expect(r.stdout).toMatch(
      /^WARNING default\/cluster-api \[contract-changed\]\n {8}cluster-api: contract v1beta1 → v1beta2\n/m,
    );
    // One procedure for the CRDs that lose versions the same way: <crd> in its commands, then the CRDs.
    expect(r.stdout).toMatch(
      /^DANGER {2}10 objects \[crd-version-removed\]\n {10}- <crd> stands for each CRD listed below\n( {10}- .*\n)+( {8}default\/cluster-api CustomResourceDefinition\.apiextensions\.k8s\.io\/\S+: versions? .*\n){10}/m,
    );
    expect(r.stdout).toMatch(/^Objects: \d+ added, \d+ removed, \d+ changed; --verbose lists the fields of CRDs$/m);
    expect(r.stdout).toContain('  ~ Deployment.apps/capi-system/capi-controller-manager');
    expect(r.stderr).toContain('--confirm-storage-migration');
  });

  it('--markdown prints the pull-request report; --env limits it', async () => {
    const { repo, env } = await changedRepo('v1.11.0', 'v1.12.0');
    const md = await runCli(['diff', '--markdown'], { cwd: repo, env });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout.startsWith('## Upgrade safety report\n')).toBe(true);
    expect(md.stdout).toContain('#### default/cluster-api');
    const limited = await runCli(['diff', '--env', 'default'], { cwd: repo, env });
    expect(limited.stdout).toContain('default/cluster-api');
    const unknown = await runCli(['diff', '--env', 'elsewhere'], { cwd: repo, env });
    // A --env that names no environment is bad usage.
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown environment "elsewhere"');
  });

  it('is empty against a revision with the same output, and works from a folder inside the git repository', async () => {
    const { root, repo, env } = await changedRepo('v1.11.0', 'v1.12.0', 'clusters/mgmt');
    git(root, env, 'add', '-A');
    git(root, env, 'commit', '-q', '-m', 'upgrade');
    expect((await runCli(['diff'], { cwd: repo, env })).stdout).toBe('No changes.\n');
    const previous = await runCli(['diff', '--base', 'HEAD~1'], { cwd: repo, env });
    expect(previous.code, previous.stderr).toBe(0);
    expect(previous.stdout).toContain('[image-changed]');
  });

  const PUBLIC_GROUP = '{apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:authenticated}';
  const bindingCases: { name: string; spec: string; files?: Record<string, string>; finding: string; says: string }[] =
    [
      {
        name: 'an additionalManifests ClusterRoleBinding to cluster-admin',
        spec: '  additionalManifests:\n    name: extra-rbac\n',
        files: {
          'providers/extra-rbac.yaml':
            'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-rbac\n  namespace: capi-system\ndata:\n  manifests: |\n    apiVersion: rbac.authorization.k8s.io/v1\n    kind: ClusterRoleBinding\n    metadata:\n      name: capi-manager-admin\n    roleRef:\n      apiGroup: rbac.authorization.k8s.io\n      kind: ClusterRole\n      name: cluster-admin\n    subjects:\n      - kind: ServiceAccount\n        name: capi-manager\n        namespace: capi-system\n',
        },
        finding:
          'DANGER  default/cluster-api ClusterRoleBinding.rbac.authorization.k8s.io/capi-manager-admin [rbac-binding-added]',
        says: 'ClusterRoleBinding capi-manager-admin grants ClusterRole cluster-admin cluster-wide to ServiceAccount capi-system/capi-manager',
      },
      {
        name: 'a patch adding the subject Group system:authenticated to capi-manager-rolebinding',
        spec: `  patches:\n    - target:\n        kind: ClusterRoleBinding\n        name: capi-manager-rolebinding\n      patch: |\n        - op: add\n          path: /subjects/-\n          value: ${PUBLIC_GROUP}\n`,
        finding:
          'DANGER  default/cluster-api ClusterRoleBinding.rbac.authorization.k8s.io/capi-manager-rolebinding [rbac-binding-subjects-added]',
        says: 'ClusterRoleBinding capi-manager-rolebinding also grants ClusterRole capi-aggregated-manager-role cluster-wide to Group system:authenticated',
      },
    ];
  it.each(bindingCases)(
    'flags $name as danger: text, markdown and the HTML report',
    async ({ spec, files = {}, finding, says }) => {
      const root = tempDir();
      makeRepo({ 'providers/core.yaml': CORE('v1.12.0') }, root);
      const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
      expect((await runCli(['build'], { cwd: root, env })).code).toBe(0);
      initRepo(root, env);
      writeFileSync(path.join(root, 'providers/core.yaml'), CORE('v1.12.0', 'capi-system', spec));
      for (const [file, text] of Object.entries(files)) writeFileSync(path.join(root, file), text);
      const built = await runCli(['build'], { cwd: root, env });
      expect(built.code, built.stderr).toBe(0);
      const r = await runCli(['diff'], { cwd: root, env });
      expect(r.code, r.stderr).toBe(0);
      // The table first: the binding is an overlay change, no version moves.
      expect(r.stdout.split('\n').slice(0, 3)).toEqual([
        'ENVIRONMENT  PROVIDER     VERSION              CONTRACT  DANGER  WARNING  INFO',
        'default      cluster-api  v1.12.0 (unchanged)  v1beta2   1       0        0',
        '',
      ]);
      expect(r.stdout.split('\n')[3]).toBe('Findings: 1 danger, 0 warnings, 0 info');
      expect(r.stdout).toContain(`${finding}\n        ${says}\n`);
      const md = await runCli(['diff', '--markdown'], { cwd: root, env });
      expect(md.code, md.stderr).toBe(0);
      expect(md.stdout).toContain('rbac-binding-');
      expect(md.stdout).toContain('Findings: 1 danger');
      // The HTML report's upgrade review (its --json model) carries the same finding.
      const report = await runCli(['report', '--base', 'HEAD', '--offline', '--json'], { cwd: root, env });
      expect(report.code, report.stderr).toBe(0);
      expect(report.stderr).toBe('1 environment changed; 1 danger; 0 warnings; 0 info findings\n');
      const [reviewed] = JSON.parse(report.stdout).review.findings;
      expect([reviewed.severity, reviewed.code, reviewed.message[0].text]).toEqual([
        'danger',
        finding.match(/\[(.*)\]$/)![1],
        says,
      ]);
    },
  );

  it('an unknown revision is an error (exit 1), not an empty diff', async () => {
    const { repo, env } = await changedRepo('v1.11.0', 'v1.12.0');
    const r = await runCli(['diff', '--base', 'no-such-branch'], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[git]');
  });
});
