/**
 * The commands that only read — check, check --live, diff, report, inputs, variables — read nothing but the
 * repository's own regular files: a symbolic link (to a file or a folder), a FIFO in rendered/ or
 * gitops/ is refused with one error naming it, and what such a link points at never reaches stdout
 * or stderr. Secret values are shown as digests in every diff, report and check, even in plaintext mode.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { CORE, configYaml, copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

/** What a planted link points at: a credential file outside the repository. */
const STOLEN = 'dXNlcjpTM2NyM3RQYXNzd29yZA';
const DOCKER_CONFIG = `{"auths":{"ghcr.io":{"auth":"${STOLEN}=="}}}\n`;
const DEPLOYMENT = 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml';

interface Planted {
  /** Repository-relative path the error must name. */
  shown: string;
  /** Undoes what `plant` did, when the tree cannot be snapshot with it in place (a FIFO blocks a read). */
  remove?: () => void;
}

const ROWS: { name: string; plant: (repo: string, outside: string) => Planted }[] = [
  {
    name: 'a rendered file replaced by a symbolic link to a credential file',
    plant: (repo, outside) => {
      writeFileSync(path.join(outside, 'config.json'), DOCKER_CONFIG);
      rmSync(path.join(repo, DEPLOYMENT));
      symlinkSync(path.join(outside, 'config.json'), path.join(repo, DEPLOYMENT));
      return { shown: DEPLOYMENT };
    },
  },
  {
    name: 'an environment folder replaced by a symbolic link to a folder outside',
    plant: (repo, outside) => {
      const elsewhere = path.join(outside, 'dev');
      cpSync(path.join(repo, 'rendered/dev'), elsewhere, { recursive: true });
      writeFileSync(path.join(elsewhere, 'cluster-api/deployment-capi-controller-manager.yaml'), DOCKER_CONFIG);
      rmSync(path.join(repo, 'rendered/dev'), { recursive: true });
      symlinkSync(elsewhere, path.join(repo, 'rendered/dev'));
      return { shown: 'rendered/dev' };
    },
  },
  {
    name: 'a FIFO in place of a rendered file',
    plant: (repo) => {
      const file = path.join(repo, DEPLOYMENT);
      const saved = readFileSync(file);
      rmSync(file);
      execFileSync('mkfifo', [file]);
      return {
        shown: DEPLOYMENT,
        remove: () => {
          rmSync(file);
          writeFileSync(file, saved);
        },
      };
    },
  },
  {
    name: 'a GitOps consumer file replaced by a symbolic link',
    plant: (repo, outside) => {
      writeFileSync(path.join(outside, 'config.json'), DOCKER_CONFIG);
      rmSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'));
      symlinkSync(path.join(outside, 'config.json'), path.join(repo, 'gitops/argocd/applications/prod.yaml'));
      return { shown: 'gitops/argocd/applications/prod.yaml' };
    },
  },
  {
    name: 'the ownership record replaced by a symbolic link',
    plant: (repo, outside) => {
      writeFileSync(path.join(outside, 'config.json'), DOCKER_CONFIG);
      rmSync(path.join(repo, 'rendered/.capi-render-owned'));
      symlinkSync(path.join(outside, 'config.json'), path.join(repo, 'rendered/.capi-render-owned'));
      return { shown: 'rendered/.capi-render-owned' };
    },
  },
];

const COMMANDS: string[][] = [
  ['check'],
  ['check', '--live', 'DUMP', '--env', 'dev'],
  ['diff'],
  ['report', '--offline'],
  ['inputs', '--env', 'dev'],
  ['variables', '--offline'],
];

describe('read-only commands read only regular files', () => {
  it.each(ROWS)(
    '$name: every read-only command refuses it, names it, prints nothing of it, changes nothing',
    async ({ plant }) => {
      const repo = copyExample({ committed: true });
      const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
      initRepo(repo, env);
      const outside = tempDir();
      const dump = path.join(outside, 'dump.yaml');
      writeFileSync(dump, 'apiVersion: v1\nkind: List\nitems: []\n');
      const before = snapshotTree(repo);
      const planted = plant(repo, outside);
      const during = planted.remove ? undefined : snapshotTree(repo);
      for (const argv of COMMANDS) {
        const r = await runCli(
          argv.map((a) => (a === 'DUMP' ? dump : a)),
          { cwd: repo, env },
        );
        const command = argv.slice(0, 2).join(' ');
        expect(r.code, `${command}: ${r.stderr}`).toBe(1);
        const first = r.stderr.split('\n')[0]!;
        expect(first, command).toContain(`${planted.shown}: error[output-location]: ${planted.shown} is a`);
        expect(`${r.stdout}\n${r.stderr}`, command).not.toContain(STOLEN);
        expect(r.stdout, command).toBe('');
      }
      if (planted.remove) {
        planted.remove();
        expect(snapshotTree(repo)).toEqual(before);
      } else expect(snapshotTree(repo)).toEqual(during);
    },
  );

  it('diff refuses a symbolic link committed at the base revision', async () => {
    const repo = copyExample({ committed: true });
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
    const outside = tempDir();
    writeFileSync(path.join(outside, 'config.json'), DOCKER_CONFIG);
    const file = path.join(repo, DEPLOYMENT);
    const saved = readFileSync(file);
    rmSync(file);
    symlinkSync(path.join(outside, 'config.json'), file);
    initRepo(repo, env);
    rmSync(file);
    writeFileSync(file, saved);
    const r = await runCli(['diff'], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain(
      `${DEPLOYMENT}: error[output-location]: HEAD:${DEPLOYMENT} is a symbolic link`,
    );
    expect(r.stdout + r.stderr).not.toContain(STOLEN);
  });
});

// The secret guard's CAPA setup (secret-guard.test.ts): the credential lands in a rendered Secret.
const OLD_CREDENTIAL = Buffer.from(
  '[default]\naws_access_key_id = AKIAOLDEXAMPLEKEY\naws_secret_access_key = oldSecretAccessKey/K7MDENG\n',
).toString('base64');
const NEW_CREDENTIAL = Buffer.from(
  '[default]\naws_access_key_id = AKIANEWEXAMPLEKEY\naws_secret_access_key = newSecretAccessKey/K7MDENG\n',
).toString('base64');
const AWS = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.0.2\n  configSecret:\n    name: aws-variables\n`;
const VARIABLES = (credential: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: "${credential}"\n`;
const PLAINTEXT_CONFIG = configYaml(
  `variables:\n  CAPA_CONTROLLER_IMAGE_TAG: v2.0.2\n  TKG_NO_PROXY: ""\n  TKG_HTTPS_PROXY: ""\n  TKG_HTTP_PROXY: ""\nsecrets:\n  mode: plaintext\n`,
  [`${FIXTURES}derived/tanzu-framework`],
);
/** The digest a Secret's `data` value is shown as: of the bytes its base64 stands for. */
const digest = (credential: string) =>
  `sha256:${createHash('sha256').update(Buffer.from(credential, 'base64')).digest('hex').slice(0, 12)}`;

/** No part of either credential (base64 or the key id it holds) in what the command printed. */
function expectNoValue(r: CliResult, what: string): void {
  const printed = `${r.stdout}\n${r.stderr}`;
  for (const secret of [
    OLD_CREDENTIAL,
    NEW_CREDENTIAL,
    OLD_CREDENTIAL.slice(0, 24),
    NEW_CREDENTIAL.slice(0, 24),
    'AKIAOLDEXAMPLEKEY',
    'AKIANEWEXAMPLEKEY',
    'oldSecretAccessKey',
    'newSecretAccessKey',
  ]) {
    expect(printed, `${what} printed ${secret}`).not.toContain(secret);
  }
}

describe('Secret values in plaintext mode', () => {
  it('diff, report and check show a changed Secret value as sha256 digests, never the value', async () => {
    const repo = makeRepo({
      'capi-render.yaml': PLAINTEXT_CONFIG,
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': AWS,
      'providers/vars.yaml': VARIABLES(OLD_CREDENTIAL),
    });
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    initRepo(repo, env);
    const secretFile = path.join(
      repo,
      'rendered/default/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml',
    );
    expect(readFileSync(secretFile, 'utf8')).toContain(OLD_CREDENTIAL);
    writeFileSync(path.join(repo, 'providers/vars.yaml'), VARIABLES(NEW_CREDENTIAL));

    // check: the committed Secret no longer matches what the inputs render.
    const before = snapshotTree(repo);
    const checked = await runCli(['check'], { cwd: repo, env });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(
      `data.credentials: committed "${digest(OLD_CREDENTIAL)}", inputs render "${digest(NEW_CREDENTIAL)}"`,
    );
    expectNoValue(checked, 'check');
    expect(snapshotTree(repo)).toEqual(before);

    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    expect(readFileSync(secretFile, 'utf8')).toContain(NEW_CREDENTIAL);
    const after = snapshotTree(repo);
    const change = `~ data.credentials: "${digest(OLD_CREDENTIAL)}" → "${digest(NEW_CREDENTIAL)}"`;
    const diffed = await runCli(['diff'], { cwd: repo, env });
    expect(diffed.code, diffed.stderr).toBe(0);
    expect(diffed.stdout).toContain('~ Secret/capa-system/capa-manager-bootstrap-credentials');
    expect(diffed.stdout).toContain(change);
    expectNoValue(diffed, 'diff');
    const markdown = await runCli(['diff', '--markdown'], { cwd: repo, env });
    expect(markdown.stdout).toContain(`\`"${digest(OLD_CREDENTIAL)}"\` → \`"${digest(NEW_CREDENTIAL)}"\``);
    expectNoValue(markdown, 'diff --markdown');
    for (const argv of [
      ['report', '--base', 'HEAD', '--offline'],
      ['report', '--base', 'HEAD', '--offline', '--json'],
    ]) {
      const reported = await runCli(argv, { cwd: repo, env });
      expect(reported.code, reported.stderr).toBe(0);
      expect(reported.stdout).toContain(digest(NEW_CREDENTIAL));
      expectNoValue(reported, argv.join(' '));
    }
    expect(snapshotTree(repo)).toEqual(after);
    expect(git(repo, env, 'status', '--porcelain')).not.toBe('');
  });
});
