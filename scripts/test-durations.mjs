#!/usr/bin/env node
// Writes test/durations.json (read by test/helpers/longest-first.ts) from a vitest JSON report:
//   npx vitest run --reporter=json --outputFile=report.json && node scripts/test-durations.mjs report.json
// Run it on a fresh clone (no vitest cache) so the figures are what CI sees; files under 5 s are left out.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/test-durations.mjs REPORT.json');
  process.exit(2);
}
const rows = JSON.parse(readFileSync(report, 'utf8'))
  .testResults.map((f) => [
    path.relative(root, f.name).split(path.sep).join('/'),
    Math.round((f.endTime - f.startTime) / 1000),
  ])
  .filter(([, s]) => s >= 5)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
writeFileSync(path.join(root, 'test/durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 1)}\n`);
console.log(`test/durations.json: ${rows.length} files`);
