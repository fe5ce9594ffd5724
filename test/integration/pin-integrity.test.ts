/**
 * The committed pin is the truth: a lock edit never overrides the inputs, a build always
 * repairs hand-edited output, and `--out` is an export that leaves the repository alone. Every row
 * goes through the CLI on a copy of the committed example, with a cache of its own.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const LOCK = 'capi-render.lock';
const KUBEADM = 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm';

/** Replaces the first match of `from` after the line matching `after` (inside the dev environment's entries). */
function editLock(repo: string, edit: (text: string) => string): void {
  const file = path.join(repo, LOCK);
  const before = readFileSync(file, 'utf8');
  const after = edit(before);
  expect(after, 'the lock edit must change something').not.toBe(before);
  writeFileSync(file, after);
}

/** Edits the field `field` of the dev entry for `provider`, returning its 1-based line. */
function editEntry(text: string, provider: string, field: string, value: string): string {
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l === `  - provider: ${provider}`);
  expect(i).toBeGreaterThan(0);
  while (!lines[++i]!.startsWith(`    ${field}:`));
  lines[i] = `    ${field}: ${value}`;
  return lines.join('\n');
}

function lineOf(text: string, provider: string, field: string): number {
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l === `  - provider: ${provider}`);
  while (!lines[++i]!.startsWith(`    ${field}:`));
  return i + 1;
}

const firstLine = (text: string) => text.split('\n').find((l) => l.trim() !== '') ?? '';

async function cli(repo: string, cache: string, ...argv: string[]) {
  return runCli(argv, { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
}

function renderedVersions(repo: string, env: string): string {
  return readFileSync(
    path.join(repo, 'rendered', env, 'bootstrap-kubeadm', 'deployment-capi-kubeadm-bootstrap-controller-manager.yaml'),
    'utf8',
  );
}

describe('the lock never overrides the inputs', () => {
  interface LockEdit {
    name: string;
    edit: (text: string) => string;
    /** What check says first (and --frozen, where it fails the same way). */
    check: RegExp;
    /** What build does: 'repairs' (exit 0, lock back to what the inputs say) or an error it refuses with. */
    build: 'repairs' | RegExp;
    /** A line build prints about the lock (the contradiction it re-resolved). */
    buildSays?: RegExp;
  }
  const cases: LockEdit[] = [
    {
      name: 'version under an exact spec.version (a downgrade written into the lock)',
      edit: (t) => editEntry(t, KUBEADM, 'version', 'v1.11.0'),
      check:
        /^capi-render\.lock:\d+:1: error\[lock\]: \[dev\] BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm is locked at v1\.11\.0, which spec\.version v1\.12\.0 \(providers\/\S+:\d+:\d+\) does not allow/,
      build: 'repairs',
      buildSays:
        /capi-render\.lock:\d+:1: warning\[lock\]: BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm in environment dev is locked at v1\.11\.0, which spec\.version v1\.12\.0 .* re-resolved from the inputs/,
    },
    {
      name: 'cert-manager version against capi-render.yaml',
      edit: (t) => editEntry(t, 'cert-manager', 'version', 'v1.16.1'),
      check:
        /^capi-render\.lock:\d+:1: error\[lock\]: \[dev\] cert-manager is locked at v1\.16\.1, which certManager\.version v1\.19\.4 \(capi-render\.yaml:\d+:\d+\) does not allow/,
      build: 'repairs',
      buildSays: /warning\[lock\]: cert-manager in environment dev is locked at v1\.16\.1/,
    },
    {
      name: 'requested and version together (another request: stale, re-resolved)',
      edit: (t) => editEntry(editEntry(t, KUBEADM, 'requested', 'v1.11.0'), KUBEADM, 'version', 'v1.11.0'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: "source (another source: stale, re-resolved from the spec's)",
      edit: (t) => editEntry(t, KUBEADM, 'source', 'github:evil/cluster-api'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'contract',
      edit: (t) => editEntry(t, KUBEADM, 'contract', 'v1beta1'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: "an environment's inputs hash",
      edit: (t) => t.replace(/^( {2}inputs: )[0-9a-f]{64}$/m, `$1${'a'.repeat(64)}`),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    // The content is what the inputs say; only the text is not what a build writes (a build rewrites it).
    {
      name: 'a comment added by hand',
      edit: (t) => t.replace(/^environments:\n/m, '# pinned by hand\nenvironments:\n'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'a field capi-render does not write',
      edit: (t) => `${t}reviewedBy: someone\n`,
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'the same content reformatted (a version quoted)',
      edit: (t) => t.replace(/^( {4}version: )(v[\d.]+)$/m, '$1"$2"'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'an extra environment entry',
      edit: (t) => t.replace(/^environments:\n/m, 'environments:\n- name: aaa\n  providers: []\n'),
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'a missing provider entry',
      edit: (t) => {
        const lines = t.split('\n');
        const i = lines.indexOf(`  - provider: ${KUBEADM}`);
        let end = i + 1;
        while (lines[end]!.startsWith('    ')) end++;
        lines.splice(i, end - i);
        return lines.join('\n');
      },
      check: /^capi-render\.lock:\d+:1: error\[drift\]: capi-render\.lock is stale/,
      build: 'repairs',
    },
    {
      name: 'an artifact sha256 (a re-tagged release or a tampered lock)',
      edit: (t) => t.replace(/^( {2}sha256: )[0-9a-f]{64}$/m, `$1${'e'.repeat(64)}`),
      check: /error\[digest-mismatch\]: .* capi-render\.lock pinned e{64}/,
      build: /error\[digest-mismatch\]/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: check and build --frozen refuse, build ${c.build === 'repairs' ? 'repairs' : 'refuses'}`, async () => {
      const repo = copyExample({ committed: true });
      const cache = tempDir();
      const committedLock = readFileSync(path.join(repo, LOCK), 'utf8');
      editLock(repo, c.edit);
      const edited = snapshotTree(repo);

      const check = await cli(repo, cache, 'check', '--offline');
      expect(check.code, check.stderr).toBe(1);
      expect(firstLine(check.stderr)).toMatch(c.check);
      const frozen = await cli(repo, cache, 'build', '--frozen', '--offline');
      expect(frozen.code, frozen.stderr).toBe(1);
      expect(snapshotTree(repo), 'check and a refused build change nothing').toEqual(edited);

      const build = await cli(repo, cache, 'build', '--offline');
      if (c.build === 'repairs') {
        expect(build.code, build.stderr).toBe(0);
        if (c.buildSays) expect(build.stderr).toMatch(c.buildSays);
        expect(readFileSync(path.join(repo, LOCK), 'utf8'), 'the lock is what the inputs say again').toBe(
          committedLock,
        );
        expect(renderedVersions(repo, 'dev')).not.toMatch(/v1\.11\.0/);
        const after = await cli(repo, cache, 'check', '--offline');
        expect(after.code, after.stderr).toBe(0);
      } else {
        expect(build.code, build.stderr).toBe(1);
        expect(build.stderr).toMatch(c.build);
        expect(snapshotTree(repo)).toEqual(edited);
      }
    });
  }

  it('a lock whose text is not what a build writes: check and --frozen name the first line that differs; CRLF and a BOM are not a change', async () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    const committed = readFileSync(path.join(repo, LOCK), 'utf8');
    const lines = committed.split('\n');
    const at = lines.indexOf('environments:');
    writeFileSync(path.join(repo, LOCK), [...lines.slice(0, at), '# pinned by hand', ...lines.slice(at)].join('\n'));
    for (const argv of [['check'], ['build', '--frozen']]) {
      const r = await cli(repo, cache, ...argv, '--offline');
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `from line ${at + 1}: not what capi-render writes for this lock (a comment, a reformatting or a field added by hand); a build rewrites it`,
      );
    }
    writeFileSync(path.join(repo, LOCK), `\ufeff${committed.replace(/\n/g, '\r\n')}`);
    for (const argv of [['check'], ['build', '--frozen']]) {
      const r = await cli(repo, cache, ...argv, '--offline');
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });

  it('names the exact lock line of the contradicted entry', async () => {
    const repo = copyExample({ committed: true });
    editLock(repo, (t) => editEntry(t, KUBEADM, 'version', 'v1.11.0'));
    const line = lineOf(readFileSync(path.join(repo, LOCK), 'utf8'), KUBEADM, 'version');
    const check = await cli(repo, tempDir(), 'check', '--offline');
    expect(firstLine(check.stderr)).toContain(`capi-render.lock:${line}:1: error[lock]`);
  });
});

describe('a build always repairs the committed output', () => {
  const DEPLOYMENT = 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml';
  const SERVICE = 'rendered/dev/cluster-api/service-capi-webhook-service.yaml';
  const cases: { name: string; change: (repo: string) => void; repaired: string }[] = [
    {
      name: 'a hand-edited file',
      change: (repo) =>
        writeFileSync(
          path.join(repo, DEPLOYMENT),
          readFileSync(path.join(repo, DEPLOYMENT), 'utf8').replace('replicas: 1', 'replicas: 5'),
        ),
      repaired: DEPLOYMENT,
    },
    { name: 'a deleted file', change: (repo) => rmSync(path.join(repo, SERVICE)), repaired: SERVICE },
    {
      name: 'an edited GitOps file',
      change: (repo) => writeFileSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'), '# emptied\n'),
      repaired: 'gitops/argocd/applications/prod.yaml',
    },
  ];
  for (const warm of [false, true]) {
    for (const c of cases) {
      it(`${c.name}, ${warm ? 'after a build on this machine (warm cache)' : 'in a fresh clone (no cache)'}`, async () => {
        const repo = copyExample({ committed: true });
        const cache = tempDir();
        const committed = snapshotTree(repo);
        if (warm) {
          const first = await cli(repo, cache, 'build', '--offline');
          expect(first.code, first.stderr).toBe(0);
          // Nothing changed: the next build is a no-op, answered from the stamp.
          const noop = await cli(repo, cache, 'build', '--offline');
          expect(noop.stderr).toMatch(/unchanged since the last build/);
        }
        c.change(repo);
        const build = await cli(repo, cache, 'build', '--offline');
        expect(build.code, build.stderr).toBe(0);
        expect(build.stderr).toContain(
          `repaired (edited by hand since the last build; the inputs render otherwise): ${c.repaired}`,
        );
        expect(snapshotTree(repo)).toEqual(committed);
        const check = await cli(repo, cache, 'check', '--offline');
        expect(check.code, check.stderr).toBe(0);
        // And the next build is a no-op again.
        const again = await cli(repo, cache, 'build', '--offline');
        expect(again.stderr).not.toMatch(/repaired/);
        expect(again.stderr).toMatch(/0 written/);
      });
    }
  }

  it('skips an untouched environment and repairs the edited one (partial rebuild with a warm cache)', async () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    expect((await cli(repo, cache, 'build', '--offline')).code).toBe(0);
    writeFileSync(
      path.join(repo, DEPLOYMENT),
      readFileSync(path.join(repo, DEPLOYMENT), 'utf8').replace('replicas: 1', 'replicas: 3'),
    );
    const build = await cli(repo, cache, 'build', '--offline');
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toMatch(/rendered dev:/);
    expect(build.stderr).not.toMatch(/rendered prod:/);
    expect(build.stderr).toMatch(/unchanged since the last build \(inputs hash in capi-render\.lock\): prod/);
    expect(build.stderr).toContain(
      `repaired (edited by hand since the last build; the inputs render otherwise): ${DEPLOYMENT}`,
    );
  });

  it('--force renders every environment, stamps and records aside', async () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    expect((await cli(repo, cache, 'build', '--offline')).code).toBe(0);
    const forced = await cli(repo, cache, 'build', '--offline', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/rendered dev:/);
    expect(forced.stderr).toMatch(/rendered prod:/);
    expect(forced.stderr).toMatch(/0 written/);
  });
});

describe('--out is an export', () => {
  it('writes the complete output into DIR with unchanged inputs, and changes nothing in the repository', async () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    expect((await cli(repo, cache, 'build', '--offline')).code).toBe(0);
    const before = snapshotTree(repo);
    const out = path.join(tempDir(), 'export', 'rendered');
    const r = await cli(repo, cache, 'build', '--offline', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(snapshotTree(repo)).toEqual(before);
    const exported = snapshotTree(out);
    const own = snapshotTree(path.join(repo, 'rendered'));
    expect(exported).toEqual(own);
  });

  it('after an input change: the export has it, the lock and rendered/ do not, and a plain build still renders it', async () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
    writeFileSync(overlay, readFileSync(overlay, 'utf8').replace('value: v1.11.0', 'value: v1.12.0'));
    const before = snapshotTree(repo);
    const out = path.join(tempDir(), 'rendered');
    const r = await cli(repo, cache, 'build', '--offline', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(snapshotTree(repo), 'the repository is untouched: lock, rendered/, gitops/').toEqual(before);
    expect(readFileSync(path.join(out, 'prod/cluster-api/deployment-capi-controller-manager.yaml'), 'utf8')).toMatch(
      /cluster-api-controller:v1\.12\.0/,
    );
    const build = await cli(repo, cache, 'build', '--offline');
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toMatch(/rendered prod:/);
    expect(
      readFileSync(path.join(repo, 'rendered/prod/cluster-api/deployment-capi-controller-manager.yaml'), 'utf8'),
    ).toMatch(/cluster-api-controller:v1\.12\.0/);
  });

  it("refuses an export whose GitOps folder would be the repository's own", async () => {
    const repo = copyExample({ committed: true });
    const before = snapshotTree(repo);
    const r = await cli(repo, tempDir(), 'build', '--offline', '--out', 'export');
    expect(r.code, r.stderr).toBe(2);
    expect(firstLine(r.stderr)).toMatch(
      /the GitOps folder beside --out would be gitops, the repository's own gitopsDir/,
    );
    expect(snapshotTree(repo)).toEqual(before);
    expect(existsSync(path.join(repo, 'export'))).toBe(false);
  });
});
