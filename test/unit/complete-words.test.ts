/**
 * `capi-render __complete`, the completion engine behind every shell's script: candidates from the
 * commands' own tables and the repository's overlays, for the words as each shell splits them.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandOptions, loadCommands } from '../../src/cli/run.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { tempTree } from '../helpers/tmp.js';

/** The candidates (values only) and the closing mode line of `__complete words…` run in `cwd`. */
async function complete(
  words: string[],
  cwd = REPO_ROOT,
): Promise<{ values: string[]; mode: string; lines: string[] }> {
  const r = await runCli(['__complete', ...words], { cwd });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  const lines = r.stdout.trimEnd().split('\n');
  const mode = lines.pop()!;
  return { values: lines.map((l) => l.split('\t')[0]!), mode, lines };
}

/**
 * A repository with environments, an abstract base, a stray file, an overlay that does not parse,
 * and links: an environment folder and an overlay.yaml linked inside the repository (environments,
 * as for every command), an environment folder linked outside it and a dangling one (not).
 */
function fixtureRepo(): string {
  const repo = tempTree({
    'capi-render.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Config\noverlaysDir: envs\n',
    'envs/staging/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
    'envs/prod-eu/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
    'envs/base/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nabstract: true\n',
    'envs/broken/overlay.yaml': 'kind: [\n',
    'envs/no-overlay/README.md': 'not an environment\n',
    'envs/notes.yaml': 'a file, not a folder\n',
    'elsewhere/linked/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
  });
  symlinkSync(path.join(repo, 'elsewhere/linked'), path.join(repo, 'envs/linked'));
  mkdirSync(path.join(repo, 'envs/linked-file'));
  symlinkSync(path.join(repo, 'elsewhere/linked/overlay.yaml'), path.join(repo, 'envs/linked-file/overlay.yaml'));
  const outside = tempTree({ 'out/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n' });
  symlinkSync(path.join(outside, 'out'), path.join(repo, 'envs/outside'));
  symlinkSync(path.join(repo, 'nowhere'), path.join(repo, 'envs/dangling'));
  return repo;
}

describe('__complete', () => {
  it('offers every command, with its summary, and only the commands', async () => {
    const { values, lines } = await complete(['']);
    expect(values).toEqual(Object.keys(COMMANDS));
    expect(values).toContain('completion');
    // Each with its summary up to the first clause: shells show it beside the name.
    expect(lines).toContain('build\trender every environment');
    expect(lines).toContain('completion\tprint the shell completion script for bash, zsh or fish');
    expect((await complete(['c'])).values).toEqual(['cache', 'check', 'cmp-generate', 'completion']);
  });

  it.each(Object.keys(COMMANDS))('offers exactly the flags %s accepts', async (name) => {
    const command = await COMMANDS[name]!();
    const { values, mode } = await complete([name, '--']);
    expect(mode).toBe(':words');
    expect(values.sort()).toEqual(
      Object.keys(commandOptions(command))
        .map((o) => `--${o}`)
        .sort(),
    );
  });

  it.each([
    { name: 'a prefix of flags', words: ['build', '--o'], values: ['--offline', '--out'], mode: ':words' },
    {
      name: '--format of mirror (split by bash)',
      words: ['mirror', '--format', ''],
      values: ['repository', 'configmaps', 'oci', 'oci-layout', 'oci-archive'],
      mode: ':words',
    },
    {
      name: '--flavour=a as zsh and fish pass it',
      words: ['init', '--flavour=a'],
      values: ['--flavour=argocd'],
      mode: ':words',
    },
    {
      name: '--flavour = a as bash splits it',
      words: ['init', '--flavour', '=', 'a'],
      values: ['argocd'],
      mode: ':words',
    },
    {
      name: '--flavour = (nothing typed yet, bash)',
      words: ['init', '--flavour', '='],
      values: ['kustomize', 'argocd', 'flux'],
      mode: ':words',
    },
    {
      name: '--for of publish',
      words: ['publish', '--env', 'dev', '--for', ''],
      values: ['flux', 'argocd'],
      mode: ':words',
    },
    {
      name: '--allow-flavour of cmp-generate',
      words: ['cmp-generate', '--allow-flavour', ''],
      values: ['flux', 'kustomize'],
      mode: ':words',
    },
    { name: "cache's actions", words: ['cache', ''], values: ['info', 'prune'], mode: ':words' },
    { name: 'no second action', words: ['cache', 'info', 'p'], values: [], mode: ':none' },
    { name: 'the shells', words: ['completion', ''], values: ['bash', 'zsh', 'fish'], mode: ':words' },
    { name: 'a folder for --out DIR', words: ['build', '--out', ''], values: [], mode: ':dirs' },
    { name: 'a file for --live FILE', words: ['check', '--live', ''], values: [], mode: ':files' },
    { name: 'a folder for --repo before the command', words: ['--repo', ''], values: [], mode: ':dirs' },
    { name: 'nothing for a free value', words: ['init', '--version', ''], values: [], mode: ':none' },
    { name: 'shard folders for merge', words: ['merge', ''], values: [], mode: ':files' },
    {
      name: 'global flags before a command',
      words: ['--'],
      values: ['--repo', '--debug', '--help', '--version'],
      mode: ':words',
    },
    { name: 'nothing after an unknown command', words: ['nosuch', '--'], values: [], mode: ':none' },
    { name: "the example's environments", words: ['build', '--env', ''], values: ['dev', 'prod'], mode: ':words' },
    {
      name: 'an environment after a value that looks like a command',
      words: ['diff', '--base', 'build', '--env', 'p'],
      values: ['prod'],
      mode: ':words',
    },
  ])('$name', async ({ words, values, mode }) => {
    expect(await complete(words)).toMatchObject({ values, mode });
  });

  it('--env reads overlaysDir, skips abstract overlays, stray files, folders without overlay.yaml and links out of the repository', async () => {
    const repo = fixtureRepo();
    expect((await complete(['build', '--env', ''], repo)).values).toEqual([
      'broken',
      'linked',
      'linked-file',
      'prod-eu',
      'staging',
    ]);
    expect((await complete(['check', '--env=p'], repo)).values).toEqual(['--env=prod-eu']);
    // --repo given on the command line, before or after the command, names the repository read.
    expect((await complete(['--repo', repo, 'plan', '--env', 's'])).values).toEqual(['staging']);
    expect((await complete(['plan', `--repo=${repo}`, '--env', ''])).values).toEqual([
      'broken',
      'linked',
      'linked-file',
      'prod-eu',
      'staging',
    ]);
    expect((await complete(['plan', '--repo', '=', repo, '--env', ''])).values).toEqual([
      'broken',
      'linked',
      'linked-file',
      'prod-eu',
      'staging',
    ]);
  });

  it('--env offers default in a repository without overlays, the environments of an overlays folder linked inside it, nothing for one linked outside', async () => {
    const plain = tempTree({ 'providers/core.yaml': 'kind: CoreProvider\n' });
    expect((await complete(['build', '--env', ''], plain)).values).toEqual(['default']);
    const linked = fixtureRepo();
    writeFileSync(path.join(linked, 'capi-render.yaml'), 'overlaysDir: through-link\n');
    symlinkSync(path.join(linked, 'envs'), path.join(linked, 'through-link'));
    expect((await complete(['build', '--env', ''], linked)).values).toEqual([
      'broken',
      'linked',
      'linked-file',
      'prod-eu',
      'staging',
    ]);
    const out = fixtureRepo();
    writeFileSync(path.join(out, 'capi-render.yaml'), 'overlaysDir: through-link\n');
    symlinkSync(path.join(linked, 'envs'), path.join(out, 'through-link'));
    expect(await complete(['build', '--env', ''], out)).toMatchObject({ values: [], mode: ':none' });
  });

  it("offers the fixed values of every option that has them (sbom --format: the library's SBOM_FORMATS)", async () => {
    for (const command of await loadCommands()) {
      for (const [option, { choices }] of Object.entries(command.options)) {
        if (choices) expect((await complete([command.name, `--${option}`, ''])).values).toEqual([...choices]);
      }
    }
    expect((await COMMANDS.sbom!()).options.format?.choices?.length).toBeGreaterThan(0);
  });

  it('completion --help says how to install each script; --help lists completion; a wrong shell is a usage error', async () => {
    const help = await runCli(['completion', '--help'], { cwd: REPO_ROOT });
    expect(help.code).toBe(0);
    for (const line of [
      'source <(capi-render completion bash)',
      'source <(capi-render completion zsh)',
      '"${fpath[1]}/_capi-render"',
      'capi-render completion fish > ~/.config/fish/completions/capi-render.fish',
    ])
      expect(help.stdout).toContain(line);
    expect((await runCli(['--help'], { cwd: REPO_ROOT })).stdout).toMatch(
      /^ {2}completion +print the shell completion script/m,
    );
    const wrong = await runCli(['completion', 'fsh'], { cwd: REPO_ROOT });
    expect(wrong).toMatchObject({ code: 2, stdout: '' });
    expect(wrong.stderr).toContain('did you mean "fish"?');
    const script = await runCli(['completion', 'bash'], { cwd: REPO_ROOT });
    expect(script.stdout).toContain('complete -F _capi_render capi-render\n');
  });
});
