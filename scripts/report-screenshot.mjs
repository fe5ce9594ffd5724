#!/usr/bin/env node
// Screenshots a report page for the README: `node scripts/report-screenshot.mjs REPORT.html OUT.png`.
// Uses Debian's chromium (CAPI_RENDER_CHROMIUM to point elsewhere) through playwright-core, offline,
// with a fresh profile; never downloads a browser. docs/report-screenshot.png was made from the
// upgrade review of this repository's example (prod v1.11.0 → v1.12.0, `report --base HEAD`).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [report, out] = process.argv.slice(2);
if (!report || !out) {
  console.error('usage: node scripts/report-screenshot.mjs REPORT.html OUT.png');
  process.exit(2);
}
const profile = mkdtempSync(path.join(os.tmpdir(), 'capi-render-shot-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CAPI_RENDER_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  offline: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
  viewport: { width: 1200, height: 1150 },
});
try {
  const page = await context.newPage();
  await page.goto(`file://${path.resolve(report)}`);
  await page.screenshot({ path: out });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
