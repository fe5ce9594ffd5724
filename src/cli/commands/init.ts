/** `capi-render init`: scaffold a new repository (providers/, an overlay, CI workflow, Renovate). */
import { UsageError } from '../../errors.js';
import { chooseInitVersions } from '../../init/init-choices.js';
import { scaffoldFiles } from '../../init/scaffold.js';
import { writeScaffold } from '../../init/write-scaffold.js';
import { didYouMean } from '../../declarations/schema/suggest-field.js';
import { defineCommand } from '../command.js';
import { isOneOf } from '../options.js';
import { packageVersion } from '../../package-files.js';

const FLAVOURS = ['kustomize', 'argocd', 'flux'] as const;

export const initCommand = defineCommand({
  name: 'init',
  createsRepo: true,
  summary: 'scaffold a new repository: capi-render.yaml, providers/, overlays/<env>, CI workflow and Renovate config',
  synopsis:
    '[--version V] [--infrastructure NAME] [--env NAME] [--flavour kustomize|argocd|flux] [--local-repository DIR [--allow-outside]] [--shards N] [--force]',
  options: {
    version: {
      type: 'string',
      value: 'V',
      help: 'spec.version of core and kubeadm (exact, range such as ~1.12, or latest; default latest, pinned by the first build); 1.12.0 is written as v1.12.0, 1.12 as ~1.12',
    },
    infrastructure: {
      type: 'string',
      value: 'NAME',
      help: 'the infrastructure provider to declare (default docker)',
    },
    'infrastructure-version': {
      type: 'string',
      value: 'V',
      help: 'its spec.version (default: --version for docker, else latest)',
    },
    env: { type: 'string', value: 'NAME', help: 'the first environment under overlays/ (default dev)' },
    flavour: {
      type: 'string',
      value: 'F',
      choices: FLAVOURS,
      help: 'GitOps flavour of the output (default kustomize)',
    },
    'cert-manager-version': {
      type: 'string',
      value: 'V',
      help: "cert-manager's version (default clusterctl's default)",
    },
    'local-repository': {
      type: 'string',
      value: 'DIR',
      help: 'read releases from a clusterctl local repository (air-gapped sites); written relative to the repository, and refused outside it',
    },
    'allow-outside': {
      type: 'boolean',
      help: "accept a --local-repository outside the repository (the build then depends on this machine's layout: CI and the Argo CD / Flux repo-server will not have it)",
    },
    shards: {
      type: 'string',
      value: 'N',
      help: 'a CI workflow N jobs wide: check as an N-shard matrix; re-render as N shard jobs plus one job that merges and commits (default 1)',
    },
    force: { type: 'boolean', help: 'overwrite files that already exist' },
  },
  async run({ io, values, repoRoot }) {
    const { flavour } = values;
    if (flavour !== undefined && !isOneOf(FLAVOURS, flavour))
      throw new UsageError(`--flavour must be one of ${FLAVOURS.join(', ')}${didYouMean(flavour, FLAVOURS)}`);
    const { notes, ...choices } = chooseInitVersions(
      {
        version: values.version,
        infrastructure: values.infrastructure,
        infrastructureVersion: values['infrastructure-version'],
        certManagerVersion: values['cert-manager-version'],
        localRepository: values['local-repository'],
        allowOutside: values['allow-outside'],
      },
      repoRoot,
    );
    if (values['allow-outside'] && values['local-repository'] === undefined)
      throw new UsageError('--allow-outside goes with --local-repository');
    const shards = values.shards === undefined ? 1 : Number(values.shards);
    if (!Number.isInteger(shards) || shards < 1 || shards > 256 || !/^\d+$/.test(values.shards ?? '1'))
      throw new UsageError('--shards must be a whole number from 1 to 256 (GitHub runs at most 256 jobs of a matrix)');
    const files = scaffoldFiles({
      ...choices,
      environment: values.env,
      flavour,
      toolVersion: packageVersion(),
      shards,
    });
    await writeScaffold(repoRoot, files, values.force);
    for (const note of notes) io.stderr.write(`${note}\n`);
    io.stderr.write(
      `created ${[...files.keys()].join(', ')}\nnext: capi-render build, then commit providers/, overlays/, rendered/, gitops/ and capi-render.lock\n`,
    );
    return 0;
  },
});
