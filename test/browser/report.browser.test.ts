/**
 * The report in a real browser: Debian's chromium (never a downloaded one), driven by
 * playwright-core, opening the file from a file:// URL with the network cut off. For the example
 * repository and for an upgrade of prod from v1.11.0 to v1.12.0 it checks what a reviewer sees:
 * the matrix cells (versions, marks), each environment's delivery, the findings and their count, an
 * object diff that expands to show the RBAC rule change and that fits the window at 1024 and 1400 px
 * (no sideways scroll, paths wrapping at `.`/`[`, values inside their cells, no row taller than
 * TALLEST_ROW), the whole review — every section and card open — inside the window at 390 px (a phone)
 * and 1400 px with only the wide tables scrolling, in their own .table-scroll wrapper, no request
 * but the page itself, and a hostile object name and label shown as text, never run. Screenshots go
 * to test-artifacts/ (not committed; CI keeps them; look at them).
 *
 * CI installs chromium (.ci/run) and this file fails there without it; elsewhere it skips, loudly.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { copyExample } from '../helpers/repo.js';
import { skipWithout } from '../helpers/requirements.js';

const CHROMIUM = process.env.CAPI_RENDER_CHROMIUM ?? '/usr/bin/chromium';
const skipBrowser = skipWithout(
  existsSync(CHROMIUM) ? undefined : `Debian's chromium is not at ${CHROMIUM} (apt-get install chromium)`,
  'the report browser tests',
);
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The pages, made once: the example as committed, and the example after upgrading prod to v1.12.0. */
interface Pages {
  example: string;
  upgrade: string;
}

describe.skipIf(skipBrowser)('the report in a browser', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'capi-render-browser-'));
  let pages: Pages;
  let context: BrowserContext;
  /** Every request any page made, by URL. */
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    pages = await makePages(work);
    const { chromium } = await import('playwright-core');
    // A fresh profile every run; launchPersistentContext is how playwright takes --user-data-dir.
    context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 },
      offline: true,
    });
    context.on('request', (r) => requests.push(r.url()));
    // Anything but the page file itself is refused outright, so a leak fails loudly instead of hanging.
    await context.route('**/*', (route) =>
      route.request().url().startsWith('file://') ? route.continue() : route.abort(),
    );
    context.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function open(file: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await page.goto(`file://${file}`);
    return page;
  }

  const cell = (page: Page, provider: string, env: string) =>
    page.locator(`tr[data-provider="${provider}"] td[data-env="${env}"]`);

  it('the example: the matrix shows each locked version and what can move; a cell expands', async () => {
    const page = await open(pages.example);
    expect(await page.locator('#summary').innerText()).toBe(
      '2 environments (Argo CD: prod; Flux: dev); 3 providers can move within their contract (prod); none to a next contract',
    );
    expect(await page.locator('.matrix thead th.group').allInnerTexts()).toEqual(['Argo CD', 'Flux']);
    const summaryOf = async (provider: string, env: string) =>
      (await cell(page, provider, env).locator('summary').innerText()).replace(/\s+/g, ' ').trim();
    expect(await summaryOf('cert-manager', 'prod')).toBe('v1.19.4no contract');
    expect(await summaryOf('cluster-api', 'prod')).toBe('v1.11.0v1beta2minor');
    expect(await summaryOf('cluster-api', 'dev')).toBe('v1.12.0v1beta2');
    expect(
      await cell(page, 'cluster-api', 'prod')
        .locator('[data-mark]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-mark'))),
    ).toEqual(['minor']);
    expect(await cell(page, 'infrastructure-docker', 'prod').innerText()).toBe('not installed');

    const facts = cell(page, 'cluster-api', 'prod').locator('dl.facts');
    expect(await facts.isVisible()).toBe(false);
    await cell(page, 'cluster-api', 'prod').locator('summary').click();
    expect(await facts.isVisible()).toBe(true);
    expect(await facts.innerText()).toContain('same contract\nv1.12.0');
    expect(await page.locator('#review').count()).toBe(0);
    await shoot(page, 'report-example.png');
    await page.close();
  });

  it('the example: each environment says where it is delivered', async () => {
    const page = await open(pages.example);
    await page.setViewportSize({ width: 1024, height: 900 });
    const facts = async (env: string) =>
      (await page.locator(`#env-${env} .delivery dl.facts`).innerText()).replace(/\s*\n\s*/g, '\n').split('\n');
    expect(await page.locator('#env-prod .delivery').getAttribute('data-mode')).toBe('path');
    expect(await facts('prod')).toEqual([
      'controller',
      'Argo CD',
      'destination',
      'https://kubernetes.default.svc the cluster Argo CD runs in (gitops.argocd.destination is not set)',
      'source',
      'path the committed output, as a directory of manifests',
      'repository',
      'https://github.com/example/capi-render-example.git at main',
      'path',
      'rendered/prod',
      'Application',
      'capi-prod namespace argocd, project default',
    ]);
    expect(await facts('dev')).toContain('GitRepository/flux-system/capi-render-example');
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.locator('#env-prod .delivery').scrollIntoViewIfNeeded();
    await shoot(page, 'report-example-delivery-1024.png', { element: '#env-prod .grid' });
    await page.close();
  });

  it('an upgrade v1.11.0 → v1.12.0: summary, ranked findings, and the RBAC rule change behind a click', async () => {
    const page = await open(pages.upgrade);
    expect(await page.locator('#summary').innerText()).toBe(
      '1 environment changed; 0 dangers; 2 warnings; 20 info findings',
    );
    expect(await page.locator('details.finding').count()).toBe(22);
    expect(
      await page
        .locator('details.finding')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-severity')).slice(0, 3)),
    ).toEqual(['warning', 'warning', 'info']);
    expect(await cell(page, 'cluster-api', 'prod').locator('summary').innerText()).toContain('v1.12.0');
    expect(await cell(page, 'cluster-api', 'prod').locator('[data-mark]').count()).toBe(0);

    const role = page.locator(
      'details.object[data-object="ClusterRole.rbac.authorization.k8s.io/capi-kubeadm-control-plane-manager-role"]',
    );
    const secrets = role.locator('tr.field[data-path="rules[secrets]"]');
    expect(await secrets.isVisible()).toBe(false);
    await role.locator('summary').click();
    expect(await secrets.isVisible()).toBe(true);
    expect(await secrets.innerText()).toContain('verbs +delete');
    expect(await role.locator('tr.field').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-path')))).toEqual([
      'rules[extensionconfigs.runtime.cluster.x-k8s.io]',
      'rules[namespaces]',
      'rules[secrets]',
    ]);
    await role.scrollIntoViewIfNeeded();
    await shoot(page, 'report-upgrade-rbac.png');
    await page.close();
  });

  it.each([1024, 1400])(
    'the object diff at %i px: paths wrap at . and [, values inside their cell, no sideways scroll',
    async (width) => {
      const page = await open(pages.upgrade);
      await page.setViewportSize({ width, height: 900 });
      const layout = await measureObjectDiff(page);
      console.log(`object diff at ${width} px: ${JSON.stringify(layout)}`);
      // Shot before the checks, so a failing run leaves the picture of what failed.
      await shoot(page, `report-upgrade-objects-${width}.png`, {
        element: 'details.object[data-object="Deployment.apps/capi-system/capi-controller-manager"]',
      });
      await shoot(page, `report-upgrade-tallest-${width}.png`, { element: 'tr.field[data-tallest]' });
      await shoot(page, `report-upgrade-schema-${width}.png`, { element: 'tr.field:has(details.properties[open])' });
      expect(layout.rows).toBeGreaterThan(50);
      expect(layout.pageWidth, 'document.documentElement.scrollWidth').toBeLessThanOrEqual(layout.innerWidth);
      expect(
        layout.broken,
        'rows whose path or value breaks inside a part that fits its cell, or whose value leaves its cell',
      ).toEqual([]);
      expect(layout.tallest.height, `the tallest row (${layout.tallest.path})`).toBeLessThanOrEqual(TALLEST_ROW);
      await page.close();
    },
  );

  it.each([390, 1400])(
    'the whole review at %i px: nothing leaves the window but tables scrolling in their own wrapper',
    async (width) => {
      const page = await open(pages.upgrade);
      await page.setViewportSize({ width, height: 900 });
      // Every part a phone used to clip is on this page.
      for (const part of [
        '.table-scroll > table.matrix',
        '.table-scroll > table.summary-table',
        '#env-prod .card.delivery',
        '#env-prod .table-scroll > table.grants',
        'details.object',
      ]) {
        expect(await page.locator(part).count(), part).toBeGreaterThan(0);
      }
      await shoot(page, `report-upgrade-${width}.png`, { fullPage: true });
      const layout = await page.evaluate<OverflowLayout>(MEASURE_OVERFLOW);
      console.log(`the whole review at ${width} px: ${JSON.stringify({ ...layout, outside: layout.outside.length })}`);
      expect(layout.pageWidth, 'document.documentElement.scrollWidth').toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.outside, 'elements past the window and not inside a scroll container').toEqual([]);
      expect(layout.elements).toBeGreaterThan(1000);
      // The matrix scrolls inside its wrapper on a phone, and fits as it is on a desktop.
      expect(layout.matrixScrolls).toBe(width < 600);
      await page.close();
    },
  );

  it('a hostile object name and label are shown as text, never run', async () => {
    const page = await open(pages.upgrade);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    expect(
      await page
        .locator('details.object[data-object="ConfigMap/capi-system/<script>window.__pwned=2</script>"] code')
        .first()
        .innerText(),
    ).toBe('ConfigMap/capi-system/<script>window.__pwned=2</script>');
    expect(await page.locator('#env-prod .label').first().innerText()).toBe(
      'cluster: <script>window.__pwned=1</script>',
    );
    await page.close();
  });

  it('made no request but the pages themselves, and logged no error', () => {
    expect([...new Set(requests)].sort()).toEqual([`file://${pages.example}`, `file://${pages.upgrade}`].sort());
    expect(consoleErrors).toEqual([]);
  });
});

async function shoot(page: Page, name: string, options: { element?: string; fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (options.element)
    await page
      .locator(options.element)
      .first()
      .screenshot({ path: path.join(ARTIFACTS, name) });
  else await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: options.fullPage ?? false });
}

interface OverflowLayout {
  innerWidth: number;
  /** document.documentElement.scrollWidth after opening everything: wider than innerWidth means the page scrolls sideways. */
  pageWidth: number;
  /** How many elements were measured. */
  elements: number;
  /** Elements whose box leaves the window, with no scroll container inside the window around them: `tag.class right`. */
  outside: string[];
  /** Whether the version matrix is wider than its .table-scroll wrapper (so that scrolls, not the page). */
  matrixScrolls: boolean;
}

/**
 * Opens every <details> (findings, matrix cells, RBAC lists, objects, property paths) and measures
 * every element of the page: its box must end inside the window, unless an ancestor that scrolls
 * sideways (overflow-x auto or scroll) and itself ends inside the window holds it.
 */
const MEASURE_OVERFLOW = `(() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const width = window.innerWidth;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const inWindow = (r) => r.left >= -0.5 && r.right <= width + 0.5;
  const held = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (scrolls(p)) return inWindow(p.getBoundingClientRect());
    return false;
  };
  const all = [...document.body.querySelectorAll('*')];
  const outside = [];
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (!inWindow(r) && !held(el)) outside.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' ' + Math.round(r.right));
  }
  const matrix = document.querySelector('table.matrix').parentElement;
  return { innerWidth: width, pageWidth: document.documentElement.scrollWidth, elements: all.length, outside: outside.slice(0, 20), matrixScrolls: matrix.scrollWidth > matrix.clientWidth };
})()`;

/** No row of the object diff may be taller than this (the issue measured one at 1042 px). */
const TALLEST_ROW = 320;

interface ObjectDiffLayout {
  innerWidth: number;
  /** document.documentElement.scrollWidth: wider than innerWidth means the page scrolls sideways. */
  pageWidth: number;
  rows: number;
  /** Rows whose path breaks inside a `.`/`[` part (or value inside a `,` piece) that would fit its cell, or whose value runs past its cell or the window. */
  broken: string[];
  tallest: { path: string; height: number };
}

/**
 * Opens every object of the review and measures its field rows as a reviewer first sees them; then
 * opens the lists of CRD property paths too, and checks that every path (of a row or in such a list)
 * breaks only at its `.` and `[` and every value only after a comma (unless a part is wider than its
 * cell), and every value stays inside its cell and the window. (Plain
 * JavaScript run in the page: the test's TypeScript has no DOM types.)
 */
async function measureObjectDiff(page: Page): Promise<ObjectDiffLayout> {
  return await page.evaluate<ObjectDiffLayout>(MEASURE_OBJECT_DIFF);
}

const MEASURE_OBJECT_DIFF = `(() => {
  for (const d of document.querySelectorAll('details.object')) d.open = true;
  const rows = [...document.querySelectorAll('tr.field')];
  let tallest = { path: '', height: 0 };
  let tallestRow;
  for (const row of rows) {
    const height = Math.round(row.getBoundingClientRect().height);
    if (height > tallest.height) [tallest, tallestRow] = [{ path: row.getAttribute('data-path'), height }, row];
  }
  // Marked for its screenshot.
  tallestRow?.setAttribute('data-tallest', '');
  const pageWidth = document.documentElement.scrollWidth;

  for (const d of document.querySelectorAll('details.properties')) d.open = true;
  const broken = new Set();
  for (const row of rows) {
    const path = row.getAttribute('data-path');
    const value = row.cells[2];
    if (value.scrollWidth > value.clientWidth + 1 || value.getBoundingClientRect().right > window.innerWidth) broken.add(path);
    // A part of a path (or a piece of a value) may break inside only when it is wider than its cell.
    const cellWidth = (el) => el.closest('td').clientWidth - 16;
    for (const part of row.querySelectorAll('code.path > span, td.value > span')) {
      const range = document.createRange();
      range.selectNodeContents(part);
      const rects = [...range.getClientRects()];
      const lines = new Set(rects.map((r) => Math.round(r.top))).size;
      const width = rects.reduce((sum, r) => sum + r.width, 0);
      if (lines > 1 && width <= cellWidth(part)) broken.add(path + ': ' + part.textContent);
    }
  }
  return { innerWidth: window.innerWidth, pageWidth: Math.max(pageWidth, document.documentElement.scrollWidth), rows: rows.length, broken: [...broken], tallest };
})()`;

/**
 * The example report, and the upgrade review of prod v1.11.0 → v1.12.0 made the way a pull request
 * would carry it: the example committed, `upgrade --env prod --contract v1beta2` in the working
 * tree, and two hostile values a contributor could put in a pull request — an overlay label and a
 * hand-edited rendered file whose object name is markup.
 */
async function makePages(work: string): Promise<Pages> {
  const repo = copyExample({ committed: true, dir: path.join(work, 'repo') });
  const env = { ...gitEnv(path.join(work, 'home')), CAPI_RENDER_CACHE_DIR: path.join(work, 'cache') };
  const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
  writeFileSync(
    overlay,
    readFileSync(overlay, 'utf8').replace('cluster: mgmt-prod-eu', 'cluster: "<script>window.__pwned=1</script>"'),
  );
  initRepo(repo, env);
  const example = path.join(work, 'example.html');
  const made = await runCli(['report', '--offline', '--out', example], { cwd: repo, env });
  expect(made.code, made.stderr).toBe(0);

  const upgraded = await runCli(['upgrade', '--offline', '--env', 'prod', '--contract', 'v1beta2'], { cwd: repo, env });
  expect(upgraded.code, upgraded.stderr).toBe(0);
  writeFileSync(
    path.join(repo, 'rendered/prod/cluster-api/configmap-hostile.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "<script>window.__pwned=2</script>"\n  namespace: capi-system\ndata:\n  note: "<img src=x onerror=window.__pwned=3>"\n',
  );
  const upgrade = path.join(work, 'upgrade.html');
  const review = await runCli(['report', '--offline', '--base', 'HEAD', '--out', upgrade], { cwd: repo, env });
  expect(review.code, review.stderr).toBe(0);
  expect(git(repo, env, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  return { example, upgrade };
}
