/**
 * The completion scripts in the real shells: bash sources the script and calls its function with
 * COMP_WORDS/COMP_CWORD set as readline sets them, zsh completes a typed line through compinit in a
 * pseudo-terminal (zpty), fish answers `complete -C`. Each script runs the built CLI (dist/) as
 * `capi-render` from PATH, as an installed one does.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { requireTool } from '../helpers/requirements.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const INSTALL = 'apt-get install -y zsh fish (bash is in every Debian image)';

// Shared by every test: the `capi-render` on PATH, and a repository with two environments and an
// abstract base under overlays/ (made in the describe body, removed after the suite).
let bin = '';
let env: NodeJS.ProcessEnv = {};
let repo = '';

/** The script `capi-render completion <shell>` prints, written to a file. */
function script(shell: string): string {
  const r = spawnSync(process.execPath, [CLI, 'completion', shell], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const file = path.join(bin, `completion.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

function shell(program: string, args: string[], cwd = repo): string {
  const r = spawnSync(program, args, { cwd, env, encoding: 'utf8', timeout: 30_000 });
  expect(r.status, `${program} ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

describe('shell completion', () => {
  bin = suiteTempDir('capi-render-completion-bin-');
  writeFileSync(path.join(bin, 'capi-render'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(path.join(bin, 'capi-render'), 0o755);
  env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: bin, LANG: 'C.UTF-8' };
  repo = suiteTempDir();
  for (const [rel, text] of Object.entries({
    'overlays/staging/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
    'overlays/prod-eu/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
    'overlays/base/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nabstract: true\n',
    'out/.keep': '',
  })) {
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    writeFileSync(path.join(repo, rel), text);
  }

  describe('bash', () => {
    /** COMPREPLY after calling the script's function on `words`, the last being the word under the cursor. */
    const complete = (words: string[]): string[] => {
      const array = words.map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
      const out = shell('bash', [
        '--norc',
        '-c',
        `source '${script('bash')}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _capi_render; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
      return out.split('\n').filter(Boolean);
    };

    it.each([
      { name: 'commands', words: ['capi-render', 'c'], reply: ['cache', 'check', 'cmp-generate', 'completion'] },
      { name: "a command's flags", words: ['capi-render', 'build', '--o'], reply: ['--offline', '--out'] },
      {
        name: '--env values from overlays/',
        words: ['capi-render', 'build', '--env', ''],
        reply: ['prod-eu', 'staging'],
      },
      { name: '--env=… as bash splits it', words: ['capi-render', 'plan', '--env', '=', 's'], reply: ['staging'] },
      {
        name: '--format values',
        words: ['capi-render', 'mirror', '--format', ''],
        reply: ['repository', 'configmaps', 'oci', 'oci-layout', 'oci-archive'],
      },
      { name: 'folders for --out DIR', words: ['capi-render', 'build', '--out', 'o'], reply: ['out', 'overlays'] },
      { name: 'the shells', words: ['capi-render', 'completion', ''], reply: ['bash', 'zsh', 'fish'] },
    ])('$name', ({ words, reply }) => {
      // Readline sorts what it shows; compgen's file names come in directory order.
      expect(complete(words).sort()).toEqual([...reply].sort());
    });
  });

  describe.skipIf(requireTool('zsh', INSTALL, 'the zsh completion tests'))('zsh', () => {
    it('the script parses (zsh -n)', () => {
      shell('zsh', ['-n', script('zsh')]);
    });

    it('completes a typed line through compinit', async () => {
      const done = path.join(tempDir(), 'buffer');
      // An interactive zsh in a pseudo-terminal: type the line and Tab, then a key whose widget
      // writes the edited line to a file; keys are handled in order, so it runs after the completion.
      const driver = [
        'zmodload zsh/zpty',
        'zpty -b z zsh -f -i',
        `zpty -w z "autoload -U compinit; compinit -u -D; source '${script('zsh')}'; dump() { print -r -- \\"\\$BUFFER\\" > '${done}'; }; zle -N dump; bindkey '^X' dump"`,
        `zpty -w -n z $'capi-render mirror --format con\\t\\x18'`,
        `for i in {1..200}; do [[ -s '${done}' ]] && break; sleep 0.1; done`,
        'zpty -d z',
      ].join('\n');
      shell('zsh', ['-f', '-c', driver]);
      for (let i = 0; i < 50 && !existsSync(done); i++) await sleep(100);
      expect(readFileSync(done, 'utf8')).toBe('capi-render mirror --format configmaps \n');
    });
  });

  describe.skipIf(requireTool('fish', INSTALL, 'the fish completion tests'))('fish', () => {
    it('the script parses (fish --no-execute)', () => {
      shell('fish', ['--no-execute', script('fish')]);
    });

    it.each([
      { line: 'capi-render bu', reply: ['build\trender every environment'] },
      { line: 'capi-render build --env ', reply: ['prod-eu', 'staging'] },
      { line: 'capi-render init --flavour=a', reply: ['--flavour=argocd'] },
    ])('complete -C $line', ({ line, reply }) => {
      const out = shell('fish', ['--no-config', '-c', `source '${script('fish')}'; complete -C '${line}'`]);
      expect(out.split('\n').filter(Boolean)).toEqual(reply);
    });
  });
});
