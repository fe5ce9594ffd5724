/**
 * The HTML report's pieces without a browser: the version matrix and its marks, findings merged
 * across environments, container args diffed flag by flag (the report's and `diff`'s model), where
 * paths and values may wrap, each environment's delivery, every value escaped, templates that would
 * load anything refused, and the table of finding codes in docs/upgrades-and-report.md in step with the report's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_WHY } from '../../src/diff/finding-why.js';
import type {
  DeliveryModel,
  FieldChange,
  Finding,
  FindingCode,
  KubeObject,
  RenderedSide,
  ReportModel,
} from 'capi-render';
import { emptyLock } from '../../src/lock/lock-types.js';
import { packagePath } from '../../src/package-files.js';
import { buildReportModel } from '../../src/report/build-report-model.js';
import { networkReference, renderReportHtml, REPORT_TEMPLATE } from '../../src/report/render-report-html.js';
import { buildUpgradeReview, pathParts, textParts } from '../../src/report/upgrade-review.js';
import { buildDelivery, readDeliverySettings, type DeliverySettings } from '../../src/report/delivery.js';
import { diffRendered } from '../../src/diff/diff-rendered.js';
import { formatDiffText } from '../../src/diff/format-text.js';
import { resolveGitopsOptions, type GitopsOptions } from '../../src/gitops/options.js';
import { loadConfig } from '../../src/config/load-config.js';
import { copyExample } from '../helpers/repo.js';
import type { Flavour } from '../../src/report/util-report.js';
import { buildVersionMatrix } from '../../src/report/version-matrix.js';
import { SpecError } from '../../src/errors.js';
import { readTextFileSync } from '../../src/template-files.js';
import type { CertManagerPlanRow } from '../../src/upgrade/cert-manager-plan.js';
import type { EnvironmentUpgradePlan, ProviderPlanRow } from '../../src/upgrade/plan.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { tempTree } from '../helpers/tmp.js';

const live = { source: 'live', fetchedAt: null, note: null } as const;

function row(label: string, version: string, extra: Partial<ProviderPlanRow> = {}): ProviderPlanRow {
  const kind =
    label === 'cluster-api'
      ? 'CoreProvider'
      : label.startsWith('bootstrap')
        ? 'BootstrapProvider'
        : 'InfrastructureProvider';
  return {
    provider: `${kind}/ns/${label}`,
    kind,
    name: label,
    namespace: `${label}-system`,
    label,
    version,
    contract: 'v1beta2',
    latestPatch: null,
    sameContract: null,
    newest: null,
    versions: live,
    ...extra,
  };
}

function plan(
  environment: string,
  providers: ProviderPlanRow[],
  certManager: CertManagerPlanRow | null = null,
): EnvironmentUpgradePlan {
  return {
    environment,
    core: { provider: 'CoreProvider/capi-system/cluster-api', version: providers[0]!.version, contract: 'v1beta2' },
    providers,
    certManager,
    contracts: [],
    images: [],
  };
}

const BUNDLED = { userDir: undefined, bundledDir: packagePath('bundled-templates'), read: readTextFileSync };

describe('buildVersionMatrix', () => {
  const cm: CertManagerPlanRow = {
    version: 'v1.16.1',
    requested: 'v1.16.1',
    clusterctlDefault: 'v1.21.1',
    latestPatch: 'v1.16.3',
    newest: 'v1.19.4',
    versions: live,
  };
  const plans = [
    plan('dev', [row('cluster-api', 'v1.12.0'), row('infrastructure-docker', 'v1.12.0')], cm),
    plan('prod', [row('cluster-api', 'v1.11.0', { sameContract: 'v1.12.0', latestPatch: 'v1.11.2' })]),
    plan('stage', [
      row('cluster-api', 'v1.10.4', {
        contract: 'v1beta1',
        newest: { version: 'v1.12.0', contract: 'v1beta2', coreFirst: false },
      }),
    ]),
  ];
  const flavours = new Map<string, Flavour>([
    ['dev', 'flux'],
    ['prod', 'argocd'],
    ['stage', 'flux'],
  ]);
  const matrix = buildVersionMatrix(plans, flavours);

  it('groups the environments by GitOps flavour (Argo CD, Flux, kustomize), then by name', () => {
    expect(matrix.groups.map((g) => [g.title, g.span])).toEqual([
      ['Argo CD', 1],
      ['Flux', 2],
    ]);
    expect(matrix.columns.map((c) => c.environment)).toEqual(['prod', 'dev', 'stage']);
  });

  it.each([
    {
      name: 'a newer patch and a newer minor in the same contract',
      provider: 'cluster-api',
      env: 'prod',
      version: 'v1.11.0',
      marks: ['patch', 'minor'],
    },
    {
      name: 'a release for a next contract',
      provider: 'cluster-api',
      env: 'stage',
      version: 'v1.10.4',
      marks: ['contract'],
    },
    { name: 'up to date', provider: 'cluster-api', env: 'dev', version: 'v1.12.0', marks: [] },
    {
      name: 'cert-manager: a newer patch and release, never a contract',
      provider: 'cert-manager',
      env: 'dev',
      version: 'v1.16.1',
      marks: ['patch', 'minor'],
    },
    { name: 'not installed', provider: 'infrastructure-docker', env: 'prod', version: '', marks: [] },
  ])('$name', ({ provider, env, version, marks }) => {
    const cells = matrix.rows.find((r) => r.name === provider)!.cells;
    const cell = cells[matrix.columns.findIndex((c) => c.environment === env)]!;
    expect([cell.version, cell.marks.map((m) => m.code), cell.present]).toEqual([version, marks, version !== '']);
  });

  it('puts cert-manager first, then the providers in install order', () => {
    expect(matrix.rows.map((r) => r.name)).toEqual(['cert-manager', 'cluster-api', 'infrastructure-docker']);
  });
});

describe('the upgrade review', () => {
  const finding = (env: string, severity: Finding['severity'], code: FindingCode): Finding => ({
    severity,
    code,
    env,
    component: 'cluster-api',
    object: 'Deployment.apps/capi-system/capi-controller-manager',
    message: 'container manager: `a` → `b`',
  });
  const comparison = {
    base: 'main',
    commit: 'a'.repeat(40),
    where: 'rendered',
    before: emptyLock(),
    after: emptyLock(),
    report: {
      changes: [],
      findings: [
        finding('dev', 'warning', 'feature-gates-changed'),
        finding('prod', 'warning', 'feature-gates-changed'),
        finding('prod', 'info', 'image-changed'),
      ],
    },
  };

  it('merges a finding that several environments share, keeps the ranking, and says why it matters', () => {
    const review = buildUpgradeReview(comparison, []);
    expect(review.findings.map((f) => [f.severity, f.code, f.environments, f.open])).toEqual([
      ['warning', 'feature-gates-changed', 'dev, prod', true],
      ['info', 'image-changed', 'prod', false],
    ]);
    expect(review.findings[0]!.why).toBe(FINDING_WHY['feature-gates-changed']);
    expect(review.findings[0]!.message).toEqual([
      { text: 'container manager: ', code: false },
      { text: 'a', code: true },
      { text: ' → ', code: false },
      { text: 'b', code: true },
    ]);
    // Counts are per environment, as `capi-render diff` counts them.
    expect(review.counts).toEqual({ danger: 0, warning: 2, info: 1 });
    // The summary table: the rows diff prints (no lock here, so no version is known).
    expect(review.summaryRows.map((r) => [r.environment, r.provider, r.version, r.danger, r.warning, r.info])).toEqual([
      ['dev', 'cluster-api', 'unchanged', 0, 1, 0],
      ['prod', 'cluster-api', 'unchanged', 0, 1, 1],
    ]);
  });

  it('puts a summary a reviewer can act on at the top', () => {
    const model = buildReportModel({ environments: [], plans: [], comparison, selected: [] });
    expect([model.summary, model.tone]).toEqual([
      '2 environments changed; 0 dangers; 2 warnings; 1 info finding',
      'warning',
    ]);
  });
});

const HOSTILE = '<script>window.__pwned=1</script>"\'`=&';
/** A model with a hostile value in every string the page prints. */
function hostileModel(): ReportModel {
  const text = [
    { text: HOSTILE, code: false },
    { text: HOSTILE, code: true },
  ];
  return {
    title: HOSTILE,
    summary: HOSTILE,
    tone: 'danger',
    matrix: {
      groups: [{ flavour: 'argocd', title: HOSTILE, span: 1 }],
      columns: [{ environment: HOSTILE, flavour: 'argocd', anchor: HOSTILE }],
      rows: [
        {
          name: HOSTILE,
          kind: HOSTILE,
          cells: [
            {
              environment: HOSTILE,
              present: true,
              version: HOSTILE,
              contract: HOSTILE,
              marks: [{ code: 'patch', label: HOSTILE, title: HOSTILE }],
              details: [{ label: HOSTILE, value: HOSTILE }],
            },
          ],
        },
      ],
    },
    environments: [
      {
        name: HOSTILE,
        anchor: HOSTILE,
        flavour: 'argocd',
        flavourTitle: HOSTILE,
        labels: [{ key: HOSTILE, value: HOSTILE }],
        core: HOSTILE,
        objectTotal: 1,
        objectTotalPhrase: HOSTILE,
        kinds: [{ kind: HOSTILE, count: 1 }],
        crds: [
          {
            name: HOSTILE,
            component: HOSTILE,
            versions: [{ name: HOSTILE, served: true, storage: true, deprecated: false, flags: HOSTILE }],
          },
        ],
        images: [{ image: HOSTILE, components: HOSTILE }],
        movedTags: [{ image: HOSTILE, locked: HOSTILE, current: HOSTILE }],
        delivery: {
          controller: HOSTILE,
          mode: HOSTILE,
          destination: HOSTILE,
          digest: HOSTILE,
          facts: [
            { label: HOSTILE, value: HOSTILE, code: true, note: HOSTILE },
            { label: HOSTILE, value: HOSTILE, code: false, note: '' },
          ],
          note: text,
        },
        rbac: {
          applier: HOSTILE,
          applierNote: text,
          clusterRules: [HOSTILE],
          clusterRulesPhrase: HOSTILE,
          namespaces: [{ namespace: HOSTILE, rules: [HOSTILE], rulesPhrase: HOSTILE }],
          notes: [HOSTILE],
          grants: [{ component: HOSTILE, subjects: HOSTILE, clusterScoped: 1, namespaced: 1, escalations: [HOSTILE] }],
        },
        plans: [
          {
            contract: HOSTILE,
            current: true,
            status: HOSTILE,
            command: HOSTILE,
            blockers: [HOSTILE],
            steps: [HOSTILE],
          },
        ],
      },
    ],
    review: {
      base: HOSTILE,
      commit: HOSTILE,
      summaryRows: [
        {
          environment: HOSTILE,
          provider: HOSTILE,
          version: HOSTILE,
          contract: HOSTILE,
          contractMoves: true,
          danger: 1,
          warning: 0,
          info: 0,
        },
      ],
      counts: { danger: 1, warning: 0, info: 0 },
      changedEnvironments: [HOSTILE],
      versionChanges: [{ environment: HOSTILE, component: HOSTILE, from: HOSTILE, to: HOSTILE, contract: HOSTILE }],
      findings: [
        {
          severity: 'danger',
          code: HOSTILE,
          why: HOSTILE,
          component: HOSTILE,
          object: HOSTILE,
          message: text,
          details: [text],
          environments: HOSTILE,
          open: true,
        },
      ],
      objectCounts: HOSTILE,
      places: [
        {
          place: HOSTILE,
          objects: [
            {
              change: 'changed',
              mark: HOSTILE,
              id: HOSTILE,
              note: HOSTILE,
              fields: [
                {
                  change: 'changed',
                  mark: HOSTILE,
                  path: HOSTILE,
                  pathParts: [HOSTILE, HOSTILE],
                  text: HOSTILE,
                  textParts: [HOSTILE],
                  lines: [HOSTILE],
                  properties: [{ text: HOSTILE, pathParts: [HOSTILE] }],
                },
              ],
            },
          ],
        },
      ],
    },
    findingCodes: [{ code: HOSTILE, why: HOSTILE }],
  };
}

describe('renderReportHtml', () => {
  it('opens the upgrade review with the summary table, in a scrolling wrapper, right under the summary line', () => {
    const model = hostileModel();
    model.review!.summaryRows = [
      {
        environment: 'prod',
        provider: 'cluster-api',
        version: 'v1.10.4 → v1.11.0',
        contract: 'v1beta1 → v1beta2',
        contractMoves: true,
        danger: 2,
        warning: 1,
        info: 0,
      },
      {
        environment: 'prod',
        provider: 'cert-manager',
        version: 'v1.18.0 → v1.19.4',
        contract: '-',
        contractMoves: false,
        danger: 0,
        warning: 0,
        info: 3,
      },
    ];
    const html = renderReportHtml(model, BUNDLED);
    const table = html.indexOf('<div class="table-scroll"><table class="summary-table" id="summary-table">');
    expect(table).toBeGreaterThan(html.indexOf('id="summary"'));
    expect(table).toBeLessThan(html.indexOf('<nav>'));
    expect(html).toContain(
      '<tr><td>prod</td><td>cluster-api</td><td>v1.10.4 → v1.11.0</td><td><strong>v1beta1 → v1beta2</strong></td><td>2</td><td>1</td><td>0</td></tr>',
    );
    expect(html).toContain(
      '<tr><td>prod</td><td>cert-manager</td><td>v1.18.0 → v1.19.4</td><td>-</td><td>0</td><td>0</td><td>3</td></tr>',
    );
    // Without --base there is no review and no table.
    expect(renderReportHtml({ ...model, review: null }, BUNDLED)).not.toContain('summary-table');
  });

  it('shows the tags that moved since they were pinned', () => {
    const model = hostileModel();
    model.environments[0]!.movedTags = [{ image: 'r.example/a/c:v1', locked: 'sha256:aaaa', current: 'sha256:bbbb' }];
    const html = renderReportHtml(model, BUNDLED);
    expect(html).toContain('Tags moved since they were pinned');
    expect(html).toContain(
      '<code>r.example/a/c:v1</code> <span class="muted">locked sha256:aaaa, now sha256:bbbb</span>',
    );
    model.environments[0]!.movedTags = [];
    expect(renderReportHtml(model, BUNDLED)).not.toContain('Tags moved since they were pinned');
  });

  it('escapes every value: no markup, no attribute break-out, nothing loaded', () => {
    const html = renderReportHtml(hostileModel(), BUNDLED);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('__pwned=1');
    expect(html).toContain('&lt;script&gt;window.__pwned&#x3D;1&lt;/script&gt;&quot;&#x27;&#x60;&#x3D;&amp;');
    expect(networkReference(html)).toBeUndefined();
  });

  it.each([
    { name: 'a script', html: '<p>x</p><script src="https://cdn.example.com/x.js"></script>', found: '<script>' },
    { name: 'a stylesheet', html: '<link rel="stylesheet" href="https://fonts.example.com/a.css">', found: '<link>' },
    { name: 'an image', html: '<img src="https://example.com/x.png">', found: '<img>' },
    {
      name: 'a font in CSS',
      html: '<style>@font-face { src: url(https://fonts.example.com/f.woff2) }</style>',
      found: 'CSS url(',
    },
    { name: 'an @import', html: '<style>@import "x.css";</style>', found: 'CSS @import' },
    { name: 'a style attribute', html: '<div style="background: url(//example.com/x.png)">', found: 'CSS url(' },
    {
      name: 'a refresh',
      html: '<meta http-equiv="refresh" content="0; url=https://example.com">',
      found: '<meta http-equiv>',
    },
  ])('finds what would load when viewed: $name', ({ html, found }) => {
    expect(networkReference(html)).toBe(found);
  });

  it.each([
    { name: 'a link to click', html: '<a href="https://github.com/acme/mgmt">repo</a>' },
    { name: 'data attributes', html: '<td data-env="prod" data-mark="minor">' },
    { name: 'a data: image in CSS', html: '<style>.x { background: url(data:image/png;base64,AAAA) }</style>' },
    { name: 'a URL as text', html: '<p>url(https://example.com) @import</p>' },
  ])('lets pass what loads nothing: $name', ({ html }) => {
    expect(networkReference(html)).toBeUndefined();
  });

  it("uses the repository's own template, and refuses one that loads anything or lacks the marker", () => {
    const model = hostileModel();
    const own = tempTree({
      [REPORT_TEMPLATE]: '<!DOCTYPE html>\n<meta name="generator" content="capi-render report">\n<h1>{{title}}</h1>\n',
    });
    expect(renderReportHtml(model, { ...BUNDLED, userDir: own })).toContain('<h1>&lt;script&gt;');
    const cases: [string, RegExp][] = [
      [
        '<meta name="generator" content="capi-render report"><script src="x.js"></script>{{title}}',
        /loads something when viewed \(<script>\)/,
      ],
      ['<h1>{{title}}</h1>', /without the line <meta name="generator"/],
      ['<meta name="generator" content="capi-render report">{{nosuchfield}}', /"nosuchfield" not defined/],
    ];
    for (const [template, message] of cases) {
      const dir = tempTree({ [REPORT_TEMPLATE]: template });
      let error: unknown;
      try {
        renderReportHtml(model, { ...BUNDLED, userDir: dir });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SpecError);
      const d = (error as SpecError).diagnostics[0]!;
      expect([d.code, d.file]).toEqual(['template', path.join(dir, REPORT_TEMPLATE)]);
      expect(d.message).toMatch(message);
    }
  });
});

describe('the object diff: container args flag by flag', () => {
  const ARGS = 'spec.template.spec.containers[name=manager].args';
  const deployment = (args: string[], list = 'containers'): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'capi-controller-manager', namespace: 'capi-system' },
    spec: { template: { spec: { [list]: [{ name: 'manager', image: 'capi:v1', args }] } } },
  });
  const side = (o: KubeObject): RenderedSide => ({ environments: { prod: { 'cluster-api': [o] } } });
  const fieldsOf = (before: KubeObject, after: KubeObject) => diffRendered(side(before), side(after))[0]!.fields;

  it.each<{ name: string; before: string[]; after: string[]; fields: FieldChange[]; list?: string }>([
    {
      name: 'a new value is one changed flag',
      before: ['--leader-elect', '--v=1'],
      after: ['--leader-elect', '--v=2'],
      fields: [{ path: `${ARGS}[--v]`, kind: 'changed', before: '--v=1', after: '--v=2' }],
    },
    {
      name: 'flags that appear or disappear are listed one by one',
      before: ['--a=1', '--b'],
      after: ['--b', '--c=3', '--d'],
      fields: [
        { path: `${ARGS}[--a]`, kind: 'removed', before: '--a=1' },
        { path: `${ARGS}[--c]`, kind: 'added', after: '--c=3' },
        { path: `${ARGS}[--d]`, kind: 'added', after: '--d' },
      ],
    },
    {
      name: 'a bare flag that gets a value',
      before: ['--leader-elect'],
      after: ['--leader-elect=false'],
      fields: [
        { path: `${ARGS}[--leader-elect]`, kind: 'changed', before: '--leader-elect', after: '--leader-elect=false' },
      ],
    },
    {
      name: 'a flag given twice is compared as its occurrences',
      before: ['--tls=a', '--tls=b'],
      after: ['--tls=a'],
      fields: [{ path: `${ARGS}[--tls]`, kind: 'changed', before: ['--tls=a', '--tls=b'], after: '--tls=a' }],
    },
    {
      name: 'a positional argument is keyed by itself, quoted',
      before: ['controller', '--v=1'],
      after: ['manager', '--v=1'],
      fields: [
        { path: `${ARGS}["controller"]`, kind: 'removed', before: 'controller' },
        { path: `${ARGS}["manager"]`, kind: 'added', after: 'manager' },
      ],
    },
    {
      name: 'the same arguments in another order',
      before: ['run', '--v=1'],
      after: ['--v=1', 'run'],
      fields: [
        { path: ARGS, kind: 'changed', before: ['run', '--v=1'], after: ['--v=1', 'run'], summary: 'order changed' },
      ],
    },
    {
      name: 'an init container too',
      list: 'initContainers',
      before: ['--v=1'],
      after: ['--v=1', '--x'],
      fields: [{ path: 'spec.template.spec.initContainers[name=manager].args[--x]', kind: 'added', after: '--x' }],
    },
  ])('$name', ({ before, after, fields, list }) => {
    expect(fieldsOf(deployment(before, list), deployment(after, list))).toEqual(fields);
  });

  it('leaves a list named args outside a container whole', () => {
    const widget = (args: string[]) =>
      ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { args } }) as KubeObject;
    expect(fieldsOf(widget(['--v=1']), widget(['--v=2']))).toEqual([
      { path: 'spec.args', kind: 'changed', before: ['--v=1'], after: ['--v=2'] },
    ]);
  });

  it('is what `diff` prints and what the report shows, its path cut at . and [', () => {
    const gates = (g: string) => ['--leader-elect', '--diagnostics-address=:8443', `--feature-gates=${g}`];
    const changes = diffRendered(
      side(deployment(gates('MachinePool=true,ClusterTopology=false'))),
      side(deployment([...gates('MachinePool=true,ClusterTopology=true'), '--v=2'])),
    );
    expect(formatDiffText(changes, [])).toBe(`Objects: 0 added, 0 removed, 1 changed
prod/cluster-api
  ~ Deployment.apps/capi-system/capi-controller-manager
      ~ ${ARGS}[--feature-gates]: "--feature-gates=MachinePool=true,ClusterTopology=false" → "--feature-gates=MachinePool=true,ClusterTopology=true"
      + ${ARGS}[--v]: "--v=2"
`);
    const review = buildUpgradeReview(
      {
        base: 'main',
        commit: 'a'.repeat(40),
        where: 'rendered',
        before: emptyLock(),
        after: emptyLock(),
        report: { changes, findings: [] },
      },
      [],
    );
    const [gate, verbosity] = review.places[0]!.objects[0]!.fields;
    expect(gate!.pathParts).toEqual([
      'spec',
      '.template',
      '.spec',
      '.containers',
      '[name=manager]',
      '.args',
      '[--feature-gates]',
    ]);
    expect(gate!.textParts).toEqual([
      '"--feature-gates=MachinePool=true,',
      'ClusterTopology=false" → "--feature-gates=MachinePool=true,',
      'ClusterTopology=true"',
    ]);
    expect([verbosity!.change, verbosity!.text]).toEqual(['added', '"--v=2"']);
  });
});

describe('where a path and a value may wrap', () => {
  it.each([
    ['version', ['version']],
    ['metadata.labels["cluster.x-k8s.io/provider"]', ['metadata', '.labels', '["cluster', '.x-k8s', '.io/provider"]']],
    ['rules[secrets]', ['rules', '[secrets]']],
  ])('path %s', (path, parts) => {
    expect(pathParts(path)).toEqual(parts);
    expect(parts.join('')).toBe(path);
  });

  it.each([
    ['["a","b"] → ["b","a"]', ['["a",', '"b"] → ["b",', '"a"]']],
    [
      'schema changed (2 fields added, 0 removed, 0 changed)',
      ['schema changed (2 fields added, 0 removed, 0 changed)'],
    ],
  ])('text %s', (text, parts) => {
    expect(textParts(text)).toEqual(parts);
  });
});

describe('delivery: where each environment goes and where its controller reads', () => {
  const settings = (options: GitopsOptions): DeliverySettings => ({
    options: resolveGitopsOptions({
      ...options,
      argocd: { pathPrefix: 'rendered', ...options.argocd },
      flux: { pathPrefix: 'rendered', ...options.flux },
    }),
    outputDir: 'rendered',
  });
  const shown = (d: DeliveryModel) => d.facts.map((f) => `${f.label}: ${f.value}${f.note ? ` (${f.note})` : ''}`);
  const REPO = 'https://github.com/acme/mgmt.git';
  const DIGEST = `sha256:${'ab'.repeat(32)}`;

  it.each<{ name: string; options: GitopsOptions; delivery: Omit<DeliveryModel, 'facts' | 'note'>; facts: string[] }>([
    {
      name: 'Argo CD, the committed path, no destination set: the cluster Argo CD runs in',
      options: { flavour: 'argocd', argocd: { application: true, repoURL: REPO, targetRevision: 'main' } },
      delivery: { controller: 'Argo CD', mode: 'path', destination: 'https://kubernetes.default.svc', digest: '' },
      facts: [
        'controller: Argo CD',
        'destination: https://kubernetes.default.svc (the cluster Argo CD runs in (gitops.argocd.destination is not set))',
        'source: path (the committed output, as a directory of manifests)',
        `repository: ${REPO} (at main)`,
        'path: rendered/prod',
        'Application: capi-prod (namespace argocd, project default)',
      ],
    },
    {
      name: 'Argo CD, the plugin, a cluster by name, from the ApplicationSet',
      options: {
        flavour: 'argocd',
        argocd: {
          applicationSet: true,
          repoURL: REPO,
          source: 'plugin',
          destination: { name: 'mgmt-eu', namespace: 'capi-system' },
        },
      },
      delivery: { controller: 'Argo CD', mode: 'plugin', destination: 'mgmt-eu', digest: '' },
      facts: [
        'controller: Argo CD',
        "destination: mgmt-eu (the cluster's name in Argo CD, namespace capi-system)",
        'source: plugin (capi-render renders at sync time, as a Config Management Plugin, from the inputs and the lock)',
        `repository: ${REPO} (at HEAD)`,
        'plugin: capi-render (run in the repository root with CAPI_ENV=prod)',
        'Application: capi-prod (from the ApplicationSet, namespace argocd, project default)',
      ],
    },
    {
      name: 'Argo CD, the Source Hydrator through a staging branch, no Application generated',
      options: {
        flavour: 'argocd',
        argocd: {
          repoURL: REPO,
          source: 'hydrator',
          destination: { server: 'https://10.0.0.1:6443' },
          hydrator: { hydrateToBranch: 'hydrated-staging' },
        },
      },
      delivery: { controller: 'Argo CD', mode: 'hydrator', destination: 'https://10.0.0.1:6443', digest: '' },
      facts: [
        'controller: Argo CD',
        'destination: https://10.0.0.1:6443 (API server)',
        "source: hydrator (Argo CD's Source Hydrator runs the plugin and commits the result)",
        `repository: ${REPO} (at HEAD)`,
        'plugin: capi-render (run in the repository root with CAPI_ENV=prod)',
        'hydrated to: capi-render-hydrated:rendered/prod (through the staging branch hydrated-staging)',
        'Application: not generated (point your own at the source above (gitops.argocd.application or applicationSet writes one))',
      ],
    },
    {
      name: 'Flux from its GitRepository',
      options: {
        flavour: 'flux',
        flux: { sourceRef: { kind: 'GitRepository', name: 'mgmt', namespace: 'flux-system' } },
      },
      delivery: { controller: 'Flux', mode: 'path', destination: 'the cluster Flux runs in', digest: '' },
      facts: [
        'controller: Flux',
        'destination: the cluster Flux runs in ((gitops.flux.kubeConfig is not set))',
        'source: path (the committed output, from a GitRepository)',
        'repository: GitRepository/flux-system/mgmt',
        'path: rendered/prod',
        'Kustomizations: flux-system (one per component, every 10m)',
      ],
    },
    {
      name: 'Flux from a published artifact pinned by digest, into another cluster',
      options: {
        flavour: 'flux',
        flux: {
          oci: { repository: 'ghcr.io/acme/capi', digest: DIGEST },
          kubeConfig: { secretRef: { name: 'prod-kubeconfig', key: 'value' } },
          serviceAccountName: 'capi-applier',
        },
      },
      delivery: { controller: 'Flux', mode: 'oci', destination: 'Secret flux-system/prod-kubeconfig', digest: DIGEST },
      facts: [
        'controller: Flux',
        "destination: Secret flux-system/prod-kubeconfig (the management cluster's kubeconfig, key value)",
        'source: oci (an OCI artifact `capi-render publish` pushes)',
        'artifact: oci://ghcr.io/acme/capi/prod (OCIRepository flux-system/capi-prod)',
        `pinned digest: ${DIGEST} (Flux applies exactly this artifact)`,
        'Kustomizations: flux-system (one per component, every 10m, as ServiceAccount capi-applier)',
      ],
    },
    {
      name: 'Flux from an artifact that follows its tag',
      options: { flavour: 'flux', flux: { oci: { repository: 'ghcr.io/acme/capi', tag: 'stable' } } },
      delivery: { controller: 'Flux', mode: 'oci', destination: 'the cluster Flux runs in', digest: '' },
      facts: [
        'controller: Flux',
        'destination: the cluster Flux runs in ((gitops.flux.kubeConfig is not set))',
        'source: oci (an OCI artifact `capi-render publish` pushes)',
        'artifact: oci://ghcr.io/acme/capi/prod (OCIRepository flux-system/capi-prod)',
        'pinned digest: none (follows the tag stable)',
        'Kustomizations: flux-system (one per component, every 10m)',
      ],
    },
    {
      name: 'plain kustomize: no controller',
      options: { flavour: 'kustomize' },
      delivery: { controller: 'none', mode: 'none', destination: '', digest: '' },
      facts: [
        'controller: none (the kustomize flavour has no Argo CD or Flux wrapper)',
        'path: rendered/prod (apply it with your own tooling)',
      ],
    },
  ])('$name', ({ options, delivery, facts }) => {
    const built = buildDelivery('prod', settings(options));
    expect(built).toMatchObject(delivery);
    expect(shown(built)).toEqual(facts);
  });

  it('says how to pin an artifact that follows its tag', () => {
    const note = buildDelivery(
      'prod',
      settings({ flavour: 'flux', flux: { oci: { repository: 'r.example/c' } } }),
    ).note;
    expect(note.map((s) => (s.code ? `\`${s.text}\`` : s.text)).join('')).toBe(
      'The source moves whenever the tag does: set `gitops.flux.oci.digest` to the digest `capi-render publish` printed to pin it.',
    );
  });

  it("reads each environment's settings as the build does: capi-render.yaml, then its overlays", async () => {
    const repo = copyExample();
    const read = await readDeliverySettings(repo, await loadConfig(repo), ['dev', 'prod']);
    const prod = buildDelivery('prod', read.get('prod')!);
    const dev = buildDelivery('dev', read.get('dev')!);
    expect([prod.controller, prod.mode, prod.destination, shown(prod).find((f) => f.startsWith('repository'))]).toEqual(
      [
        'Argo CD',
        'path',
        'https://kubernetes.default.svc',
        'repository: https://github.com/example/capi-render-example.git (at main)',
      ],
    );
    expect([
      dev.controller,
      dev.mode,
      shown(dev).find((f) => f.startsWith('repository')),
      shown(dev).find((f) => f.startsWith('path')),
    ]).toEqual(['Flux', 'path', 'repository: GitRepository/flux-system/capi-render-example', 'path: rendered/dev']);
  });

  it('the page prints the delivery card and breaks paths only at their parts', () => {
    const model = hostileModel();
    model.environments[0]!.delivery = buildDelivery(
      'prod',
      settings({ flavour: 'flux', flux: { oci: { repository: 'ghcr.io/acme/capi', digest: DIGEST } } }),
    );
    model.review!.places[0]!.objects[0]!.fields[0]!.pathParts = ['spec', '.args', '[--v]'];
    const html = renderReportHtml(model, BUNDLED);
    expect(html).toContain('<div class="card delivery" data-mode="oci">');
    expect(html).toContain(
      `<dt>pinned digest</dt><dd><code>${DIGEST}</code> <span class="muted">Flux applies exactly this artifact</span></dd>`,
    );
    expect(html).toContain('<code class="path"><span>spec</span><span>.args</span><span>[--v]</span></code>');
  });
});

describe('finding codes', () => {
  it('every code has its one line "why it matters" in the table of docs/upgrades-and-report.md, word for word', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'docs/upgrades-and-report.md'), 'utf8');
    for (const [code, why] of Object.entries(FINDING_WHY))
      expect(readme, code).toContain(`| \`${code}\` | ${why.replace(/\|/g, '\\|')} |`);
  });
});
