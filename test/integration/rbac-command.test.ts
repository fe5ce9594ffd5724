/** `capi-render rbac` on the example's real output. */
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

describe('rbac command', () => {
  it.each([
    ['dev', 'flux'],
    ['prod', 'argocd'],
  ])('prints a verified least-privilege role for %s applied by %s', async (env, applier) => {
    const r = await runCli(['rbac', '--env', env, '--applier', applier], { cwd: REPO_ROOT });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 missing, 0 beyond what is needed');
    const objects = (jsYaml.loadAll(r.stdout) as KubeObject[]).filter(Boolean);
    const kinds = [...new Set(objects.map((o) => o.kind))].sort();
    expect(kinds).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Namespace', 'Role', 'RoleBinding']);
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding') as unknown as {
      subjects: { name: string; namespace: string }[];
    };
    expect(binding.subjects[0]).toMatchObject(
      applier === 'flux'
        ? { name: 'kustomize-controller', namespace: 'flux-system' }
        : { name: 'argocd-application-controller', namespace: 'argocd' },
    );
    // Never a wildcard: every rule names its resources and verbs.
    for (const o of objects.filter((x) => x.kind.endsWith('Role'))) {
      for (const rule of (o.rules as { resources: string[]; verbs: string[] }[]) ?? []) {
        expect(rule.verbs).not.toContain('*');
        expect(rule.resources).not.toContain('*');
      }
    }
  });

  it('--grants lists what each provider grants, cluster-scoped first', async () => {
    const r = await runCli(['rbac', '--env', 'dev', '--grants'], { cwd: REPO_ROOT });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cluster-api: ServiceAccount capi-system\/capi-manager\n  cluster-scoped:/m);
  });

  it('needs an environment when there are several', async () => {
    const r = await runCli(['rbac'], { cwd: REPO_ROOT });
    expect(r.code).toBe(2);
  });
});
