import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { summaryTableMarkdown } from '../../src/diff/summary-table.js';
import { renderPrBody, type PrBodyContext } from '../../src/upgrade/pr-body.js';
import { parseRemote } from '../../src/upgrade/pull-request.js';
import type { UpgradeTarget } from '../../src/upgrade/select-targets.js';
import {
  upgradeBranchName,
  upgradeCommand,
  upgradeTitle,
  type UpgradeNaming,
} from '../../src/upgrade/upgrade-naming.js';
import { thrownBy } from '../helpers/errors.js';
import { tempTree } from '../helpers/tmp.js';

describe('parseRemote', () => {
  const config = { enterpriseHosts: [{ origin: 'https://ghe.example.com' }] };
  it.each([
    {
      name: 'https',
      url: 'https://github.com/acme/mgmt.git',
      expected: { owner: 'acme', repo: 'mgmt', apiBaseUrl: 'https://api.github.com', webOrigin: 'https://github.com' },
    },
    {
      name: 'https without .git',
      url: 'https://github.com/acme/mgmt',
      expected: { owner: 'acme', repo: 'mgmt', apiBaseUrl: 'https://api.github.com', webOrigin: 'https://github.com' },
    },
    {
      name: 'scp-like ssh',
      url: 'git@github.com:acme/mgmt.git',
      expected: { owner: 'acme', repo: 'mgmt', apiBaseUrl: 'https://api.github.com', webOrigin: 'https://github.com' },
    },
    {
      name: 'ssh URL',
      url: 'ssh://git@github.com/acme/mgmt.git',
      expected: { owner: 'acme', repo: 'mgmt', apiBaseUrl: 'https://api.github.com', webOrigin: 'https://github.com' },
    },
    {
      name: 'a GitHub Enterprise host',
      url: 'git@ghe.example.com:platform/capi.git',
      expected: {
        owner: 'platform',
        repo: 'capi',
        apiBaseUrl: 'https://ghe.example.com/api/v3',
        webOrigin: 'https://ghe.example.com',
      },
    },
    { name: 'a local path', url: '/srv/git/mgmt.git', expected: undefined },
    { name: 'another forge', url: 'https://gitlab.com/acme/mgmt.git', expected: undefined },
  ])('$name', ({ url, expected }) => {
    expect(parseRemote(url, config)).toEqual(expected);
  });

  it('uses the configured API URL for github.com', () => {
    expect(parseRemote('https://github.com/acme/mgmt', { apiUrl: 'http://127.0.0.1:1' })?.apiBaseUrl).toBe(
      'http://127.0.0.1:1',
    );
  });
});

const target = (
  label: string,
  kind: UpgradeTarget['kind'],
  to: string,
  from = 'v1.11.0',
  environment = 'prod',
): UpgradeTarget => ({
  environment,
  provider: `${kind}/ns/${label}`,
  kind,
  name: label,
  namespace: 'ns',
  label,
  from,
  to,
  fromContract: 'v1beta2',
  toContract: 'v1beta2',
});

describe('upgrade names', () => {
  const core = target('cluster-api', 'CoreProvider', 'v1.12.0');
  const kubeadm = target('bootstrap-kubeadm', 'BootstrapProvider', 'v1.12.0');
  const docker = target('infrastructure-docker', 'InfrastructureProvider', 'v1.12.1');
  it.each([
    {
      name: 'the core release train',
      n: { targets: [core, kubeadm], request: { kind: 'to', version: 'v1.12.0' }, environments: [] },
      branch: 'capi-render/upgrade-cluster-api-v1.12.0',
      title: 'chore(capi): upgrade cluster-api to v1.12.0',
    },
    {
      name: 'one provider',
      n: { targets: [docker], request: { kind: 'latest-patch' }, environments: [] },
      branch: 'capi-render/upgrade-infrastructure-docker-v1.12.1',
      title: 'chore(capi): upgrade infrastructure-docker to v1.12.1',
    },
    {
      name: 'several providers without the core',
      n: { targets: [kubeadm, docker], request: { kind: 'latest-patch' }, environments: [] },
      branch: 'capi-render/upgrade-providers-v1.12.1',
      title: 'chore(capi): upgrade providers to v1.12.1',
    },
    {
      name: 'a contract move',
      n: { targets: [core, kubeadm], request: { kind: 'contract', contract: 'v1beta2' }, environments: [] },
      branch: 'capi-render/upgrade-v1beta2-v1.12.0',
      title: 'chore(capi): upgrade to the v1beta2 contract (cluster-api v1.12.0)',
    },
    {
      name: 'limited environments',
      n: { targets: [core], request: { kind: 'to', version: 'v1.12.0' }, environments: ['prod', 'dev'] },
      branch: 'capi-render/upgrade-cluster-api-v1.12.0-dev-prod',
      title: 'chore(capi): upgrade cluster-api to v1.12.0 in dev, prod',
    },
  ] as { name: string; n: UpgradeNaming; branch: string; title: string }[])('$name', ({ n, branch, title }) => {
    expect(upgradeBranchName(n)).toBe(branch);
    expect(upgradeTitle(n)).toBe(title);
    // Deterministic: the same request names the same branch whatever the target order.
    expect(upgradeBranchName({ ...n, targets: [...n.targets].reverse() })).toBe(branch);
  });

  it('reproduces the command line', () => {
    expect(
      upgradeCommand({
        targets: [core],
        request: { kind: 'to', version: 'v1.12.0' },
        environments: ['prod'],
        providers: ['cluster-api'],
      }),
    ).toBe('capi-render upgrade --env prod --provider cluster-api --to v1.12.0');
  });
});

describe('renderPrBody', () => {
  const row = {
    environment: 'prod',
    provider: 'cluster-api',
    version: 'v1.11.0 → v1.12.0',
    contract: 'v1beta2',
    contractMoves: false,
    danger: 1,
    warning: 0,
    info: 0,
  };
  const context: PrBodyContext = {
    title: 'chore(capi): upgrade cluster-api to v1.12.0',
    command: 'capi-render upgrade --to v1.12.0',
    upgrades: [
      {
        environment: 'prod',
        provider: 'CoreProvider/capi-system/cluster-api',
        label: 'cluster-api',
        from: 'v1.11.0',
        to: 'v1.12.0',
        fromContract: 'v1beta2',
        toContract: 'v1beta2',
        contractChanged: false,
        file: 'providers/core.yaml',
        line: 9,
      },
    ],
    summary: [{ ...row, setIn: '`providers/core.yaml:9`' }],
    summaryTable: summaryTableMarkdown([row], { title: 'Set in', cell: () => '`providers/core.yaml:9`' }).join('\n'),
    environments: ['prod'],
    findings: { danger: 1, warning: 0, info: 0 },
    hasDanger: true,
    report:
      '## Upgrade safety report\n\nFindings: 1 danger, 0 warnings, 0 info. Objects: 0 added, 0 removed, 0 changed.\n',
    htmlReport: {
      command: 'capi-render report --base main --out capi-render-report.html',
      artifact: 'capi-render-report',
      runsUrl: 'https://github.com/acme/mgmt/actions?query=branch%3Acapi-render%2Fupgrade-cluster-api-v1.12.0',
    },
  };

  it('renders the bundled template without HTML escaping', () => {
    const body = renderPrBody({ ...context, command: 'capi-render upgrade --to v1.12.0 <x>' });
    // It opens with the summary table, where each version is set last.
    expect(body.split('\n').slice(0, 3)).toEqual([
      '| Environment | Provider | Version | Contract | Danger | Warning | Info | Set in |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      '| prod | `cluster-api` | v1.11.0 → v1.12.0 | v1beta2 | **1** | 0 | 0 | `providers/core.yaml:9` |',
    ]);
    expect(body).toContain('> Danger findings: 1. Read them below before merging.');
    expect(body).toContain('## Upgrade safety report');
    expect(body).toContain('<x>');
    // The same review as one page: the CI artifact, linked through this branch's workflow runs.
    expect(body).toContain(
      "the `capi-render-report` artifact of [this branch's capi-render workflow runs](https://github.com/acme/mgmt/actions?query=branch%3Acapi-render%2Fupgrade-cluster-api-v1.12.0), or locally `capi-render report --base main --out capi-render-report.html`.",
    );
    expect(renderPrBody({ ...context, htmlReport: { ...context.htmlReport, runsUrl: '' } })).toContain(
      '`capi-render report --base main --out capi-render-report.html`; the CI workflow of `capi-render init` uploads it as the `capi-render-report` artifact.',
    );
  });

  it("prefers the repository's template", () => {
    const userDir = tempTree({ 'pr-body.md.hbs': 'Upgrade: {{#each upgrades}}{{label}} {{to}}{{/each}}\n{{report}}' });
    expect(renderPrBody(context, { userDir })).toBe(`Upgrade: cluster-api v1.12.0\n${context.report}`);
  });

  it.each([
    { name: 'a field the context lacks (strict mode)', template: '{{nope}}' },
    { name: 'a helper that is not built in', template: '{{shout title}}' },
    { name: 'a syntax error', template: '{{#each upgrades}}' },
  ])('fails with code template for $name', ({ template }) => {
    const userDir = tempTree({ 'pr-body.md.hbs': template });
    expect(thrownBy(SpecError, () => renderPrBody(context, { userDir })).code).toBe('template');
  });
});
