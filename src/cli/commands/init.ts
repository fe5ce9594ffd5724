/** `capi-render init`: scaffold a new repository (providers/, an overlay, CI workflow, Renovate). */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, UsageError, error } from '../../errors.js';
import { scaffoldFiles, type ScaffoldOptions } from '../../init/scaffold.js';
import type { Command } from '../command.js';
import { packageVersion } from '../../package-files.js';

const FLAVOURS = ['kustomize', 'argocd', 'flux'] as const;

export const initCommand: Command = {
  name: 'init',
  createsRepo: true,
  summary: 'scaffold a new repository: capi-render.yaml, providers/, overlays/<env>, CI workflow and Renovate config',
  usage: '[--version V] [--infrastructure NAME] [--env NAME] [--flavour kustomize|argocd|flux] [--local-repository DIR] [--shards N] [--force]',
  help: [
    ['--version V', 'spec.version of core and kubeadm (exact, range such as ~1.12, or latest; default latest, pinned by the first build)'],
    ['--infrastructure NAME', 'the infrastructure provider to declare (default docker)'],
    ['--infrastructure-version V', 'its spec.version (default: --version for docker, else latest)'],
    ['--env NAME', 'the first environment under overlays/ (default dev)'],
    ['--flavour F', 'GitOps flavour of the output (default kustomize)'],
    ['--cert-manager-version V', "cert-manager's version (default clusterctl's default)"],
    ['--local-repository DIR', 'read releases from a clusterctl local repository (air-gapped sites)'],
    ['--shards N', 'a CI workflow N jobs wide: check as an N-shard matrix; re-render as N shard jobs plus one job that merges and commits (default 1)'],
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
    shards: { type: 'string' },
    force: { type: 'boolean' },
  },
  async run({ io, values, repoRoot }) {
    const flavour = values.flavour === undefined ? undefined : String(values.flavour);
    if (flavour !== undefined && !(FLAVOURS as readonly string[]).includes(flavour)) throw new UsageError(`--flavour must be one of ${FLAVOURS.join(', ')}`);
    const str = (k: string) => (values[k] === undefined ? undefined : String(values[k]));
    const shards = values.shards === undefined ? 1 : Number(values.shards);
    if (!Number.isInteger(shards) || shards < 1 || shards > 256 || !/^\d+$/.test(String(values.shards ?? '1'))) throw new UsageError('--shards must be a whole number from 1 to 256 (GitHub runs at most 256 jobs of a matrix)');
    const files = scaffoldFiles({
      version: str('version'),
      infrastructure: str('infrastructure'),
      infrastructureVersion: str('infrastructure-version'),
      environment: str('env'),
      flavour: flavour as ScaffoldOptions['flavour'],
      certManagerVersion: str('cert-manager-version'),
      localRepository: str('local-repository'),
      toolVersion: packageVersion(),
      shards,
    });
    const existing = [...files.keys()].filter((f) => existsSync(path.join(repoRoot, f)));
    if (existing.length > 0 && !values.force) {
      throw new SpecError(error('input-path', `init would overwrite ${existing.join(', ')}`, { hint: 'run it in an empty folder, or pass --force' }));
    }
    for (const [rel, text] of files) {
      const target = path.join(repoRoot, rel);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, text);
    }
    io.stderr.write(`created ${[...files.keys()].join(', ')}\nnext: capi-render build, then commit providers/, overlays/, rendered/, gitops/ and capi-render.lock\n`);
    return 0;
  },
};
