/**
 * Reads the committed output of the environments a run renders (plan/committed-output.ts), through
 * the repository reader's rules for records: the ownership record and the files read are regular
 * files reached through no link, each within its size limit. The record is read once per run; each
 * environment's folder is listed without following links, and only files the record lists count
 * (a folder without a record, written before records existed, counts whole).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { displayPath, readRecordFileSync } from '../repository-files.js';
import { committedEnvironment, type CommittedEnvironment } from '../plan/committed-output.js';
import { OWNERSHIP_FILE, parseOwnership } from '../plan/ownership-record.js';

/** `env` → its committed output (undefined: it has none); throws SpecError for a record that is not a regular file. */
export function committedOutputReader(
  repoRoot: string,
  outputDir: string,
): (env: string) => CommittedEnvironment | undefined {
  let owned: Set<string> | null | undefined;
  const record = (): Set<string> | null => {
    if (owned === undefined) {
      const bytes = readRecordFileSync(repoRoot, path.join(outputDir, OWNERSHIP_FILE), 'ownership');
      owned = bytes === undefined ? null : parseOwnership(bytes.toString('utf8')).files;
    }
    return owned;
  };
  return (env) => {
    const files = listRegular(outputDir, env);
    if (files.length === 0) return undefined;
    const listed = record();
    const present = listed === null ? files : files.filter((f) => listed.has(f));
    const found = committedEnvironment(env, present, (rel) =>
      readRecordFileSync(repoRoot, path.join(outputDir, ...rel.split('/')), 'output', { listed: true })?.toString(
        'utf8',
      ),
    );
    // Messages name the inventory file as the repository shows it.
    return (
      found && {
        ...found,
        providers: found.providers.map((p) => ({
          ...p,
          file: displayPath(path.join(outputDir, ...p.file.split('/')), repoRoot),
        })),
      }
    );
  };
}

/** Regular files of `<outputDir>/<env>/<component>/`, relative to outputDir; links and anything else are left out. */
function listRegular(outputDir: string, env: string): string[] {
  const out: string[] = [];
  for (const component of entries(path.join(outputDir, env))) {
    if (!component.isDirectory()) continue;
    for (const file of entries(path.join(outputDir, env, component.name)))
      if (file.isFile()) out.push(`${env}/${component.name}/${file.name}`);
  }
  return out;
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
