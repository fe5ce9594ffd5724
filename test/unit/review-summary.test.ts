/**
 * The review's building blocks: the summary table (src/diff/summary-table.ts), findings grouped by cause
 * (group-findings.ts) and the text they make (format-review-text.ts).
 */
import { describe, expect, it } from 'vitest';
import { formatReportMarkdown } from '../../src/diff/format-markdown.js';
import { formatReviewText } from '../../src/diff/format-review-text.js';
import { countMembers, groupFindings, needsAction, noActionTally } from '../../src/diff/group-findings.js';
import {
  buildSummaryRows,
  summaryTableMarkdown,
  summaryTableText,
  type SummaryRow,
  type VersionMove,
} from '../../src/diff/summary-table.js';
import type { Finding, ObjectChange } from 'capi-render';

const CRD = (name: string) => `CustomResourceDefinition.apiextensions.k8s.io/${name}`;
const UNSERVED = ['v1alpha4 is not served: nothing changes.', 'Nothing to do.'];

/** A finding with defaults: an info `image-changed` in prod/cluster-api. */
function finding(over: Partial<Finding> = {}): Finding {
  return {
    severity: 'info',
    code: 'image-changed',
    env: 'prod',
    component: 'cluster-api',
    object: 'Deployment.apps/capi-system/capi-controller-manager',
    message: 'container manager: a → b',
    ...over,
  };
}

function crdAdded(env: string, component: string, name: string, details = UNSERVED): Finding {
  return finding({
    code: 'crd-version-added',
    env,
    component,
    object: CRD(name),
    message: `${name}: version added: v1alpha4 (not served, deprecated)`,
    details,
  });
}

describe('buildSummaryRows', () => {
  const move = (over: Partial<VersionMove> = {}): VersionMove => ({
    env: 'prod',
    component: 'cluster-api',
    from: 'v1.11.0',
    to: 'v1.12.0',
    fromContract: 'v1beta2',
    toContract: 'v1beta2',
    ...over,
  });
  const row = (over: Partial<SummaryRow> = {}): SummaryRow => ({
    environment: 'prod',
    provider: 'cluster-api',
    version: 'v1.11.0 → v1.12.0',
    contract: 'v1beta2',
    contractMoves: false,
    danger: 0,
    warning: 0,
    info: 0,
    ...over,
  });
  it.each([
    { name: 'nothing', findings: [], moves: [], rows: [] },
    { name: 'a move without findings', findings: [], moves: [move()], rows: [row()] },
    {
      name: 'a contract move is shown from → to',
      findings: [],
      moves: [move({ from: 'v1.10.4', fromContract: 'v1beta1' })],
      rows: [row({ version: 'v1.10.4 → v1.12.0', contract: 'v1beta1 → v1beta2', contractMoves: true })],
    },
    {
      name: 'a new provider',
      findings: [],
      moves: [move({ from: undefined, fromContract: undefined })],
      rows: [row({ version: '(none) → v1.12.0' })],
    },
    {
      name: 'a provider that goes',
      findings: [],
      moves: [move({ to: undefined, toContract: undefined })],
      rows: [row({ version: 'v1.11.0 → (removed)' })],
    },
    {
      name: 'cert-manager (no contract)',
      findings: [],
      moves: [
        move({
          component: 'cert-manager',
          from: 'v1.18.0',
          to: 'v1.19.4',
          fromContract: undefined,
          toContract: undefined,
        }),
      ],
      rows: [row({ provider: 'cert-manager', version: 'v1.18.0 → v1.19.4', contract: '-' })],
    },
    {
      name: 'findings count under their component, per severity',
      findings: [
        finding({ severity: 'danger' }),
        finding({ severity: 'warning' }),
        finding(),
        finding(),
        finding({ component: 'bootstrap-kubeadm' }),
      ],
      moves: [move(), move({ component: 'bootstrap-kubeadm' })],
      rows: [row({ provider: 'bootstrap-kubeadm', info: 1 }), row({ danger: 1, warning: 1, info: 2 })],
    },
    {
      name: 'a provider that does not move gets a row only with findings, naming its version',
      findings: [finding({ severity: 'danger' })],
      moves: [move({ from: 'v1.12.0' }), move({ component: 'bootstrap-kubeadm', from: 'v1.12.0' })],
      rows: [row({ version: 'v1.12.0 (unchanged)', danger: 1 })],
    },
    {
      name: 'findings of a component no move names',
      findings: [finding({ component: 'extra' })],
      moves: [],
      rows: [row({ provider: 'extra', version: 'unchanged', contract: '-', info: 1 })],
    },
    {
      name: 'sorted by environment, then provider',
      findings: [finding({ env: 'dev' })],
      moves: [move({ env: 'prod', component: 'z' }), move({ env: 'prod', component: 'a' })],
      rows: [
        row({ environment: 'dev', version: 'unchanged', contract: '-', info: 1 }),
        row({ provider: 'a' }),
        row({ provider: 'z' }),
      ],
    },
  ] as { name: string; findings: Finding[]; moves: VersionMove[]; rows: SummaryRow[] }[])(
    '$name',
    ({ findings, moves, rows }) => {
      expect(buildSummaryRows(findings, moves)).toEqual(rows);
      // The order of the inputs does not matter.
      expect(buildSummaryRows([...findings].reverse(), [...moves].reverse())).toEqual(rows);
    },
  );
});

describe('the summary table', () => {
  const rows: SummaryRow[] = [
    {
      environment: 'prod',
      provider: 'cluster-api',
      version: 'v1.10.4 → v1.11.0',
      contract: 'v1beta1 → v1beta2',
      contractMoves: true,
      danger: 11,
      warning: 14,
      info: 27,
    },
    {
      environment: 'prod',
      provider: 'a|b',
      version: 'v1.11.0 (unchanged)',
      contract: 'v1beta2',
      contractMoves: false,
      danger: 0,
      warning: 1,
      info: 0,
    },
  ];
  it.each([
    {
      name: 'text: padded columns, no trailing spaces',
      lines: summaryTableText(rows),
      expected: [
        'ENVIRONMENT  PROVIDER     VERSION              CONTRACT           DANGER  WARNING  INFO',
        'prod         cluster-api  v1.10.4 → v1.11.0    v1beta1 → v1beta2  11      14       27',
        'prod         a|b          v1.11.0 (unchanged)  v1beta2            0       1        0',
      ],
    },
    {
      name: 'markdown: a moving contract and a danger count in bold, a | escaped',
      lines: summaryTableMarkdown(rows),
      expected: [
        '| Environment | Provider | Version | Contract | Danger | Warning | Info |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| prod | `cluster-api` | v1.10.4 → v1.11.0 | **v1beta1 → v1beta2** | **11** | 14 | 27 |',
        '| prod | `a\\|b` | v1.11.0 (unchanged) | v1beta2 | 0 | 1 | 0 |',
      ],
    },
    {
      name: 'markdown with an extra last column',
      lines: summaryTableMarkdown(rows.slice(0, 1), { title: 'Set in', cell: (r) => `\`${r.provider}.yaml:7\`` }),
      expected: [
        '| Environment | Provider | Version | Contract | Danger | Warning | Info | Set in |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        '| prod | `cluster-api` | v1.10.4 → v1.11.0 | **v1beta1 → v1beta2** | **11** | 14 | 27 | `cluster-api.yaml:7` |',
      ],
    },
    { name: 'text: no rows, no table', lines: summaryTableText([]), expected: [] },
    { name: 'markdown: no rows, no table', lines: summaryTableMarkdown([]), expected: [] },
  ])('$name', ({ lines, expected }) => {
    expect(lines).toEqual(expected);
  });
});

describe('groupFindings', () => {
  const image = (component: string) =>
    finding({
      component,
      object: `Deployment.apps/${component}/manager`,
      message: `container manager: ${component}:v1 → ${component}:v2`,
    });
  const contract = (component: string) =>
    finding({
      severity: 'warning',
      code: 'contract-changed',
      component,
      object: undefined,
      message: `${component}: contract v1beta1 → v1beta2`,
      details: ['move them together'],
    });
  it.each([
    {
      name: 'the same code and explanation on several CRDs: one group, the message without the CRD name',
      findings: [
        crdAdded('prod', 'cluster-api', 'clusters.cluster.x-k8s.io'),
        crdAdded('prod', 'control-plane-kubeadm', 'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io'),
      ],
      groups: [
        {
          code: 'crd-version-added',
          count: '2 objects',
          message: 'version added: v1alpha4 (not served, deprecated)',
          details: UNSERVED,
          members: 2,
          needsAction: false,
        },
      ],
    },
    {
      name: 'another explanation (other versions) is another cause',
      findings: [
        crdAdded('prod', 'cluster-api', 'clusters.cluster.x-k8s.io'),
        crdAdded('prod', 'cluster-api', 'machines.cluster.x-k8s.io', ['v1alpha3, v1alpha4 are not served.']),
      ],
      groups: [
        {
          code: 'crd-version-added',
          count: '1 object',
          message: 'clusters.cluster.x-k8s.io: version added: v1alpha4 (not served, deprecated)',
          details: UNSERVED,
          members: 1,
          needsAction: false,
        },
        {
          code: 'crd-version-added',
          count: '1 object',
          message: 'machines.cluster.x-k8s.io: version added: v1alpha4 (not served, deprecated)',
          details: ['v1alpha3, v1alpha4 are not served.'],
          members: 1,
          needsAction: false,
        },
      ],
    },
    {
      name: 'messages that differ beyond the object name: no shared message, each member keeps its own',
      findings: [image('a'), image('b'), image('c')],
      groups: [
        { code: 'image-changed', count: '3 objects', message: undefined, details: [], members: 3, needsAction: true },
      ],
    },
    {
      name: 'findings about no object share a message once their component is left off',
      findings: [contract('bootstrap-kubeadm'), contract('cluster-api')],
      groups: [
        {
          code: 'contract-changed',
          count: '2 components',
          message: 'contract v1beta1 → v1beta2',
          details: ['move them together'],
          members: 2,
          needsAction: true,
        },
      ],
    },
    {
      name: 'the same code at another severity is another group, danger first',
      findings: [finding(), finding({ severity: 'danger', component: 'x' })],
      groups: [
        {
          code: 'image-changed',
          count: '1 object',
          message: 'container manager: a → b',
          details: [],
          members: 1,
          needsAction: true,
        },
        {
          code: 'image-changed',
          count: '1 object',
          message: 'container manager: a → b',
          details: [],
          members: 1,
          needsAction: true,
        },
      ],
    },
  ] as {
    name: string;
    findings: Finding[];
    groups: {
      code: string;
      count: string;
      message?: string;
      details: string[];
      members: number;
      needsAction: boolean;
    }[];
  }[])('$name', ({ findings, groups }) => {
    const got = groupFindings(findings);
    expect(
      got.map((g) => ({
        code: g.code,
        count: countMembers(g),
        message: g.message,
        details: g.details,
        members: g.members.length,
        needsAction: g.needsAction,
      })),
    ).toEqual(groups);
    // Every finding is in exactly one group.
    expect(got.reduce((n, g) => n + g.members.length, 0)).toBe(findings.length);
    expect(got[0]!.severity).toBe(findings.some((f) => f.severity === 'danger') ? 'danger' : findings[0]!.severity);
  });

  it.each([
    { finding: finding({ code: 'crd-added' }), needs: false },
    { finding: crdAdded('prod', 'cluster-api', 'clusters.cluster.x-k8s.io'), needs: false },
    { finding: finding({ code: 'crd-version-deprecated' }), needs: true },
    { finding: finding(), needs: true },
    // Only info is ever left out: a CRD finding of another severity is read.
    { finding: finding({ code: 'crd-version-added', severity: 'warning' }), needs: true },
  ])('needsAction($finding.severity $finding.code) is $needs', ({ finding: f, needs }) => {
    expect(needsAction(f)).toBe(needs);
  });

  it('one procedure for CRDs whose steps differ only by their own name: <crd> in the steps, each CRD a member without its name repeated', () => {
    const removed = (name: string, stored: string) =>
      finding({
        severity: 'danger',
        code: 'crd-version-removed',
        object: CRD(name),
        message: `${name}: version v1alpha4 (not served) removed`,
        details: [`kubectl get crd ${name} -o jsonpath='{.status.storedVersions}'`, `keep only ${stored}`],
      });
    const groups = groupFindings([
      removed('clusters.cluster.x-k8s.io', 'v1beta1'),
      removed('machines.cluster.x-k8s.io', 'v1beta1'),
      removed('ipaddresses.ipam.cluster.x-k8s.io', 'v1beta2'),
    ]);
    expect(groups.map((g) => ({ members: g.members.map((m) => m.message), details: g.details }))).toEqual([
      {
        members: ['version v1alpha4 (not served) removed', 'version v1alpha4 (not served) removed'],
        details: [
          '<crd> stands for each CRD listed below',
          "kubectl get crd <crd> -o jsonpath='{.status.storedVersions}'",
          'keep only v1beta1',
        ],
      },
      // Another stored version is another procedure; a group of one keeps its own words.
      {
        members: ['ipaddresses.ipam.cluster.x-k8s.io: version v1alpha4 (not served) removed'],
        details: [
          "kubectl get crd ipaddresses.ipam.cluster.x-k8s.io -o jsonpath='{.status.storedVersions}'",
          'keep only v1beta2',
        ],
      },
    ]);
  });

  it('a name in the steps of a finding about another kind of object stays as written', () => {
    const d = (name: string) =>
      finding({
        severity: 'warning',
        code: 'webhook-removed',
        object: `MutatingWebhookConfiguration.admissionregistration.k8s.io/${name}`,
        message: 'removed',
        details: [`check ${name}`],
      });
    expect(groupFindings([d('a'), d('b')]).map((g) => g.details)).toEqual([['check a'], ['check b']]);
  });

  it('tallies what needs no action per code', () => {
    expect(
      noActionTally([crdAdded('a', 'b', 'c'), finding({ code: 'crd-added' }), crdAdded('a', 'b', 'd'), finding()]),
    ).toEqual({
      total: 3,
      codes: [
        { code: 'crd-added', count: 1 },
        { code: 'crd-version-added', count: 2 },
      ],
    });
  });
});

describe('formatReviewText', () => {
  const rows = buildSummaryRows(
    [],
    [
      {
        env: 'prod',
        component: 'cluster-api',
        from: 'v1.11.0',
        to: 'v1.12.0',
        fromContract: 'v1beta2',
        toContract: 'v1beta2',
      },
    ],
  );
  const findings = [
    finding({
      severity: 'warning',
      code: 'args-changed',
      message: 'container manager: arguments changed',
      details: ['--v: 2 → 4'],
    }),
    crdAdded('prod', 'cluster-api', 'clusters.cluster.x-k8s.io'),
    crdAdded('prod', 'cluster-api', 'machines.cluster.x-k8s.io'),
  ];
  const changes: ObjectChange[] = [
    {
      env: 'prod',
      component: 'cluster-api',
      id: CRD('clusters.cluster.x-k8s.io'),
      change: 'changed',
      fields: [{ path: 'spec.versions[name=v1alpha4]', kind: 'added', after: '{5 keys}' }],
    },
    {
      env: 'prod',
      component: 'cluster-api',
      id: 'Deployment.apps/capi-system/capi-controller-manager',
      change: 'changed',
      fields: [{ path: 'spec.replicas', kind: 'changed', before: 1, after: 2 }],
    },
  ];
  const table = [
    'ENVIRONMENT  PROVIDER     VERSION            CONTRACT  DANGER  WARNING  INFO',
    'prod         cluster-api  v1.11.0 → v1.12.0  v1beta2   0       0        0',
  ];
  const warning = [
    'WARNING prod/cluster-api Deployment.apps/capi-system/capi-controller-manager [args-changed]',
    '        container manager: arguments changed',
    '          - --v: 2 → 4',
  ];
  it.each([
    {
      name: 'compact: the table, the tally instead of the CRD additions, a changed CRD on one line',
      options: {},
      text: [
        ...table,
        '',
        'Findings: 0 dangers, 1 warning, 2 info',
        '2 info findings need no action (crd-version-added 2); --verbose lists them',
        ...warning,
        '',
        'Objects: 0 added, 0 removed, 2 changed; --verbose lists the fields of CRDs',
        'prod/cluster-api',
        `  ~ ${CRD('clusters.cluster.x-k8s.io')} (1 field)`,
        '  ~ Deployment.apps/capi-system/capi-controller-manager',
        '      ~ spec.replicas: 1 → 2',
      ],
    },
    {
      name: 'verbose: the CRD additions as one group, the CRD field by field',
      options: { verbose: true },
      text: [
        ...table,
        '',
        'Findings: 0 dangers, 1 warning, 2 info',
        '2 info findings need no action (crd-version-added 2)',
        ...warning,
        'INFO    2 objects [crd-version-added]',
        '        version added: v1alpha4 (not served, deprecated)',
        ...UNSERVED.map((d) => `          - ${d}`),
        `        prod/cluster-api ${CRD('clusters.cluster.x-k8s.io')}`,
        `        prod/cluster-api ${CRD('machines.cluster.x-k8s.io')}`,
        '',
        'Objects: 0 added, 0 removed, 2 changed',
        'prod/cluster-api',
        `  ~ ${CRD('clusters.cluster.x-k8s.io')}`,
        '      + spec.versions[name=v1alpha4]: {5 keys}',
        '  ~ Deployment.apps/capi-system/capi-controller-manager',
        '      ~ spec.replicas: 1 → 2',
      ],
    },
    { name: '--stat: only the table', options: { stat: true }, text: table },
  ])('$name', ({ options, text }) => {
    // The rows here carry no findings on purpose: the table prints what it is given.
    expect(formatReviewText({ rows, changes, findings }, options)).toBe(`${text.join('\n')}\n`);
  });

  it('says there is nothing to review', () => {
    expect(formatReviewText({ rows: [], changes: [], findings: [] })).toBe('No changes.\n');
  });
});

describe('formatReportMarkdown as a review', () => {
  const rows = buildSummaryRows(
    [],
    [
      {
        env: 'prod',
        component: 'cluster-api',
        from: 'v1.11.0',
        to: 'v1.12.0',
        fromContract: 'v1beta2',
        toContract: 'v1beta2',
      },
    ],
  );
  const images = ['a', 'b'].map((c) =>
    finding({ component: c, object: `Deployment.apps/${c}/manager`, message: `container manager: ${c}:v1 → ${c}:v2` }),
  );
  const findings = [
    ...images,
    crdAdded('prod', 'cluster-api', 'clusters.cluster.x-k8s.io'),
    crdAdded('prod', 'cluster-api', 'machines.cluster.x-k8s.io'),
  ];
  it.each([
    {
      name: 'opens with the table, groups by cause, counts what needs no action',
      options: { rows },
      lines: [
        '## Upgrade safety report',
        '',
        '| Environment | Provider | Version | Contract | Danger | Warning | Info |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        '| prod | `cluster-api` | v1.11.0 → v1.12.0 | v1beta2 | 0 | 0 | 0 |',
        '',
        'Findings: 0 dangers, 0 warnings, 4 info. Objects: 0 added, 0 removed, 0 changed.',
        '',
        '2 info findings need no action (`crd-version-added` 2); `capi-render diff --verbose` lists them.',
        '',
        '### Info',
        '',
        '- 2 objects (`image-changed`)',
        '  - **prod/a** `Deployment.apps/a/manager`: container manager: a:v1 → a:v2',
        '  - **prod/b** `Deployment.apps/b/manager`: container manager: b:v1 → b:v2',
      ],
    },
    {
      name: 'verbose, without a table (the pull request template prints its own)',
      options: { verbose: true },
      lines: [
        '## Upgrade safety report',
        '',
        'Findings: 0 dangers, 0 warnings, 4 info. Objects: 0 added, 0 removed, 0 changed.',
        '',
        '2 info findings need no action (`crd-version-added` 2).',
        '',
        '### Info',
        '',
        '- 2 objects (`image-changed`)',
        '  - **prod/a** `Deployment.apps/a/manager`: container manager: a:v1 → a:v2',
        '  - **prod/b** `Deployment.apps/b/manager`: container manager: b:v1 → b:v2',
        '- 2 objects (`crd-version-added`): version added: v1alpha4 (not served, deprecated)',
        '  - v1alpha4 is not served: nothing changes.',
        '  - Nothing to do.',
        `  - **prod/cluster-api** \`${CRD('clusters.cluster.x-k8s.io')}\``,
        `  - **prod/cluster-api** \`${CRD('machines.cluster.x-k8s.io')}\``,
      ],
    },
  ])('$name', ({ options, lines }) => {
    expect(formatReportMarkdown([], findings, options)).toBe(`${lines.join('\n')}\n`);
  });
});

describe('formatReviewText --stat without a table', () => {
  it('counts the objects when nothing moves and nothing is found (an overlay edit)', () => {
    const changes: ObjectChange[] = [
      {
        env: 'prod',
        component: 'cluster-api',
        id: 'Deployment.apps/capi-system/capi-controller-manager',
        change: 'changed',
        fields: [{ path: 'spec.replicas', kind: 'changed', before: 2, after: 3 }],
      },
    ];
    expect(formatReviewText({ rows: [], changes, findings: [] }, { stat: true })).toBe(
      'No version changes and no findings; objects: 0 added, 0 removed, 1 changed\n',
    );
    expect(formatReviewText({ rows: [], changes, findings: [] })).toBe(
      'Objects: 0 added, 0 removed, 1 changed\nprod/cluster-api\n  ~ Deployment.apps/capi-system/capi-controller-manager\n      ~ spec.replicas: 2 → 3\n',
    );
  });
});
