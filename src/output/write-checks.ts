/** The checks of output folders a write runs before it changes anything (see write-output.ts). */
import { promises as fs } from 'node:fs';
import jsYaml from 'js-yaml';
import { isJsonObject, type KubeObject } from '../manifest/object.js';
import { SpecError, UsageError, error, type Diagnostic } from '../errors.js';
import { locateConfigSetting } from '../config/load-config.js';
import {
  inputLocations,
  isOutsideRepository,
  outputLocationProblems,
  type InputFolders,
  type LocationProblem,
} from '../config/output-location.js';
import { displayPath } from './write-errors.js';

/** Refuses output folders that a build would damage; a flag's mistake is a usage error, the config's a spec error. */
export async function assertSafeLocations(
  config: InputFolders,
  outDir: string,
  gitopsDir: string,
  options: { repoRoot: string; outDirFlag?: string },
): Promise<void> {
  const flag = options.outDirFlag;
  const folders = [
    { setting: flag ?? 'outputDir', folder: outDir },
    { setting: flag ? `the GitOps folder beside ${flag},` : 'gitopsDir', folder: gitopsDir },
  ];
  const problems = await outputLocationProblems(options.repoRoot, folders, inputLocations(options.repoRoot, config));
  if (problems.length === 0) return;
  if (flag) throw new UsageError(problems.map((p) => `${p.message}; ${p.hint}`).join('\n'));
  throw new SpecError(problems.map((p) => locationDiagnostic(p, options.repoRoot)));
}

function locationDiagnostic(p: LocationProblem, repoRoot: string): Diagnostic {
  return error('output-location', p.message, {
    ...locateConfigSetting(repoRoot, [p.setting]),
    field: p.setting,
    hint: p.hint,
  });
}

/** The folders at the top of `dir` (environments, in rendered/). */
export async function topFolders(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
}

/** What only a look inside the folders can tell: a `.git` inside, or a foreign folder outside the repository. */
export async function scanProblems(
  scans: readonly { root: string; exists: boolean; entries: Map<string, unknown>; git: string[]; record?: unknown }[],
  repoRoot: string,
): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const scan of scans) {
    const shown = displayPath(scan.root, repoRoot);
    if (scan.git.length > 0) {
      out.push(
        error(
          'output-location',
          `${shown} holds a git repository (${scan.git[0]}): capi-render does not write into folders that contain .git`,
          { file: shown, hint: 'choose an output folder of its own' },
        ),
      );
    } else if (
      scan.exists &&
      scan.entries.size > 0 &&
      !scan.record &&
      (await isOutsideRepository(repoRoot, scan.root))
    ) {
      out.push(
        error('output-location', `${shown} is outside the repository and holds files capi-render did not write`, {
          file: shown,
          hint: 'outside the repository capi-render writes only into an empty folder or one it wrote before (with its .capi-render-owned record)',
        }),
      );
    }
  }
  return out;
}

/** The CRD file an environment's committed output holds for `name`, parsed; undefined when absent or unreadable. */
export function readPreviousCrd(
  files: readonly string[],
  env: string,
  name: string,
  read: (rel: string) => string | undefined,
): KubeObject | undefined {
  const file = files.find((f) => f.startsWith(`${env}/`) && f.endsWith(`/customresourcedefinition-${name}.yaml`));
  if (!file) return undefined;
  try {
    const text = read(file);
    const object = text === undefined ? undefined : jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
    return isJsonObject(object) && object.kind === 'CustomResourceDefinition' ? (object as KubeObject) : undefined;
  } catch {
    return undefined;
  }
}

export function topFolder(rel: string): string {
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash);
}
