/**
 * The SBOM file among an environment's planned output files (`sbom: {write: true}`): one more path
 * of the build's plan, so it is owned, written in the same transaction, repaired and checked like
 * every rendered manifest.
 */
import { InternalError } from '../errors.js';
import type { OutputFiles } from '../plan/output-plan.js';
import { SBOM_FILE, environmentSbom } from './environment-sbom.js';
import type { SbomSource } from './sbom-subject.js';

/** `files` (an environment's plan, path order) with `<env>/sbom.cdx.json` added in its place. */
export function withSbomFile(files: OutputFiles, result: SbomSource): OutputFiles {
  const file = `${result.environment.name}/${SBOM_FILE}`;
  if (files.has(file)) throw new InternalError(`the output of ${result.environment.name} already has a file ${file}`);
  const all: [string, string][] = [...files, [file, environmentSbom(result)]];
  return new Map(all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
