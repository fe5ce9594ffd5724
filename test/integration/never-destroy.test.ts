/**
 * capi-render writes into git repositories that Argo CD and Flux apply with pruning on. Each row is
 * one way a build could destroy something — the repository, an input, files it did not write, a
 * management cluster's providers — and asserts the exit code, that the message names the path or
 * setting, and that every file outside what capi-render owns (`.git` included) is byte-identical
 * afterwards.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

/** A committed copy of the example, built, in a git repository. */
function exampleRepo(): { repo: string; env: Record<string, string> } {
  const repo = copyExample({ committed: true });
  const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
  initRepo(repo, env);
  return { repo, env };
}

const OWNED_PREFIXES = ['rendered/', 'gitops/', 'capi-render.lock'];
const outsideOwned = (snapshot: Record<string, string>) =>
  Object.fromEntries(Object.entries(snapshot).filter(([f]) => !OWNED_PREFIXES.some((p) => f.startsWith(p))));
const edit = (file: string, from: string | RegExp, to: string) =>
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
const deletePatch = (kind: string, name: string, namespace: string) =>
  `  - patch: |-\n      apiVersion: operator.cluster.x-k8s.io/v1alpha2\n      kind: ${kind}\n      metadata: {name: ${name}, namespace: ${namespace}}\n      $patch: delete\n`;

interface Row {
  name: string;
  /** Changes the repository before the build; returns extra paths (outside the repository) that must stay untouched. */
  setup?: (repo: string) => string[] | void;
  argv: string[] | ((repo: string) => string[]);
  code: 0 | 1 | 2;
  /** What stderr must say (the setting or path named). */
  says: RegExp[];
  /** For exit 0: what must hold afterwards. */
  after?: (repo: string, r: CliResult) => void;
}

/** Any change to capi-render.yaml re-renders every environment (the build does not skip them). */
const touchConfig = (repo: string) => appendFileSync(path.join(repo, 'capi-render.yaml'), '# touched\n');

const uniqueSibling = (repo: string, suffix: string) => `../${path.basename(repo)}-${suffix}`;

/** Both environments prepared for plain kustomize: no controller reads the output folders from git, so they may lie outside the repository. */
const kustomizeOnly = (repo: string) => {
  edit(path.join(repo, 'capi-render.yaml'), 'flavour: flux', 'flavour: kustomize');
  edit(path.join(repo, 'overlays/prod/overlay.yaml'), 'flavour: argocd', 'flavour: kustomize');
};

const rows: Row[] = [
  // Dangerous output locations: a flag is a usage error (2), capi-render.yaml a spec error (1).
  {
    name: 'build --out . (the repository root)',
    argv: ['build', '--out', '.'],
    code: 2,
    says: [/--out \. is the repository root/],
  },
  {
    name: 'build --out .. (contains the repository and its siblings)',
    argv: ['build', '--out', '..'],
    code: 2,
    says: [/--out \S+ contains the repository/],
  },
  {
    name: 'build --out providers (an input)',
    argv: ['build', '--out', 'providers'],
    code: 2,
    says: [/--out providers is the providersDir input/],
  },
  {
    name: 'build --out overlays/dev (inside an input)',
    argv: ['build', '--out', 'overlays/dev'],
    code: 2,
    says: [/--out overlays\/dev is inside the overlaysDir input/],
  },
  {
    name: 'build --out .git/out (inside .git)',
    argv: ['build', '--out', '.git/out'],
    code: 2,
    says: [/--out \.git\/out is inside a \.git folder/],
  },
  {
    name: 'build --out into another git repository',
    setup: (repo) => {
      mkdirSync(path.join(repo, 'vendor/other/.git'), { recursive: true });
      writeFileSync(path.join(repo, 'vendor/other/.git/HEAD'), 'ref: refs/heads/main\n');
    },
    argv: ['build', '--out', 'vendor/other'],
    code: 2,
    says: [/--out vendor\/other is a git repository \(it holds \.git\)/],
  },
  {
    name: 'outputDir: overlays in capi-render.yaml',
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), 'outputDir: overlays\n'),
    argv: ['build'],
    code: 1,
    says: [/^capi-render\.yaml:\d+:\d+: error\[output-location\]: outputDir overlays is the overlaysDir input/m],
  },
  {
    name: 'outputDir: test (holds a local repository of repositories:)',
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), 'outputDir: test\n'),
    argv: ['build'],
    code: 1,
    says: [/outputDir test holds the repositories\[0\]\.path input \(test\/fixtures\/repository\)/],
  },
  {
    name: 'gitopsDir inside outputDir',
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), 'gitopsDir: rendered/gitops\n'),
    argv: ['build'],
    code: 1,
    says: [/outputDir rendered and gitopsDir rendered\/gitops overlap/],
  },
  {
    name: 'outputDir outside the repository holding someone else’s files (kustomize: Argo CD and Flux would refuse it, input-locations.test.ts)',
    setup: (repo) => {
      const outside = path.resolve(repo, uniqueSibling(repo, 'out'));
      mkdirSync(outside, { recursive: true });
      writeFileSync(path.join(outside, 'notes.txt'), 'not capi-render’s\n');
      kustomizeOnly(repo);
      appendFileSync(
        path.join(repo, 'capi-render.yaml'),
        `outputDir: ${uniqueSibling(repo, 'out')}\ngitopsDir: ${uniqueSibling(repo, 'gitops')}\n`,
      );
      return [outside];
    },
    argv: ['build'],
    code: 1,
    says: [/error\[output-location\]: \/\S+-out holds files capi-render did not write/, /notes\.txt/],
  },
  {
    name: 'outputDir outside the repository, empty: allowed (kustomize), and owned from then on',
    setup: (repo) => {
      kustomizeOnly(repo);
      appendFileSync(
        path.join(repo, 'capi-render.yaml'),
        `outputDir: ${uniqueSibling(repo, 'out2')}\ngitopsDir: ${uniqueSibling(repo, 'gitops2')}\n`,
      );
    },
    argv: ['build'],
    code: 0,
    says: [/out2: 249 written/],
    after: (repo) => {
      const outside = path.resolve(repo, uniqueSibling(repo, 'out2'));
      expect(readFileSync(path.join(outside, '.capi-render-owned'), 'utf8')).toContain('dev/kustomization.yaml\n');
      rmSync(outside, { recursive: true, force: true });
      rmSync(path.resolve(repo, uniqueSibling(repo, 'gitops2')), { recursive: true, force: true });
    },
  },
  {
    name: 'mirror --to . (the repository root)',
    argv: ['mirror', '--to', '.'],
    code: 2,
    says: [/--to \. is the repository root/],
  },
  {
    name: 'mirror --to rendered (an output folder)',
    argv: ['mirror', '--to', 'rendered'],
    code: 2,
    says: [/--to rendered is the output folder \(outputDir\)/],
  },
  {
    name: 'mirror --to providers (an input)',
    argv: ['mirror', '--to', 'providers'],
    code: 2,
    says: [/--to providers is the providersDir input/],
  },
  // Files capi-render did not write.
  {
    name: 'a file someone else put in rendered/dev is left alone and reported',
    setup: (repo) => {
      writeFileSync(path.join(repo, 'rendered/dev/NOTES.md'), 'ours\n');
      touchConfig(repo);
    },
    argv: ['build'],
    code: 0,
    says: [/warning\[output-location\]: left alone \(not written by capi-render\): rendered\/dev\/NOTES\.md/],
    after: (repo) => expect(readFileSync(path.join(repo, 'rendered/dev/NOTES.md'), 'utf8')).toBe('ours\n'),
  },
  {
    name: 'a file someone else wrote where the build writes one',
    setup: (repo) => {
      rmSync(path.join(repo, 'rendered/dev'), { recursive: true });
      edit(path.join(repo, 'rendered/.capi-render-owned'), /^dev\/.*\n/gm, '');
      mkdirSync(path.join(repo, 'rendered/dev'));
      writeFileSync(path.join(repo, 'rendered/dev/kustomization.yaml'), 'mine\n');
      touchConfig(repo);
    },
    argv: ['build'],
    code: 1,
    says: [
      /^rendered\/dev\/kustomization\.yaml: error\[output-location\]: the build would overwrite files in rendered that capi-render did not write: dev\/kustomization\.yaml/m,
    ],
  },
  {
    name: 'an output folder with someone else’s files and no ownership record',
    setup: (repo) => {
      rmSync(path.join(repo, 'rendered/.capi-render-owned'));
      writeFileSync(path.join(repo, 'rendered/README.md'), 'docs\n');
      touchConfig(repo);
    },
    argv: ['build'],
    code: 1,
    says: [
      /rendered holds files capi-render did not write and has no ownership record \(\.capi-render-owned\): README\.md/,
    ],
  },
  {
    name: 'a link in rendered/ pointing outside the repository',
    setup: (repo) => {
      const elsewhere = tempDir();
      rmSync(path.join(repo, 'rendered/prod'), { recursive: true });
      symlinkSync(elsewhere, path.join(repo, 'rendered/prod'));
      edit(path.join(repo, 'overlays/prod/patches/ha-core.yaml'), /replicas: \d+/, 'replicas: 4');
      return [elsewhere];
    },
    argv: ['build'],
    code: 1,
    says: [/rendered\/prod is a symbolic link/],
  },
  {
    name: 'a file where a folder should be',
    setup: (repo) => {
      rmSync(path.join(repo, 'rendered/prod/cluster-api'), { recursive: true });
      writeFileSync(path.join(repo, 'rendered/prod/cluster-api'), 'a file\n');
      edit(path.join(repo, 'overlays/prod/patches/ha-core.yaml'), /replicas: \d+/, 'replicas: 4');
    },
    argv: ['build'],
    code: 1,
    says: [
      /^rendered\/prod\/cluster-api: error\[write\]: cannot create folder rendered\/prod\/cluster-api: a file is in the way where a folder should be \(ENOTDIR\)/m,
    ],
  },
  // The removal guard.
  {
    name: 'an empty providers/ (every environment would lose everything)',
    setup: (repo) => {
      for (const f of ['core.yaml', 'kubeadm.yaml', 'docker.yaml']) rmSync(path.join(repo, 'providers', f));
      rmSync(path.join(repo, 'overlays/prod'), { recursive: true });
      rmSync(path.join(repo, 'rendered/prod'), { recursive: true });
    },
    argv: ['build'],
    code: 1,
    says: [
      /error\[removal\]: environment dev has no providers: its output \(rendered\/dev\) would be empty, and Argo CD \/ Flux would uninstall Cluster API from that cluster/,
    ],
  },
  {
    name: 'a $patch: delete too many (the overlay deletes every provider)',
    setup: (repo) =>
      appendFileSync(
        path.join(repo, 'overlays/dev/overlay.yaml'),
        `patches:\n${deletePatch('CoreProvider', 'cluster-api', 'capi-system')}${deletePatch('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system')}${deletePatch('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system')}${deletePatch('InfrastructureProvider', 'docker', 'capd-system')}`,
      ),
    argv: ['build'],
    code: 1,
    says: [/error\[removal\]: environment dev has no providers/],
  },
  {
    name: 'a base that no longer resolves to anything',
    setup: (repo) => {
      mkdirSync(path.join(repo, 'empty-base'));
      edit(path.join(repo, 'overlays/dev/overlay.yaml'), '../../providers', '../../empty-base');
    },
    argv: ['build', '--env', 'dev'],
    code: 1,
    says: [/error\[removal\]: environment dev has no providers/],
  },
  {
    name: 'a provider removed from an environment (its CRDs would be pruned)',
    setup: (repo) =>
      appendFileSync(
        path.join(repo, 'overlays/dev/overlay.yaml'),
        `patches:\n${deletePatch('InfrastructureProvider', 'docker', 'capd-system')}`,
      ),
    argv: ['build'],
    code: 1,
    // dev is Flux's: its CRDs carry `prune: disabled`, so they would be orphaned rather than deleted.
    says: [
      /error\[removal\]: environment dev: 10 CRDs are no longer rendered \(devclusters\.infrastructure\.cluster\.x-k8s\.io, .*\): they carry prune protection, so Flux leaves them and their objects in the cluster, unmanaged from then on/,
      /--allow-removal/,
    ],
  },
  // The guard reads what is committed in rendered/, never a lock field alone: an edit of the lock in
  // the same change cannot turn the refusal into a removal.
  ...[
    {
      what: "dev's whole block deleted from the lock",
      lock: (text: string) => text.replace(/^- name: dev\n[\s\S]*?(?=^- name: prod$)/m, ''),
    },
    {
      what: "the CAPD lines deleted from dev's crds:",
      lock: (text: string) => text.replace(/^ {2}- (?:dev|docker)\S*\.infrastructure\.cluster\.x-k8s\.io\n/gm, ''),
    },
    { what: 'the whole lock deleted', lock: undefined },
  ].flatMap(({ what, lock }) =>
    [
      ['build', '--env', 'dev'],
      ['build', '--stdout', '--env', 'dev'],
    ].map((argv) => ({
      name: `providers/docker.yaml removed and ${what}: ${argv.join(' ')}`,
      setup: (repo: string) => {
        rmSync(path.join(repo, 'providers/docker.yaml'));
        const file = path.join(repo, 'capi-render.lock');
        if (lock) writeFileSync(file, lock(readFileSync(file, 'utf8')));
        else rmSync(file);
      },
      argv,
      code: 1 as const,
      says: [
        /error\[removal\]: environment dev: 10 CRDs are no longer rendered \(devclusters\.infrastructure\.cluster\.x-k8s\.io, /,
      ],
    })),
  ),
  {
    name: 'the core provider moved to another namespace (the old one removed) and its lock entry deleted: still refused',
    setup: (repo) => {
      edit(path.join(repo, 'providers/core.yaml'), /namespace: capi-system/g, 'namespace: capi-core');
      const file = path.join(repo, 'capi-render.lock');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace(
          /^ {2}- provider: CoreProvider\/capi-system\/cluster-api\n(?: {4}.*\n)+/m,
          '',
        ),
      );
    },
    argv: ['build', '--env', 'dev', '--allow-downgrade'],
    code: 1,
    says: [
      /error\[removal\]: the build would remove CoreProvider\/capi-system\/cluster-api \(v1\.12\.0\) from environment dev/,
    ],
  },
  {
    name: '--allow-removal: the same removal, on purpose',
    setup: (repo) =>
      appendFileSync(
        path.join(repo, 'overlays/dev/overlay.yaml'),
        `patches:\n${deletePatch('InfrastructureProvider', 'docker', 'capd-system')}`,
      ),
    argv: ['build', '--allow-removal'],
    code: 0,
    says: [/rendered: \d+ written, \d+ unchanged, \d+ removed/],
    after: (repo) => {
      expect(existsSync(path.join(repo, 'rendered/dev/infrastructure-docker'))).toBe(false);
      expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).not.toContain(
        'dockerclusters.infrastructure.cluster.x-k8s.io',
      );
    },
  },
  {
    name: 'an environment whose overlay is gone but whose output is still there',
    setup: (repo) => rmSync(path.join(repo, 'overlays/prod'), { recursive: true }),
    argv: ['build'],
    code: 1,
    says: [
      /error\[removal\]: environment prod no longer exists, but its output rendered\/prod would be deleted/,
      /delete rendered\/prod together with its overlay/,
    ],
  },
  {
    name: 'an environment retired on purpose: overlay and output deleted together',
    setup: (repo) => {
      rmSync(path.join(repo, 'overlays/prod'), { recursive: true });
      rmSync(path.join(repo, 'rendered/prod'), { recursive: true });
    },
    argv: ['build'],
    code: 0,
    says: [/removed the output of environments that no longer exist: prod/],
    after: (repo) => {
      expect(existsSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'))).toBe(false);
      expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).not.toMatch(/name: prod/);
      expect(readFileSync(path.join(repo, 'rendered/.capi-render-owned'), 'utf8')).not.toContain('prod/');
    },
  },
  {
    name: 'build --stdout of an environment that lost every provider (an Argo CD plugin would prune everything)',
    setup: (repo) => {
      for (const f of ['core.yaml', 'kubeadm.yaml', 'docker.yaml']) rmSync(path.join(repo, 'providers', f));
    },
    argv: ['build', '--stdout', '--env', 'dev'],
    code: 1,
    says: [/error\[removal\]: environment dev has no providers: its output \(the printed stream\) would be empty/],
  },
];

describe('never destroy: locations, ownership and the removal guard', () => {
  it.each(rows)('$name', async (row) => {
    const { repo, env } = exampleRepo();
    const extra = row.setup?.(repo) ?? [];
    const before = snapshotTree(repo);
    const outside = extra.map((p) => snapshotTree(p));
    const argv = typeof row.argv === 'function' ? row.argv(repo) : row.argv;
    const r = await runCli(argv, { cwd: repo, env });
    if (process.env.PRINT_FIRST_LINES) console.info(`${row.name} → exit ${r.code}: ${r.stderr.split('\n')[0]}`);
    expect(r.code, r.stderr).toBe(row.code);
    for (const text of row.says) expect(r.stderr).toMatch(text);
    if (row.code === 0) {
      expect(outsideOwned(snapshotTree(repo))).toEqual(outsideOwned(before));
      row.after?.(repo, r);
    } else {
      expect(snapshotTree(repo)).toEqual(before);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(path.join(repo, '.capi-render-write'))).toBe(false);
    extra.forEach((p, i) => expect(snapshotTree(p)).toEqual(outside[i]));
    expect(git(repo, env, 'fsck', '--no-progress')).toBe('');
  });
});

describe('line endings, byte-order marks and merge conflicts are not changes', () => {
  it('CRLF line ends and a BOM in inputs leave the lock as it is; check and --frozen pass', async () => {
    const { repo, env } = exampleRepo();
    const core = path.join(repo, 'providers/core.yaml');
    writeFileSync(core, `\ufeff${readFileSync(core, 'utf8').replace(/\n/g, '\r\n')}`);
    const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
    writeFileSync(overlay, readFileSync(overlay, 'utf8').replace(/\n/g, '\r\n'));
    const check = await runCli(['check'], { cwd: repo, env });
    expect(check.code, check.stderr).toBe(0);
    const frozen = await runCli(['build', '--frozen'], { cwd: repo, env });
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(frozen.stderr).toContain('capi-render.lock unchanged');
  });

  it('check and --frozen name the input files that changed', async () => {
    const { repo, env } = exampleRepo();
    edit(path.join(repo, 'overlays/prod/patches/ha-core.yaml'), /replicas: \d+/, 'replicas: 4');
    const check = await runCli(['check'], { cwd: repo, env });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(
      'prod: inputs changed (changed input files: overlays/prod/patches/ha-core.yaml (edited))',
    );
    const frozen = await runCli(['build', '--frozen'], { cwd: repo, env });
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain('changed input files: overlays/prod/patches/ha-core.yaml (edited)');
  });

  it('a lock with git conflict markers: the line, and how to get out', async () => {
    const { repo, env } = exampleRepo();
    const lock = path.join(repo, 'capi-render.lock');
    const lines = readFileSync(lock, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('version: v1.11.0'));
    lines.splice(
      at,
      1,
      '<<<<<<< HEAD',
      lines[at]!,
      '=======',
      lines[at]!.replace('v1.11.0', 'v1.12.0'),
      '>>>>>>> upgrade',
    );
    writeFileSync(lock, lines.join('\n'));
    const before = snapshotTree(repo);
    const r = await runCli(['build'], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `capi-render.lock:${at + 1}:1: error[lock]: capi-render.lock has unresolved git merge conflict markers`,
    );
    expect(r.stderr).toMatch(
      /hint: take one side whole \(`git checkout --ours capi-render\.lock` or `--theirs`\), then run `capi-render build`/,
    );
    expect(snapshotTree(repo)).toEqual(before);
  });
});
