/**
 * The completion scripts `capi-render completion bash|zsh|fish` prints. Each is a thin adapter, as
 * cobra's are for kubectl, clusterctl and flux: it hands the words of the command line to the hidden
 * `capi-render __complete` (complete-words.ts) and shows what that prints — candidates, or the
 * shell's own file or folder completion. Commands, flags, fixed values and the repository's
 * environments are therefore always those of the capi-render on PATH, and the scripts never need
 * regenerating after an upgrade; the price is one short process a Tab press.
 */

/** The shells `capi-render completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/** One of {@link SHELLS}. */
export type Shell = (typeof SHELLS)[number];

/** The completion script for `shell`, completing the command `program` (default capi-render). */
export function completionScript(shell: Shell, program = 'capi-render'): string {
  const fn = `_${program.replace(/[^A-Za-z0-9]/g, '_')}`;
  const header = `# ${shell} completion for ${program}, printed by \`${program} completion ${shell}\` (see \`${program} completion --help\`).\n`;
  if (shell === 'bash') return header + bashScript(program, fn);
  if (shell === 'zsh') return `#compdef ${program}\n${header}${zshScript(program, fn)}`;
  return header + fishScript(program, fn);
}

// COMP_WORDS keeps `--env=de` as `--env`, `=`, `de` and the reply replaces the text after `=` only:
// __complete knows that split form and answers bare values for it.
function bashScript(program: string, fn: string): string {
  return `${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} out mode line
  local -a lines
  out=$(command ${program} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  mapfile -t lines <<<"$out"
  mode=\${lines[\${#lines[@]}-1]}
  unset 'lines[\${#lines[@]}-1]'
  [[ $cur == = ]] && cur=''
  COMPREPLY=()
  case $mode in
    :files) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    :dirs) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    :words) for line in "\${lines[@]}"; do COMPREPLY+=("\${line%%$'\\t'*}"); done ;;
  esac
  return 0
}
complete -F ${fn} ${program}
`;
}

// Works both sourced (\`source <(capi-render completion zsh)\` after compinit) and as the file
// _capi-render in $fpath, which compinit autoloads as the function's body.
function zshScript(program: string, fn: string): string {
  return `${fn}() {
  local out mode line value
  local -a lines candidates
  out=$(command ${program} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  mode=\${lines[-1]}
  lines=("\${(@)lines[1,-2]}")
  case $mode in
    :files) [[ $PREFIX == --*=* ]] && compset -P '*='; _files ;;
    :dirs) [[ $PREFIX == --*=* ]] && compset -P '*='; _files -/ ;;
    :words)
      for line in "\${lines[@]}"; do
        value=\${line%%$'\\t'*}
        if [[ $line == *$'\\t'* ]]; then candidates+=("\${value//:/\\\\:}:\${line#*$'\\t'}"); else candidates+=("\${value//:/\\\\:}"); fi
      done
      _describe -t values '${program}' candidates ;;
    *) return 1 ;;
  esac
}
if [[ \${funcstack[1]} == _${program} ]]; then ${fn} "$@"; else compdef ${fn} ${program}; fi
`;
}

// fish shows \`value<TAB>description\` lines as they are; file names come from its own helpers, with
// the \`--flag=\` part of the token put back in front.
function fishScript(program: string, fn: string): string {
  return `function ${fn}
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l out (command ${program} __complete $words[2..-1] "$current" 2>/dev/null)
    or return
    set -l mode $out[-1]
    set -e out[-1]
    set -l flag (string match -r -- '^--[^=]*=' "$current")
    set -l value (string replace -r -- '^--[^=]*=' '' "$current")
    switch $mode
        case :files
            for path in (__fish_complete_path "$value")
                echo "$flag$path"
            end
        case :dirs
            for path in (__fish_complete_directories "$value" '')
                echo "$flag$path"
            end
        case :words
            printf '%s\\n' $out
    end
end
complete -c ${program} -f -a '(${fn})'
`;
}
