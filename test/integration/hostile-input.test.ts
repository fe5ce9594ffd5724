/**
 * Hostile and broken input: each case is one clear error (exit 1) and leaves rendered/ byte for byte
 * as it was. A provider `infrastructure-evil` served from a local repository inside the test repo
 * carries the crafted artifacts.
 */
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureText } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';

const META =
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n';
const EVIL = (extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: evil\n  namespace: evil-system\nspec:\n  version: v1.0.0\n${extra}`;
const ns = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: evil-system\n';
const deployment =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil-controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: registry.example.com/evil:v1.0.0\n';
const artifact = (components: string, metadata = META) => ({
  'artifacts/infrastructure-evil/v1.0.0/infrastructure-components.yaml': components,
  'artifacts/infrastructure-evil/v1.0.0/metadata.yaml': metadata,
  'providers/evil.yaml': EVIL(),
});
const aliasBomb = (levels: number) => {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return lines.join('\n') + '\n';
};

interface Case {
  name: string;
  files?: Record<string, string>;
  setup?: (repo: string) => void;
  code: string;
  text?: RegExp;
}

const cases: Case[] = [
  {
    name: 'a YAML alias bomb in an input file',
    files: {
      'providers/bomb.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x}\ndata:\n${aliasBomb(8).replace(/^/gm, '  ')}`,
    },
    code: 'yaml-limit',
  },
  {
    name: 'a YAML alias bomb in a components artifact',
    files: artifact(
      `${ns}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${aliasBomb(9).replace(/^/gm, '  ')}`,
    ),
    code: 'yaml-limit',
  },
  // 10^7 values, under the 20-million budget: it took 11 s to render (fuzz seed 351917853); clusterctl's
  // go-yaml refuses it for its alias share, and so does the parser now, in milliseconds.
  {
    name: 'a YAML alias bomb under the size budget in a components artifact',
    files: artifact(
      `${ns}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${aliasBomb(7).replace(/^/gm, '  ')}`,
    ),
    code: 'yaml-limit',
    text: /contains excessive aliasing/,
  },
  {
    name: 'a huge input file',
    setup: (repo) => writeFileSync(path.join(repo, 'providers/huge.yaml'), `# ${'x'.repeat(33 * 1024 * 1024)}\n`),
    code: 'yaml-limit',
  },
  {
    name: 'a provider name that would escape the output folder',
    files: { 'providers/evil.yaml': EVIL().replace('name: evil', 'name: ../../etc') },
    code: 'schema',
  },
  {
    name: 'an artifact object name that would escape the output folder',
    files: artifact(`${ns}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../../../tmp/owned\n`),
    code: 'components-invalid',
    text: /not a valid object name/,
  },
  {
    name: 'an artifact object with an invalid namespace',
    files: artifact(`${ns}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ../x\n`),
    code: 'components-invalid',
  },
  {
    name: 'an environment name that is not a folder name',
    files: { 'overlays/bad env/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n' },
    code: 'input-path',
  },
  {
    name: 'a fetchConfig.url with an http scheme',
    files: {
      'providers/evil.yaml': EVIL(
        '  fetchConfig:\n    url: http://example.com/releases/v1.0.0/infrastructure-components.yaml\n',
      ),
    },
    code: 'source-unsupported',
  },
  {
    name: 'a fetchConfig.url with an ftp scheme',
    files: {
      'providers/evil.yaml': EVIL(
        '  fetchConfig:\n    url: ftp://example.com/infrastructure-evil/v1.0.0/infrastructure-components.yaml\n',
      ),
    },
    code: 'source-unsupported',
  },
  {
    name: 'a file:// URL outside the clusterctl layout',
    files: { 'providers/evil.yaml': EVIL('  fetchConfig:\n    url: file:///etc/passwd\n') },
    code: 'source-unsupported',
  },
  {
    name: 'a symlink in providers/ pointing outside the repository',
    setup: (repo) => symlinkSync('/etc/hostname', path.join(repo, 'providers/link.yaml')),
    code: 'input-path',
  },
  {
    name: 'a non-UTF-8 input file',
    setup: (repo) =>
      writeFileSync(
        path.join(repo, 'providers/latin1.yaml'),
        Buffer.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xe9, 0xff, 0x0a]),
      ),
    code: 'input-encoding',
  },
  {
    name: 'duplicate keys in an input file',
    files: {
      'providers/dup.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: x}\nmetadata: {name: e, namespace: x}\n',
    },
    code: 'yaml-duplicate-key',
  },
  {
    name: 'a components file that is a list, not objects',
    files: artifact('- just\n- a list\n'),
    code: 'components-invalid',
  },
  {
    name: 'a components file that is not YAML',
    files: artifact('apiVersion: v1\nkind: [unclosed\n'),
    code: 'yaml-syntax',
  },
  {
    name: 'a metadata.yaml that does not cover the version (real CAP-MicroVM v0.9.0)',
    files: artifact(
      `${ns}---\n${deployment}`,
      fixtureText('derived/codeblind-testdata/infrastructure-microvm/v0.9.0/metadata.yaml'),
    ),
    code: 'contract',
    text: /does not match any release series/,
  },
  {
    name: 'a metadata.yaml with a wrong apiVersion',
    files: artifact(`${ns}---\n${deployment}`, META.replace('clusterctl.cluster.x-k8s.io/v1alpha3', 'v1')),
    code: 'metadata-invalid',
  },
  { name: 'an input that is a YAML list', files: { 'providers/list.yaml': '- a\n- b\n' }, code: 'input-not-object' },
  {
    name: 'an artifact with two Namespace objects',
    files: artifact(`${ns}---\n${ns.replace('evil-system', 'other')}`),
    code: 'namespace',
  },
  {
    name: 'a variable syntax error in an artifact',
    files: artifact(`${ns}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\${BA$R}"}\n`),
    code: 'variables-syntax',
  },
  {
    name: 'a configSecret whose data is not base64',
    files: {
      'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  configSecret: {name: v}\n'),
      'providers/v.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata: {name: v, namespace: capi-system}\ndata: {A: "not base64!"}\n',
    },
    code: 'config-secret',
  },
  {
    name: 'a configSecret fromFile reference to a link to /dev/zero',
    files: { 'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  configSecret: {name: v}\n') },
    setup: (repo) => {
      // Outside the repository (a file inside would have to be ignored by git first).
      const link = `${repo}-zero`;
      symlinkSync('/dev/zero', link);
      writeFileSync(
        path.join(repo, 'providers/v.yaml'),
        `apiVersion: v1\nkind: Secret\nmetadata: {name: v, namespace: capi-system}\nstringData: {A: {fromFile: ${link}}}\n`,
      );
    },
    code: 'config-secret',
    text: /fromFile \S+-zero is a device, not a regular file/,
  },
  {
    name: 'an overlay base outside the repository',
    files: {
      'overlays/a/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../../../etc]\n',
    },
    code: 'overlay',
  },
  {
    name: 'an unsupported webhook apiVersion in an artifact',
    files: artifact(
      `${ns}---\napiVersion: admissionregistration.k8s.io/v2\nkind: ValidatingWebhookConfiguration\nmetadata: {name: w}\nwebhooks: []\n`,
    ),
    code: 'namespace',
  },
  {
    name: 'a provider CR carrying status',
    files: { 'providers/evil.yaml': `${EVIL()}status:\n  installedVersion: v1.0.0\n` },
    code: 'schema',
  },
  {
    name: 'a local repository release file over the release-file limit (never read whole)',
    files: artifact(`${ns}---\n${deployment}`),
    setup: (repo) =>
      truncateSync(
        path.join(repo, 'artifacts/infrastructure-evil/v1.0.0/infrastructure-components.yaml'),
        128 * 1024 * 1024 + 1,
      ),
    code: 'fetch',
    text: /infrastructure-components\.yaml is 134217729 bytes, over the 128 MiB limit for release files/,
  },
  {
    name: 'a gzip bomb as a local repository release file (.gz)',
    files: { ...artifact(''), 'artifacts/infrastructure-evil/v1.0.0/infrastructure-components.yaml': '' },
    setup: (repo) => {
      const dir = path.join(repo, 'artifacts/infrastructure-evil/v1.0.0');
      rmSync(path.join(dir, 'infrastructure-components.yaml'));
      writeFileSync(path.join(dir, 'infrastructure-components.yaml.gz'), gzipSync(Buffer.alloc(129 * 1024 * 1024)));
    },
    code: 'fetch',
    text: /infrastructure-components\.yaml\.gz is more than 134217728 bytes once unpacked/,
  },
];

describe('hostile and broken input', () => {
  it.each(cases)('$name → one error ($code), exit 1, rendered/ untouched', async ({ files, setup, code, text }) => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('  - path: artifacts\n'),
      // artifacts/ exists also where a case carries no artifact (a repositories: path must exist).
      'artifacts/.gitkeep': '',
      'providers/core.yaml': CORE(),
      'rendered/default/kustomization.yaml': 'previous\n',
      'rendered/default/cluster-api/namespace-capi-system.yaml': 'old\n',
      ...files,
    });
    mkdirSync(path.join(repo, 'providers'), { recursive: true });
    setup?.(repo);
    const before = snapshotTree(path.join(repo, 'rendered'));
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => /error\[[a-z-]+\]/.test(l));
    expect(errors, r.stderr).toHaveLength(1);
    expect(errors[0]).toContain(`error[${code}]`);
    if (text) expect(r.stderr).toMatch(text);
    expect(r.stderr).not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(before);
  });

  it('has at least 20 cases', () => expect(cases.length).toBeGreaterThanOrEqual(20));
});
