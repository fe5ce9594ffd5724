/**
 * The HTML report's pieces without a browser: the version matrix and its marks, findings merged
 * across environments, every value escaped, templates that would load anything refused, and the
 * README's table of finding codes in step with the report's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FINDING_WHY } from '../../src/diff/finding-why.js';
import type { Finding, FindingCode } from '../../src/diff/types.js';
import { emptyLock } from '../../src/lock/lock-types.js';
import { packagePath } from '../../src/package-files.js';
import { buildReportModel } from '../../src/report/build-report-model.js';
import { networkReference, renderReportHtml, REPORT_TEMPLATE } from '../../src/report/render-report-html.js';
import type { ReportModel } from '../../src/report/report-model.js';
import { buildUpgradeReview } from '../../src/report/upgrade-review.js';
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
  const kind = label === 'cluster-api' ? 'CoreProvider' : label.startsWith('bootstrap') ? 'BootstrapProvider' : 'InfrastructureProvider';
  return { provider: `${kind}/ns/${label}`, kind, name: label, namespace: `${label}-system`, label, version, contract: 'v1beta2', latestPatch: null, sameContract: null, newest: null, versions: live, ...extra };
}

function plan(environment: string, providers: ProviderPlanRow[], certManager: CertManagerPlanRow | null = null): EnvironmentUpgradePlan {
  return { environment, core: { provider: 'CoreProvider/capi-system/cluster-api', version: providers[0]!.version, contract: 'v1beta2' }, providers, certManager, contracts: [], images: [] };
}

const BUNDLED = { userDir: undefined, bundledDir: packagePath('bundled-templates'), read: readTextFileSync };

describe('buildVersionMatrix', () => {
  const cm: CertManagerPlanRow = { version: 'v1.16.1', requested: 'v1.16.1', clusterctlDefault: 'v1.21.1', latestPatch: 'v1.16.3', newest: 'v1.19.4', versions: live };
  const plans = [
    plan('dev', [row('cluster-api', 'v1.12.0'), row('infrastructure-docker', 'v1.12.0')], cm),
    plan('prod', [row('cluster-api', 'v1.11.0', { sameContract: 'v1.12.0', latestPatch: 'v1.11.2' })]),
    plan('stage', [row('cluster-api', 'v1.10.4', { contract: 'v1beta1', newest: { version: 'v1.12.0', contract: 'v1beta2', coreFirst: false } })]),
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
    { name: 'a newer patch and a newer minor in the same contract', provider: 'cluster-api', env: 'prod', version: 'v1.11.0', marks: ['patch', 'minor'] },
    { name: 'a release for a next contract', provider: 'cluster-api', env: 'stage', version: 'v1.10.4', marks: ['contract'] },
    { name: 'up to date', provider: 'cluster-api', env: 'dev', version: 'v1.12.0', marks: [] },
    { name: 'cert-manager: a newer patch and release, never a contract', provider: 'cert-manager', env: 'dev', version: 'v1.16.1', marks: ['patch', 'minor'] },
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
  const finding = (env: string, severity: Finding['severity'], code: FindingCode): Finding => ({ severity, code, env, component: 'cluster-api', object: 'Deployment.apps/capi-system/capi-controller-manager', message: 'container manager: `a` → `b`' });
  const comparison = {
    base: 'main',
    commit: 'a'.repeat(40),
    where: 'rendered',
    before: emptyLock(),
    after: emptyLock(),
    report: { changes: [], findings: [finding('dev', 'warning', 'feature-gates-changed'), finding('prod', 'warning', 'feature-gates-changed'), finding('prod', 'info', 'image-changed')] },
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
  });

  it('puts a summary a reviewer can act on at the top', () => {
    const model = buildReportModel({ environments: [], plans: [], comparison, selected: [] });
    expect([model.summary, model.tone]).toEqual(['2 environments change; 0 dangers; 2 warnings; 1 info finding', 'warning']);
  });
});

describe('renderReportHtml', () => {
  const HOSTILE = '<script>window.__pwned=1</script>"\'`=&';
  /** A model with a hostile value in every string the page prints. */
  function hostileModel(): ReportModel {
    const text = [{ text: HOSTILE, code: false }, { text: HOSTILE, code: true }];
    return {
      title: HOSTILE,
      summary: HOSTILE,
      tone: 'danger',
      matrix: {
        groups: [{ flavour: 'argocd', title: HOSTILE, span: 1 }],
        columns: [{ environment: HOSTILE, flavour: 'argocd', anchor: HOSTILE }],
        rows: [{ name: HOSTILE, kind: HOSTILE, cells: [{ environment: HOSTILE, present: true, version: HOSTILE, contract: HOSTILE, marks: [{ code: 'patch', label: HOSTILE, title: HOSTILE }], details: [{ label: HOSTILE, value: HOSTILE }] }] }],
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
          kinds: [{ kind: HOSTILE, count: 1 }],
          crds: [{ name: HOSTILE, component: HOSTILE, versions: [{ name: HOSTILE, served: true, storage: true, deprecated: false, flags: HOSTILE }] }],
          images: [{ image: HOSTILE, components: HOSTILE }],
          movedTags: [{ image: HOSTILE, locked: HOSTILE, current: HOSTILE }],
          rbac: { applier: HOSTILE, applierNote: text, clusterRules: [HOSTILE], namespaces: [{ namespace: HOSTILE, rules: [HOSTILE] }], notes: [HOSTILE], grants: [{ component: HOSTILE, subjects: HOSTILE, clusterScoped: 1, namespaced: 1, escalations: [HOSTILE] }] },
          plans: [{ contract: HOSTILE, current: true, status: HOSTILE, command: HOSTILE, blockers: [HOSTILE], steps: [HOSTILE] }],
        },
      ],
      review: {
        base: HOSTILE,
        commit: HOSTILE,
        counts: { danger: 1, warning: 0, info: 0 },
        changedEnvironments: [HOSTILE],
        versionChanges: [{ environment: HOSTILE, component: HOSTILE, from: HOSTILE, to: HOSTILE, contract: HOSTILE }],
        findings: [{ severity: 'danger', code: HOSTILE, why: HOSTILE, component: HOSTILE, object: HOSTILE, message: text, details: [text], environments: HOSTILE, open: true }],
        objectCounts: HOSTILE,
        places: [{ place: HOSTILE, objects: [{ change: 'changed', mark: HOSTILE, id: HOSTILE, note: HOSTILE, fields: [{ change: 'changed', mark: HOSTILE, path: HOSTILE, text: HOSTILE, lines: [HOSTILE] }] }] }],
      },
      findingCodes: [{ code: HOSTILE, why: HOSTILE }],
    };
  }

  it('shows the tags that moved since they were pinned', () => {
    const model = hostileModel();
    model.environments[0]!.movedTags = [{ image: 'r.example/a/c:v1', locked: 'sha256:aaaa', current: 'sha256:bbbb' }];
    const html = renderReportHtml(model, BUNDLED);
    expect(html).toContain('Tags moved since they were pinned');
    expect(html).toContain('<code>r.example/a/c:v1</code> <span class="muted">locked sha256:aaaa, now sha256:bbbb</span>');
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
    { name: 'a font in CSS', html: '<style>@font-face { src: url(https://fonts.example.com/f.woff2) }</style>', found: 'CSS url(' },
    { name: 'an @import', html: '<style>@import "x.css";</style>', found: 'CSS @import' },
    { name: 'a style attribute', html: '<div style="background: url(//example.com/x.png)">', found: 'CSS url(' },
    { name: 'a refresh', html: '<meta http-equiv="refresh" content="0; url=https://example.com">', found: '<meta http-equiv>' },
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
    const own = tempTree({ [REPORT_TEMPLATE]: '<!DOCTYPE html>\n<meta name="generator" content="capi-render report">\n<h1>{{title}}</h1>\n' });
    expect(renderReportHtml(model, { ...BUNDLED, userDir: own })).toContain('<h1>&lt;script&gt;');
    const cases: [string, RegExp][] = [
      ['<meta name="generator" content="capi-render report"><script src="x.js"></script>{{title}}', /loads something when viewed \(<script>\)/],
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

describe('finding codes', () => {
  it('every code has its one line "why it matters" in the README table, word for word', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    for (const [code, why] of Object.entries(FINDING_WHY)) expect(readme, code).toContain(`| \`${code}\` | ${why.replace(/\|/g, '\\|')} |`);
  });
});
