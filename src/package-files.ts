/**
 * Files shipped inside the package (schemas/, bundled-templates/, package.json), found the same way from
 * wherever this code runs — tsc's dist/, the single-file CLI bundle, or the sources under vitest —
 * by walking up to the folder whose package.json is capi-render's. Relative URLs would silently
 * point elsewhere once the CLI is bundled.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError } from './errors.js';

const PACKAGE_NAME = 'capi-render';

// Where the package is does not change while the process runs; found once, on first use.
let cachedRoot: string | undefined;
let cachedVersion: string | undefined;

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME
    )
      return dir;
    if (path.dirname(dir) === dir)
      throw new InternalError(
        `no package.json named ${PACKAGE_NAME} above ${start}: the installation is incomplete; reinstall capi-render`,
      );
  }
}

/** An absolute path inside the installed package, e.g. packagePath('schemas', 'clusterctl-api.yaml'). */
export function packagePath(...segments: string[]): string {
  cachedRoot ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return path.join(cachedRoot, ...segments);
}

/** capi-render's own version, from its package.json. */
export function packageVersion(): string {
  cachedVersion ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return cachedVersion;
}
