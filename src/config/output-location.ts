/**
 * Where output may go. capi-render replaces and prunes files in its output folders, so a folder that
 * is (or holds) the repository, a git directory or an input would be damaged by a build. Checked on
 * real paths (links resolved), before anything is written.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, type RenderConfig } from './config-types.js';
import { LOCK_FILE } from '../lock/lock-types.js';

/** The settings that say where a repository's inputs are: what no output folder may overlap. */
export type InputFolders = Pick<RenderConfig, 'providersDir' | 'overlaysDir' | 'templatesDir' | 'repositories'>;

/** An output folder to check, with the setting that chose it (for messages). */
export interface OutputFolderSetting {
  /** `outputDir`, `gitopsDir`, or the flag, e.g. `--out`. */
  setting: string;
  /** Absolute path. */
  folder: string;
}

export interface LocationProblem {
  setting: string;
  message: string;
  hint: string;
}

/** The inputs a build reads, which no output folder may overlap: description → absolute path. */
export function inputLocations(repoRoot: string, config: InputFolders): [string, string][] {
  return [
    ['the providersDir input', path.resolve(repoRoot, config.providersDir)],
    ['the overlaysDir input', path.resolve(repoRoot, config.overlaysDir)],
    ['the templatesDir input', path.resolve(repoRoot, config.templatesDir)],
    [`the ${CONFIG_FILE} input`, path.join(repoRoot, CONFIG_FILE)],
    [`the ${LOCK_FILE} input`, path.join(repoRoot, LOCK_FILE)],
    ...config.repositories.map((r, i): [string, string] => [
      `the repositories[${i}].path input`,
      path.resolve(repoRoot, r.path),
    ]),
  ];
}

/**
 * Problems with the chosen output folders: the repository root or one of its parents, a git
 * directory or a folder holding `.git`, an input (or a folder holding one), two output folders that
 * overlap. Folders outside the repository are allowed here; the writer accepts them only when they
 * are empty or already hold capi-render's ownership record.
 */
export async function outputLocationProblems(
  repoRoot: string,
  folders: readonly OutputFolderSetting[],
  inputs: readonly [string, string][],
  /** What writing there would do, for the message. */
  consequence = 'a build would replace and prune files',
): Promise<LocationProblem[]> {
  const root = await realPath(repoRoot);
  const problems: LocationProblem[] = [];
  const real = await Promise.all(folders.map(async (f) => ({ ...f, real: await realPath(f.folder) })));
  const realInputs = await Promise.all(inputs.map(async ([label, p]) => [label, await realPath(p)] as const));
  for (const f of real) {
    // The first problem of a folder is the one that matters (the repository root also holds every input).
    const problem = await folderProblem(f.real, root, realInputs, consequence);
    if (problem)
      problems.push({
        setting: f.setting,
        message: `${f.setting} ${show(f.folder, root)} ${problem[0]}`,
        hint: problem[1],
      });
  }
  for (let i = 0; i < real.length; i++) {
    for (let j = i + 1; j < real.length; j++) {
      const [a, b] = [real[i]!, real[j]!];
      if (a.real === b.real || isInside(a.real, b.real) || isInside(b.real, a.real)) {
        problems.push({
          setting: b.setting,
          message: `${a.setting} ${show(a.folder, root)} and ${b.setting} ${show(b.folder, root)} overlap`,
          hint: 'give the rendered output and the GitOps consumer files separate folders (default rendered/ and gitops/)',
        });
      }
    }
  }
  return problems;
}

/** A folder of capi-render.yaml that a GitOps controller is pointed at, reading it from git. */
export interface ControllerFolder {
  /** `outputDir` or `gitopsDir`. */
  setting: string;
  /** The setting's value as written: relative to the repository, or absolute. */
  value: string;
  /** What reads it, for the message: `Argo CD (environment prod) and Flux (environment dev)`. */
  readers: string;
}

/**
 * Problems with folders Argo CD or Flux read from the git repository (see render/controller-folders.ts
 * for which): such a folder must be inside the repository and named relative to it. The controllers
 * get `<folder>/<env>` as a path inside their checkout, so `../x` (or a link out of the repository)
 * names a folder they can never read, and an absolute path, whose leading `/` the GitOps paths drop,
 * one no checkout has. Output elsewhere is an export: `build --out DIR` moves no controller path.
 */
export async function controllerFolderProblems(
  repoRoot: string,
  folders: readonly ControllerFolder[],
): Promise<LocationProblem[]> {
  const root = await realPath(repoRoot);
  const problems: LocationProblem[] = [];
  for (const f of folders) {
    const real = await realPath(path.resolve(repoRoot, f.value));
    const exportHint = `to write the output outside the repository as well, export it with \`capi-render build --out DIR\``;
    if (real !== root && !isInside(real, root)) {
      const link = path.isAbsolute(f.value) || f.value.split(/[\\/]/).includes('..') ? '' : ` (a link to ${real})`;
      problems.push({
        setting: f.setting,
        message: `${f.setting} ${f.value} is outside the repository${link}: ${f.readers} would read it from git, where it does not exist`,
        hint: `keep ${f.setting} inside the repository and commit it (the default is ${f.setting === 'outputDir' ? 'rendered' : 'gitops'}); ${exportHint}`,
      });
    } else if (path.isAbsolute(f.value)) {
      problems.push({
        setting: f.setting,
        message: `${f.setting} ${f.value} is an absolute path: ${f.readers} would read it from git, as a path inside their checkout, where it does not exist`,
        hint: `write it relative to the repository: ${f.setting}: ${show(real, root)}`,
      });
    }
  }
  return problems;
}

const ELSEWHERE = 'choose a folder of its own for the output, such as rendered/';

async function folderProblem(
  folder: string,
  root: string,
  inputs: readonly (readonly [string, string])[],
  consequence: string,
): Promise<[string, string] | undefined> {
  if (folder === root) return [`is the repository root: ${consequence} across the whole repository`, ELSEWHERE];
  if (isInside(root, folder)) return [`contains the repository: ${consequence} in and around it`, ELSEWHERE];
  if (folder.split(path.sep).includes('.git')) return ['is inside a .git folder', ELSEWHERE];
  if (await exists(path.join(folder, '.git'))) return ['is a git repository (it holds .git)', ELSEWHERE];
  for (const [label, input] of inputs) {
    if (folder === input)
      return [`is ${label}`, `${ELSEWHERE}; what capi-render reads and what it writes must not overlap`];
    if (isInside(input, folder))
      return [
        `holds ${label} (${show(input, root)})`,
        `${ELSEWHERE}; what capi-render reads and what it writes must not overlap`,
      ];
    if (isInside(folder, input))
      return [
        `is inside ${label} (${show(input, root)})`,
        `${ELSEWHERE}; what capi-render reads and what it writes must not overlap`,
      ];
  }
  return undefined;
}

/** Whether `folder` lies outside the repository. */
export async function isOutsideRepository(repoRoot: string, folder: string): Promise<boolean> {
  const [root, real] = await Promise.all([realPath(repoRoot), realPath(folder)]);
  return real !== root && !isInside(real, root);
}

/** `inner` is strictly inside `outer`. */
export function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The real path of `p` (links resolved), also when its last parts do not exist yet. */
export async function realPath(p: string): Promise<string> {
  const absolute = path.resolve(p);
  const rest: string[] = [];
  for (let dir = absolute; ; dir = path.dirname(dir)) {
    const real = await fs.realpath(dir).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest.reverse());
    if (dir === path.dirname(dir)) return absolute;
    rest.push(path.basename(dir));
  }
}

function show(p: string, root: string): string {
  const rel = path.relative(root, p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}
