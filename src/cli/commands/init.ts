/** `capi-render init`: scaffold a new repository (providers/, an overlay, CI workflow, Renovate). */
import { UsageError } from '../../errors.js';
import { chooseInitVersions } from '../../init/init-choices.js';
import { scaffoldFiles, type ScaffoldOptions } from '../../init/scaffold.js';
import { writeScaffold } from '../../init/write-scaffold.js';
import { didYouMean } from '../../declarations/schema/suggest-field.js';
import type { Command } from '../command.js';
import { packageVersion } from '../../package-files.js';

const FLAVOURS = ['kustomize', 'argocd', 'flux'] as const;

export const initCommand: Command = {
  name: 'init',
  createsRepo: true,
  choices: { flavour: FLAVOURS },
  summary: 'scaffold a new repository: capi-render.yaml, providers/, overlays/<env>, CI workflow and Renovate config',
  usage:
    '[--version V] [--infrastructure NAME] [--env NAME] [--flavour kustomize|argocd|flux] [--local-repository DIR [--allow-outside]] [--shards N] [--force]',
  help: [
    [
      '--version V',
      'spec.version of core and kubeadm (exact, range such as ~1.12, or latest; default latest, pinned by the first build); 1.12.0 is written as v1.12.0, 1.12 as ~1.12',
    ],
    ['--infrastructure NAME', 'the infrastructure provider to declare (default docker)'],
    ['--infrastructure-version V', 'its spec.version (default: --version for docker, else latest)'],
    ['--env NAME', 'the first environment under overlays/ (default dev)'],
    ['--flavour F', 'GitOps flavour of the output (default kustomize)'],
    ['--cert-manager-version V', "cert-manager's version (default clusterctl's default)"],
    [
      '--local-repository DIR',
      'read releases from a clusterctl local repository (air-gapped sites); written relative to the repository, and refused outside it',
    ],
    [
      '--allow-outside',
      "accept a --local-repository outside the repository (the build then depends on this machine's layout: CI and the Argo CD / Flux repo-server will not have it)",
    ],
    [
      '--shards N',
      'a CI workflow N jobs wide: check as an N-shard matrix; re-render as N shard jobs plus one job that merges and commits (default 1)',
    ],
    ['--force', 'overwrite files that already exist'],
  ],
  options: {
    version: { type: 'string' },
    infrastructure: { type: 'string' },
    'infrastructure-version': { type: 'string' },
    env: { type: 'string' },
    flavour: { type: 'string' },
    'cert-manager-version': { type: 'string' },
    'local-repository': { type: 'string' },
    'allow-outside': { type: 'boolean' },
    shards: { type: 'string' },
    force: { type: 'boolean' },
  },
  async run({ io, values, repoRoot }) {
    const flavour = values.flavour === undefined ? undefined : String(values.flavour);
    if (flavour !== undefined && !(FLAVOURS as readonly string[]).includes(flavour))
      throw new UsageError(`--flavour must be one of ${FLAVOURS.join(', ')}${didYouMean(flavour, FLAVOURS)}`);
    const str = (k: string) => (values[k] === undefined ? undefined : String(values[k]));
    const { notes, ...choices } = chooseInitVersions(
      {
        version: str('version'),
        infrastructure: str('infrastructure'),
        infrastructureVersion: str('infrastructure-version'),
        certManagerVersion: str('cert-manager-version'),
        localRepository: str('local-repository'),
        allowOutside: Boolean(values['allow-outside']),
      },
      repoRoot,
    );
    if (values['allow-outside'] && values['local-repository'] === undefined)
      throw new UsageError('--allow-outside goes with --local-repository');
    const shards = values.shards === undefined ? 1 : Number(values.shards);
    if (!Number.isInteger(shards) || shards < 1 || shards > 256 || !/^\d+$/.test(String(values.shards ?? '1')))
      throw new UsageError('--shards must be a whole number from 1 to 256 (GitHub runs at most 256 jobs of a matrix)');
    const files = scaffoldFiles({
      ...choices,
      environment: str('env'),
      flavour: flavour as ScaffoldOptions['flavour'],
      toolVersion: packageVersion(),
      shards,
    });
    await writeScaffold(repoRoot, files, Boolean(values.force));
    for (const note of notes) io.stderr.write(`${note}\n`);
    io.stderr.write(
      `created ${[...files.keys()].join(', ')}\nnext: capi-render build, then commit providers/, overlays/, rendered/, gitops/ and capi-render.lock\n`,
    );
    return 0;
  },
};
