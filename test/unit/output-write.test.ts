import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assignFileNames } from '../../src/plan/file-names.js';
import { kustomizationText, planEnvironment } from '../../src/plan/output-plan.js';
import { listFiles } from '../../src/output/list-files.js';
import { beginTransaction, type TreeTarget } from '../../src/output/transaction.js';
import { OWNERSHIP_FILE, ownershipText, parseOwnership } from '../../src/output/ownership.js';
import { acquireBusyLock } from '../../src/output/busy-lock.js';
import type { KubeObject } from 'capi-render';
import { tempDir } from '../helpers/tmp.js';

const obj = (kind: string, name: string, namespace?: string, apiVersion = 'v1'): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

describe('assignFileNames', () => {
  it.each([
    {
      name: 'kind-name, lowercased',
      objects: [obj('Deployment', 'CAPI-Controller')],
      expected: ['deployment-capi-controller.yaml'],
    },
    {
      name: 'CRD names keep their dots',
      objects: [obj('CustomResourceDefinition', 'clusters.cluster.x-k8s.io', undefined, 'apiextensions.k8s.io/v1')],
      expected: ['customresourcedefinition-clusters.cluster.x-k8s.io.yaml'],
    },
    {
      name: 'unsafe characters and leading dots cannot escape the folder',
      objects: [obj('ConfigMap', '../../etc/passwd')],
      expected: ['configmap-etc-passwd.yaml'],
    },
    {
      name: 'a clash gets group and namespace in every name',
      objects: [
        obj('Role', 'leader', 'a', 'rbac.authorization.k8s.io/v1'),
        obj('Role', 'leader', 'b', 'rbac.authorization.k8s.io/v1'),
        obj('Role', 'other', 'a', 'rbac.authorization.k8s.io/v1'),
      ],
      expected: [
        'role.rbac.authorization.k8s.io-a-leader.yaml',
        'role.rbac.authorization.k8s.io-b-leader.yaml',
        'role-other.yaml',
      ],
    },
  ])('$name', ({ objects, expected }) => {
    expect(assignFileNames(objects, 'f')).toEqual(expected);
  });
  it('a remaining clash is an output error', () => {
    expect(() => assignFileNames([obj('Role', 'x', 'a'), obj('Role', 'x', 'a')], 'f')).toThrow(
      expect.objectContaining({ code: 'output' }),
    );
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
    expect(files.get('dev/cluster-api/kustomization.yaml')).toBe(
      kustomizationText(['namespace-capi-system.yaml', 'serviceaccount-sa.yaml']),
    );
  });
  it('rejects an environment name that is not one path segment', () => {
    expect(() => planEnvironment({ ...env, name: '../x' })).toThrow(expect.objectContaining({ code: 'input-path' }));
  });
});

/** Writes `files` into `<repo>/rendered` in one transaction; `scope` says which top folders it answers for. */
async function write(
  repo: string,
  files: Record<string, string>,
  options: { scope?: string[]; adopt?: boolean; lock?: string; failpoint?: (step: string) => void } = {},
) {
  const root = path.join(repo, 'rendered');
  const scope = options.scope;
  const target: TreeTarget = {
    root,
    ...(scope ? { descend: (f: string) => scope.includes(f) } : {}),
    inScope: (rel) => !scope || scope.includes(rel.split('/')[0]!),
    adoptable: () => options.adopt ?? false,
  };
  const txn = await beginTransaction([target], {
    repoRoot: repo,
    lockFile: path.join(repo, 'capi-render.lock'),
    ...(options.failpoint ? { failpoint: options.failpoint } : {}),
  });
  try {
    await txn.stage(0, new Map(Object.entries(files)));
    return (await txn.commit(options.lock))[0]!;
  } catch (e) {
    await txn.abort();
    throw e;
  }
}

const owned = (repo: string) => [
  ...parseOwnership(readFileSync(path.join(repo, 'rendered', OWNERSHIP_FILE), 'utf8')).files,
];

describe('the output transaction', () => {
  it('writes, keeps identical files untouched, removes stale owned files and records what it owns', async () => {
    const repo = tempDir();
    await write(repo, { 'a/x.yaml': 'x\n', 'a/y.yaml': 'y\n' });
    const inode = statSync(path.join(repo, 'rendered/a/x.yaml')).ino;
    const summary = await write(repo, { 'a/x.yaml': 'x\n', 'a/z.yaml': 'z\n' });
    expect(summary).toMatchObject({ written: ['a/z.yaml'], unchanged: 1, removed: ['a/y.yaml'], foreign: [] });
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['a/x.yaml', 'a/z.yaml']);
    // An unchanged file is not rewritten at all.
    expect(statSync(path.join(repo, 'rendered/a/x.yaml')).ino).toBe(inode);
    expect(owned(repo)).toEqual(['a/x.yaml', 'a/z.yaml']);
    expect(readdirSync(repo).sort()).toEqual(['rendered']);
  });

  it('leaves files it did not write alone, reports them, and removes no folder that still holds one', async () => {
    const repo = tempDir();
    await write(repo, { 'a/x.yaml': 'x\n' });
    writeFileSync(path.join(repo, 'rendered/a/NOTES.md'), 'mine\n');
    const summary = await write(repo, { 'b/y.yaml': 'y\n' });
    expect(summary).toMatchObject({ removed: ['a/x.yaml'], foreign: ['a/NOTES.md'] });
    expect(readFileSync(path.join(repo, 'rendered/a/NOTES.md'), 'utf8')).toBe('mine\n');
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['a/NOTES.md', 'b/y.yaml']);
  });

  it('removes folders its removals emptied', async () => {
    const repo = tempDir();
    await write(repo, { 'a/deep/x.yaml': 'x\n', 'b/y.yaml': 'y\n' });
    await write(repo, { 'b/y.yaml': 'y\n' });
    expect(existsSync(path.join(repo, 'rendered/a'))).toBe(false);
  });

  it('refuses to overwrite a file it did not write, changing nothing', async () => {
    const repo = tempDir();
    await write(repo, { 'a/x.yaml': 'x\n' });
    writeFileSync(path.join(repo, 'rendered/a/y.yaml'), 'mine\n');
    await expect(write(repo, { 'a/x.yaml': 'x2\n', 'a/y.yaml': 'y\n' })).rejects.toMatchObject({
      code: 'output-location',
      message: expect.stringContaining('a/y.yaml'),
    });
    expect(readFileSync(path.join(repo, 'rendered/a/x.yaml'), 'utf8')).toBe('x\n');
    expect(readFileSync(path.join(repo, 'rendered/a/y.yaml'), 'utf8')).toBe('mine\n');
    expect(readdirSync(repo).sort()).toEqual(['rendered']);
  });

  it('never writes through a link planted in the output folder', async () => {
    const repo = tempDir();
    const elsewhere = tempDir();
    await write(repo, { 'a/x.yaml': 'x\n' });
    symlinkSync(elsewhere, path.join(repo, 'rendered/b'));
    await expect(write(repo, { 'a/x.yaml': 'x\n', 'b/y.yaml': 'y\n' })).rejects.toMatchObject({
      code: 'output-location',
      message: 'rendered holds symbolic links where capi-render writes: b',
    });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a folder without a record that holds files it cannot adopt', async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, 'rendered'));
    writeFileSync(path.join(repo, 'rendered/README.md'), 'docs\n');
    await expect(write(repo, { 'a/x.yaml': 'x\n' })).rejects.toMatchObject({
      code: 'output-location',
      message: expect.stringContaining('README.md'),
    });
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['README.md']);
  });

  it('adopts earlier output in a folder without a record, then owns exactly what it writes', async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, 'rendered/a'), { recursive: true });
    writeFileSync(path.join(repo, 'rendered/a/old.yaml'), 'old\n');
    const summary = await write(repo, { 'a/x.yaml': 'x\n' }, { adopt: true });
    expect(summary.removed).toEqual(['a/old.yaml']);
    expect(owned(repo)).toEqual(['a/x.yaml']);
  });

  it('keeps the files of folders outside its scope, and their place in the record', async () => {
    const repo = tempDir();
    await write(repo, { 'dev/a.yaml': '1\n', 'prod/a.yaml': '2\n' });
    await write(repo, { 'dev/b.yaml': '3\n' }, { scope: ['dev'] });
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['dev/b.yaml', 'prod/a.yaml']);
    expect(owned(repo)).toEqual(['dev/b.yaml', 'prod/a.yaml']);
  });

  it('reads a record with merge conflict markers as both sides', () => {
    const text = `${ownershipText(['a/x.yaml'])}<<<<<<< HEAD\na/y.yaml\n=======\na/z.yaml\n>>>>>>> other\n../../etc/passwd\n`;
    expect(parseOwnership(text)).toEqual({
      files: new Set(['a/x.yaml', 'a/y.yaml', 'a/z.yaml']),
      conflicted: true,
      canonical: false,
    });
  });

  it('writes the lock in the same transaction, and puts everything back when installing fails half-way', async () => {
    const repo = tempDir();
    writeFileSync(path.join(repo, 'capi-render.lock'), 'old lock\n');
    await write(repo, { 'a/x.yaml': 'x\n', 'a/y.yaml': 'y\n' });
    let applied = 0;
    const failAtSecond = (step: string) => {
      if (step === 'apply' && ++applied === 2) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
    };
    await expect(
      write(
        repo,
        { 'a/x.yaml': 'x2\n', 'a/y.yaml': 'y2\n', 'a/z.yaml': 'z\n' },
        { lock: 'new lock\n', failpoint: failAtSecond },
      ),
    ).rejects.toMatchObject({
      code: 'write',
      message: expect.stringMatching(
        /no space left on device \(ENOSPC\); nothing in the output or the lock was changed$/,
      ),
    });
    expect(readFileSync(path.join(repo, 'rendered/a/x.yaml'), 'utf8')).toBe('x\n');
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['a/x.yaml', 'a/y.yaml']);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toBe('old lock\n');
    expect(readdirSync(repo).sort()).toEqual(['capi-render.lock', 'rendered']);
    await write(repo, { 'a/x.yaml': 'x2\n' }, { lock: 'new lock\n' });
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toBe('new lock\n');
  });

  it('cleans up after the writer of earlier versions: a lost output folder comes back, staging goes', async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, '.rendered.capi-render-old/a'), { recursive: true });
    writeFileSync(path.join(repo, '.rendered.capi-render-old/a/x.yaml'), 'x\n');
    mkdirSync(path.join(repo, '.rendered.capi-render-new'));
    writeFileSync(path.join(repo, '.rendered.capi-render-lock'), '999999999');
    const summary = await write(repo, { 'a/x.yaml': 'x\n' }, { adopt: true });
    expect(summary.unchanged).toBe(1);
    expect(readdirSync(repo).sort()).toEqual(['rendered']);
  });

  it('refuses to run while another live writer holds the lock, and takes over a stale one', async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, '.capi-render-write'));
    writeFileSync(path.join(repo, '.capi-render-write/busy'), String(process.ppid));
    await expect(write(repo, { 'a.yaml': '1\n' })).rejects.toMatchObject({ code: 'busy' });
    writeFileSync(path.join(repo, '.capi-render-write/busy'), '999999999');
    await write(repo, { 'a.yaml': '1\n' });
    expect(await listFiles(path.join(repo, 'rendered'))).toEqual(['a.yaml']);
    const release = await acquireBusyLock(path.join(repo, 'busy'), 'x');
    await release();
    expect(existsSync(path.join(repo, 'busy'))).toBe(false);
  });
});
