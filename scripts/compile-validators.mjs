// Writes the JSON Schema validators the package uses as ajv standalone code into dist/validators/
// (src/schema-validator.ts loads them instead of compiling the schemas on every run). Runs on tsc's
// dist/ output, after tsc and before the CLI is bundled; a file per distinct validator, named by its key.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (file) => import(path.join(root, 'dist', file));
const { validatorKey, validatorModuleSource, VALIDATORS_DIR } = await dist('schema-validator.js');
const { CONFIG_VALIDATOR } = await dist('config/load-config.js');
const { OVERLAY_VALIDATOR } = await dist('overlay/load-overlay.js');
const { LOCK_VALIDATOR } = await dist('lock/validate-lock.js');
const { PROVIDER_KINDS } = await dist('declarations/provider-kinds.js');
const { packagedProviderValidatorSpec, precompiledKinds, PROVIDER_KINDS_INDEX } = await dist(
  'declarations/schema/provider-schema-validator.js',
);

const specs = [
  CONFIG_VALIDATOR,
  OVERLAY_VALIDATOR,
  LOCK_VALIDATOR,
  ...PROVIDER_KINDS.map((k) => packagedProviderValidatorSpec(k.kind)),
];
const outdir = path.join(root, ...VALIDATORS_DIR);
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
// The provider kinds' converted schemas are equal today, so they share one file.
const written = new Set();
for (const spec of specs) {
  const key = validatorKey(spec);
  if (written.has(key)) continue;
  writeFileSync(path.join(outdir, `${key}.cjs`), validatorModuleSource(spec));
  written.add(key);
}
// Which packaged kind's schema file (by its bytes) has which validator and digest: a run that reads
// those bytes skips converting the schema (src/declarations/schema/provider-schema-validator.ts).
writeFileSync(
  path.join(outdir, PROVIDER_KINDS_INDEX),
  `${JSON.stringify(precompiledKinds(path.join(root, 'schemas')), null, 2)}\n`,
);
