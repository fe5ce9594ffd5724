/**
 * The output fingerprint per environment: a build records an entry only for the environments it
 * checked (rendered, or confirmed unchanged), drops every other one whatever the earlier record
 * said, and an entry never vouches for an environment whose files are none or gone. Each case is a
 * sequence of builds as run-build.ts runs them (a wanted environment is skipped when its entry
 * confirms it, else rendered, which writes its files back), with damage done in between.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeFingerprint,
  encodeFingerprint,
  gitopsEnvironmentOf,
  outEnvironmentOf,
} from '../../src/output/fingerprint-record.js';
import {
  environmentUnchanged,
  outputUnchanged,
  sha256Of,
  takeFingerprint,
  type OutputFingerprint,
} from '../../src/output/output-fingerprint.js';
import { OWNERSHIP_FILE } from '../../src/output/ownership.js';
import { isGitopsFileOf } from '../../src/gitops/layout.js';
import { tempDir } from '../helpers/tmp.js';

const ENVS = ['dev', 'prod'] as const;
const KEY = (env: string) => `key-${env}`;

/** What a build writes, per environment, and the fleet's file every build writes. */
const OUT: Record<string, Record<string, string>> = {
  dev: { 'dev/kustomization.yaml': 'resources: [core]\n', 'dev/core/deployment.yaml': 'replicas: 1\n' },
  prod: { 'prod/kustomization.yaml': 'resources: [core]\n', 'prod/core/deployment.yaml': 'replicas: 3\n' },
};
const GITOPS: Record<string, Record<string, string>> = {
  dev: {
    'flux/dev/kustomization.yaml': 'resources: [flux-kustomizations.yaml]\n',
    'flux/dev/flux-kustomizations.yaml': 'kind: Kustomization\n',
  },
  prod: { 'argocd/applications/prod.yaml': 'kind: Application\n', 'secrets/prod.required.yaml': 'secrets: []\n' },
};
const FLEET = { 'argocd/applicationset.yaml': 'kind: ApplicationSet\n' };
/** A folder of rendered/ that is no environment, put there by someone else. */
const FOREIGN = { 'notes/README.md': 'hand-written\n' };

interface Repo {
  out: string;
  gitops: string;
}

function repo(): Repo {
  const root = tempDir();
  const r = { out: path.join(root, 'rendered'), gitops: path.join(root, 'gitops') };
  for (const env of ENVS) writeEnvironment(r, env);
  writeFiles(r.gitops, FLEET);
  writeFiles(r.out, FOREIGN);
  return r;
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

/** As a build writes an environment: its files, and both ownership records listing every environment's. */
function writeEnvironment(r: Repo, env: string): void {
  writeFiles(r.out, OUT[env]!);
  writeFiles(r.gitops, GITOPS[env]!);
  const list = (files: Record<string, string>[]) =>
    `${files
      .flatMap((f) => Object.keys(f))
      .sort()
      .join('\n')}\n`;
  writeFileSync(path.join(r.out, OWNERSHIP_FILE), list(ENVS.map((e) => OUT[e]!)));
  writeFileSync(path.join(r.gitops, OWNERSHIP_FILE), list([...ENVS.map((e) => GITOPS[e]!), FLEET]));
}

/**
 * One build of `wanted` (all: a plain build) as run-build.ts runs it: an environment its entry in
 * `previous` confirms is skipped, any other is rendered (written back); then the record is taken, as
 * if seconds later (outside the racy window). Returns the record and what was rendered.
 */
function build(
  r: Repo,
  previous: OutputFingerprint | undefined,
  wanted: readonly string[] = ENVS,
): { fp: OutputFingerprint; rendered: string[] } {
  const confirmed = wanted.filter((env) => previous && environmentUnchanged(previous, env, KEY(env)));
  const rendered = wanted.filter((env) => !confirmed.includes(env));
  const produced = {
    out: new Map<string, string>(),
    gitops: new Map(Object.entries(FLEET).map(([rel, text]) => [rel, sha256Of(text)])),
  };
  for (const env of rendered) {
    writeEnvironment(r, env);
    for (const [rel, text] of Object.entries(OUT[env]!)) produced.out.set(rel, sha256Of(text));
    for (const [rel, text] of Object.entries(GITOPS[env]!)) produced.gitops.set(rel, sha256Of(text));
  }
  writeFiles(r.gitops, FLEET);
  const fp = takeFingerprint({
    previous,
    outDir: r.out,
    gitopsDir: r.gitops,
    produced,
    rendered: Object.fromEntries(rendered.map((env) => [env, KEY(env)])),
    confirmed,
    allEnvironments: ENVS,
  });
  return { fp: { ...fp, takenAt: fp.takenAt + 10_000 }, rendered };
}

const damages: { name: string; damage: (r: Repo) => void; hits: string[] }[] = [
  { name: 'nothing', damage: () => {}, hits: [] },
  {
    name: 'rm -rf rendered gitops',
    damage: (r) => {
      rmSync(r.out, { recursive: true });
      rmSync(r.gitops, { recursive: true });
    },
    hits: ['dev', 'prod'],
  },
  {
    name: 'rendered/prod deleted',
    damage: (r) => rmSync(path.join(r.out, 'prod'), { recursive: true }),
    hits: ['prod'],
  },
  {
    name: 'a GitOps file of prod deleted',
    damage: (r) => rmSync(path.join(r.gitops, 'argocd/applications/prod.yaml')),
    hits: ['prod'],
  },
  {
    name: 'a file of prod edited',
    damage: (r) => writeFileSync(path.join(r.out, 'prod/core/deployment.yaml'), 'replicas: 9\n'),
    hits: ['prod'],
  },
];
const partials: { name: string; wanted: string[] }[] = [
  { name: '--env dev', wanted: ['dev'] },
  { name: '--env prod', wanted: ['prod'] },
  { name: '--env dev --env prod', wanted: ['dev', 'prod'] },
];

describe('a partial build records only the environments it checked', () => {
  for (const d of damages) {
    for (const p of partials) {
      it(`${d.name}, then build ${p.name}: entries for ${p.wanted.join(' and ')} only; the next plain build renders the rest and every damaged one`, () => {
        const r = repo();
        const first = build(r, undefined).fp;
        expect([...first.environments.keys()]).toEqual([...ENVS]);
        d.damage(r);
        const partial = build(r, first, p.wanted);
        // What the partial build checked it rendered where damaged, else confirmed; nothing else has an entry.
        expect(partial.rendered).toEqual(p.wanted.filter((env) => d.hits.includes(env)));
        expect([...partial.fp.environments.keys()]).toEqual(p.wanted);
        const complete = ENVS.every((env) => p.wanted.includes(env));
        expect(outputUnchanged(partial.fp, ENVS)).toBe(complete);
        for (const env of ENVS) expect(environmentUnchanged(partial.fp, env, KEY(env))).toBe(p.wanted.includes(env));

        // The plain build after it renders every environment the partial build did not check.
        const plain = build(r, partial.fp);
        expect(plain.rendered).toEqual(ENVS.filter((env) => !p.wanted.includes(env)));
        expect(outputUnchanged(plain.fp, ENVS)).toBe(true);
        // The files someone else put in a folder that is no environment are shared, and kept.
        expect(plain.fp.shared.out.get('notes')?.has('README.md') ?? false).toBe(d.name !== 'rm -rf rendered gitops');
      });
    }
  }
});

describe('an entry never vouches for what it has not seen', () => {
  it('an environment whose entry records no files is not unchanged, its folder there or not', () => {
    const r = repo();
    const { fp } = build(r, undefined);
    const empty: OutputFingerprint = {
      ...fp,
      environments: new Map([...fp.environments, ['prod', { key: KEY('prod'), out: new Map(), gitops: new Map() }]]),
    };
    expect(environmentUnchanged(empty, 'prod', KEY('prod'))).toBe(false);
    rmSync(path.join(r.out, 'prod'), { recursive: true });
    expect(environmentUnchanged(empty, 'prod', KEY('prod'))).toBe(false);
    expect(outputUnchanged(empty, ENVS)).toBe(false);
  });

  it('an environment whose folder is gone is not unchanged, nor is the output', () => {
    const r = repo();
    const { fp } = build(r, undefined);
    rmSync(path.join(r.out, 'dev'), { recursive: true });
    expect(environmentUnchanged(fp, 'dev', KEY('dev'))).toBe(false);
    expect(environmentUnchanged(fp, 'prod', KEY('prod'))).toBe(true);
    expect(outputUnchanged(fp, ENVS)).toBe(false);
  });

  it('an entry of other inputs, or none, is not unchanged', () => {
    const { fp } = build(repo(), undefined);
    expect(environmentUnchanged(fp, 'dev', KEY('prod'))).toBe(false);
    expect(environmentUnchanged(fp, 'staging', KEY('staging'))).toBe(false);
    expect(outputUnchanged(fp, [...ENVS, 'staging'])).toBe(false);
  });

  it('a confirmed environment whose file changes before the record is taken loses its entry', () => {
    const r = repo();
    const { fp } = build(r, undefined);
    expect(environmentUnchanged(fp, 'prod', KEY('prod'))).toBe(true);
    // Between the check and the record (a hand edit while the build wrote dev).
    writeFileSync(path.join(r.gitops, 'secrets/prod.required.yaml'), 'secrets: [x]\n');
    const next = takeFingerprint({
      previous: fp,
      outDir: r.out,
      gitopsDir: r.gitops,
      produced: { out: new Map(), gitops: new Map() },
      rendered: {},
      confirmed: ['prod'],
      allEnvironments: ENVS,
    });
    expect([...next.environments.keys()]).toEqual([]);
  });

  it('a confirmed environment whose files were touched (or in the racy window) is hashed again and keeps its entry', () => {
    const r = repo();
    const taken = build(r, undefined).fp;
    // As a record taken right after the write, and the files touched since: only hashing can confirm them.
    const racy: OutputFingerprint = { ...taken, takenAt: taken.takenAt - 10_000 };
    const stamp = new Date(racy.takenAt);
    for (const rel of Object.keys(OUT.prod!)) utimesSync(path.join(r.out, rel), stamp, stamp);
    const next = takeFingerprint({
      previous: racy,
      outDir: r.out,
      gitopsDir: r.gitops,
      produced: { out: new Map(), gitops: new Map() },
      rendered: {},
      confirmed: ['prod'],
      allEnvironments: ENVS,
    });
    expect([...next.environments.keys()]).toEqual(['prod']);
    expect(environmentUnchanged({ ...next, takenAt: next.takenAt + 10_000 }, 'prod', KEY('prod'))).toBe(true);
  });

  it('keeps every entry exactly through its record', () => {
    const { fp } = build(repo(), undefined);
    expect(decodeFingerprint(encodeFingerprint(fp))).toEqual(fp);
    expect(JSON.parse(encodeFingerprint(fp)).environments.map((e: unknown[]) => e[0])).toEqual([...ENVS]);
  });
});

describe('which environment a file belongs to', () => {
  const gitops: [string, string | undefined][] = [
    ['flux/dev/kustomization.yaml', 'dev'],
    ['flux/dev/sub/x.yaml', 'dev'],
    ['argocd/applications/prod.yaml', 'prod'],
    ['secrets/prod.required.yaml', 'prod'],
    ['argocd/applicationset.yaml', undefined],
    ['argocd/applications/prod.yml', undefined],
    ['secrets/prod.yaml', undefined],
    ['flux/kustomization.yaml', undefined],
    ['README.md', undefined],
  ];
  it.each(gitops)('gitops %s: %s, as isGitopsFileOf says', (rel, env) => {
    expect(gitopsEnvironmentOf(rel)).toBe(env);
    if (env) expect(isGitopsFileOf(rel, env)).toBe(true);
  });
  it('an output-folder file belongs to its top folder; one at the top to none', () => {
    expect(outEnvironmentOf('prod/core/deployment.yaml')).toBe('prod');
    expect(outEnvironmentOf(OWNERSHIP_FILE)).toBeUndefined();
  });
  it('agrees with isGitopsFileOf on every file of every environment, the fleet file aside', () => {
    const names = ['dev', 'prod', 'eu-1', 'a.b', 'x_y'];
    const shapes = (e: string) => [
      `flux/${e}/kustomization.yaml`,
      `flux/${e}/oci-repository.yaml`,
      `argocd/applications/${e}.yaml`,
      `secrets/${e}.required.yaml`,
      `argocd/${e}.yaml`,
      `secrets/${e}.yaml`,
    ];
    for (const rel of [...names.flatMap(shapes), 'argocd/applicationset.yaml']) {
      for (const env of names)
        expect(gitopsEnvironmentOf(rel) === env, `${rel} of ${env}`).toBe(
          isGitopsFileOf(rel, env) && rel !== 'argocd/applicationset.yaml',
        );
    }
  });
});
