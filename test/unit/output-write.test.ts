import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assignFileNames } from '../../src/output/paths.js';
import { kustomizationText, planEnvironment } from '../../src/output/plan.js';
import { listFiles, writeOutputTree } from '../../src/output/write.js';
import type { KubeObject } from '../../src/manifest/object.js';
import { tempDir } from '../helpers/tmp.js';

const obj = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): KubeObject => ({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } });

describe('assignFileNames', () => {
  it.each([
    { name: 'kind-name, lowercased', objects: [obj('Deployment', 'CAPI-Controller')], expected: ['deployment-capi-controller.yaml'] },
    { name: 'CRD names keep their dots', objects: [obj('CustomResourceDefinition', 'clusters.cluster.x-k8s.io', undefined, 'apiextensions.k8s.io/v1')], expected: ['customresourcedefinition-clusters.cluster.x-k8s.io.yaml'] },
    { name: 'unsafe characters and leading dots cannot escape the folder', objects: [obj('ConfigMap', '../../etc/passwd')], expected: ['configmap-etc-passwd.yaml'] },
    {
      name: 'a clash gets group and namespace in every name',
      objects: [obj('Role', 'leader', 'a', 'rbac.authorization.k8s.io/v1'), obj('Role', 'leader', 'b', 'rbac.authorization.k8s.io/v1'), obj('Role', 'other', 'a', 'rbac.authorization.k8s.io/v1')],
      expected: ['role.rbac.authorization.k8s.io-a-leader.yaml', 'role.rbac.authorization.k8s.io-b-leader.yaml', 'role-other.yaml'],
    },
  ])('$name', ({ objects, expected }) => {
    expect(assignFileNames(objects, 'f')).toEqual(expected);
  });
  it('a remaining clash is an output error', () => {
    expect(() => assignFileNames([obj('Role', 'x', 'a'), obj('Role', 'x', 'a')], 'f')).toThrow(expect.objectContaining({ code: 'output' }));
  });
});

describe('planEnvironment', () => {
  const env = {
    name: 'dev',
    components: [
      { name: 'cluster-api', objects: [obj('ServiceAccount', 'sa', 'capi-system'), obj('Namespace', 'capi-system')] },
      { name: 'bootstrap-kubeadm', objects: [obj('Namespace', 'b')] },
    ],
  };
  it('writes one file per object, sorted kustomizations, components in install order', () => {
    const files = planEnvironment(env);
    expect([...files.keys()]).toEqual([
      'dev/bootstrap-kubeadm/kustomization.yaml',
      'dev/bootstrap-kubeadm/namespace-b.yaml',
      'dev/cluster-api/kustomization.yaml',
      'dev/cluster-api/namespace-capi-system.yaml',
      'dev/cluster-api/serviceaccount-sa.yaml',
      'dev/kustomization.yaml',
    ]);
    expect(files.get('dev/kustomization.yaml')).toBe(kustomizationText(['cluster-api', 'bootstrap-kubeadm']));
    expect(files.get('dev/cluster-api/kustomization.yaml')).toBe(kustomizationText(['namespace-capi-system.yaml', 'serviceaccount-sa.yaml']));
  });
  it('rejects an environment name that is not one path segment', () => {
    expect(() => planEnvironment({ ...env, name: '../x' })).toThrow(expect.objectContaining({ code: 'input-path' }));
  });
});

describe('writeOutputTree', () => {
  it('writes, keeps identical files, removes stale ones and reports each', async () => {
    const out = path.join(tempDir(), 'rendered');
    await writeOutputTree(out, new Map([['a/x.yaml', 'x\n'], ['a/y.yaml', 'y\n']]), { replace: 'all' });
    const inode = statSync(path.join(out, 'a/x.yaml')).ino;
    const summary = await writeOutputTree(out, new Map([['a/x.yaml', 'x\n'], ['a/z.yaml', 'z\n']]), { replace: 'all' });
    expect(summary).toEqual({ written: ['a/z.yaml'], unchanged: 1, removed: ['a/y.yaml'] });
    expect(await listFiles(out)).toEqual(['a/x.yaml', 'a/z.yaml']);
    // Unchanged files are hard links to the previous ones, not rewritten.
    expect(statSync(path.join(out, 'a/x.yaml')).ino).toBe(inode);
  });

  it('replacing named environments keeps the others', async () => {
    const out = path.join(tempDir(), 'rendered');
    await writeOutputTree(out, new Map([['dev/a.yaml', '1\n'], ['prod/a.yaml', '2\n']]), { replace: 'all' });
    await writeOutputTree(out, new Map([['dev/b.yaml', '3\n']]), { replace: ['dev'] });
    expect(await listFiles(out)).toEqual(['dev/b.yaml', 'prod/a.yaml']);
    expect(readFileSync(path.join(out, 'prod/a.yaml'), 'utf8')).toBe('2\n');
  });

  it('recovers the previous tree when an earlier run died between its two renames', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'rendered');
    await writeOutputTree(out, new Map([['a.yaml', 'old\n']]), { replace: 'all' });
    // Simulate the crash window: the old tree moved aside, the new one not yet in place.
    const { renameSync } = await import('node:fs');
    renameSync(out, path.join(dir, '.rendered.capi-render-old'));
    await writeOutputTree(out, new Map([['other/b.yaml', 'new\n']]), { replace: ['other'] });
    expect(await listFiles(out)).toEqual(['a.yaml', 'other/b.yaml']);
    expect(readFileSync(path.join(out, 'a.yaml'), 'utf8')).toBe('old\n');
  });

  it('refuses to run while another live build holds the lock, and takes over a stale one', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'rendered');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, '.rendered.capi-render-lock'), String(process.ppid));
    await expect(writeOutputTree(out, new Map([['a.yaml', '1\n']]), { replace: 'all' })).rejects.toMatchObject({ code: 'busy' });
    writeFileSync(path.join(dir, '.rendered.capi-render-lock'), '999999999');
    await writeOutputTree(out, new Map([['a.yaml', '1\n']]), { replace: 'all' });
    expect(existsSync(path.join(dir, '.rendered.capi-render-lock'))).toBe(false);
  });
});
