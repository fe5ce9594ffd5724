/** `capi-render completion bash|zsh|fish`: print the shell completion script (see completion/shell-scripts.ts). */
import { UsageError } from '../../errors.js';
import { suggestField } from '../../declarations/schema/suggest-field.js';
import { defineCommand } from '../command.js';
import { SHELLS, completionScript, type Shell } from '../completion/shell-scripts.js';
import { isOneOf } from '../options.js';

const guess = (shell: string): string => {
  const best = suggestField(shell, SHELLS);
  return best === undefined ? '' : `; did you mean "${best}"?`;
};

/** The `completion` command: one positional word, the shell; its help says where each script goes. */
export const completionCommand = defineCommand({
  name: 'completion',
  summary:
    'print the shell completion script for bash, zsh or fish (commands, flags, their fixed values, --env names from overlays/)',
  synopsis: 'bash|zsh|fish',
  arguments: {
    fixed: true,
    help: {
      bash: 'add `source <(capi-render completion bash)` to ~/.bashrc; or, with the bash-completion package, `capi-render completion bash > ~/.local/share/bash-completion/completions/capi-render`',
      zsh: 'add `source <(capi-render completion zsh)` to ~/.zshrc after `autoload -U compinit && compinit`; or `capi-render completion zsh > "${fpath[1]}/_capi-render"` and start a new shell',
      fish: '`capi-render completion fish > ~/.config/fish/completions/capi-render.fish` (loaded by every new fish)',
    } satisfies Record<Shell, string>,
  },
  options: {},
  async run({ io, positionals }) {
    const [shell, ...extra] = positionals;
    if (shell === undefined || !isOneOf(SHELLS, shell) || extra.length > 0) {
      const what =
        shell === undefined
          ? 'name the shell'
          : extra.length > 0
            ? `one shell only, not ${positionals.join(' ')}`
            : `no completion for "${shell}"${guess(shell)}`;
      throw new UsageError(`${what}: capi-render completion ${SHELLS.join('|')}`);
    }
    // The script asks `capi-render __complete` on each Tab press, so it stays right after upgrades.
    io.stdout.write(completionScript(shell));
    return 0;
  },
});
