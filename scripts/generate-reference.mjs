#!/usr/bin/env node
// Writes the generated reference (docs/reference/commands.md, docs/reference/config.md) and the
// editor JSON Schemas (schemas/capi-render.schema.json, schemas/overlay.schema.json) from tsc's
// dist/ (run through `npm run docs:reference`, which builds first). test/unit/reference-files.test.ts
// fails when a committed file differs from what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceFiles } from '../dist/cli/reference/reference-files.js';
import { packageVersion } from '../dist/package-files.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [file, text] of await referenceFiles(packageVersion())) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
  console.log(`wrote ${file}`);
}
