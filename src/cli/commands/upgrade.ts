/**
 * `capi-render upgrade`: move providers to new versions by editing the files that set their
 * spec.version (comments and layout kept), re-render, write rendered/ and the lock, and print the
 * object diff and safety report. With `--pr`, commit on a branch, push it and open or update a
 * pull request whose body is the report. `--images` re-pins moved image tags instead, and `--pr`
 * publishes that the same way (upgrade-naming.ts names both).
 */
import { SpecError, UsageError, error } from '../../errors.js';
import { formatDiffText } from '../../diff/format-text.js';
import { loadConfig } from '../../config/load-config.js';
import { parseVersion } from '../../declarations/versions.js';
import { applyUpgrade, type UpgradeOutcome } from '../../upgrade/apply-upgrade.js';
import { refreshPinnedImages } from '../../upgrade/refresh-images.js';
import { createGitRunner } from '../../upgrade/git-command.js';
import {
  preparePullRequest,
  publishPullRequest,
  type PreparedPullRequest,
  type PublishedPullRequest,
} from '../../upgrade/pull-request.js';
import { buildPrBody } from '../../upgrade/pr-content.js';
import { buildImagePrBody } from '../../upgrade/pr-content-images.js';
import type { UpgradeRequest, UpgradeTarget } from '../../upgrade/select-targets.js';
import {
  imageRefreshBranchName,
  imageRefreshCommand,
  imageRefreshCommitMessage,
  imageRefreshTitle,
  upgradeBranchName,
  upgradeCommand as commandLine,
  upgradeCommitMessage,
  upgradeTitle,
  type ImageRefreshNaming,
  type UpgradeNaming,
} from '../../upgrade/upgrade-naming.js';
import { defineCommand, type CommandContext } from '../command.js';
import { defineOptions, type OptionValues } from '../options.js';
import { formatDiagnostics } from '../format.js';
import { UNSHARDED_RENDER_OPTIONS, prepareRender } from '../render-options.js';
import { reportWrite } from '../report-write.js';

const UPGRADE_OPTIONS = defineOptions({
  to: {
    type: 'string',
    value: 'V',
    help: 'move the providers to release V (without --provider: every provider whose source has V)',
  },
  'latest-patch': { type: 'boolean', help: 'move each provider to the newest patch of its minor version' },
  contract: {
    type: 'string',
    value: 'C',
    help: 'move the whole set to the newest releases for contract C (see capi-render plan)',
  },
  images: {
    type: 'boolean',
    help: 're-resolve every pinned image (imagePolicy.pinDigests) of the environments: a tag that moved since it was locked (capi-render plan shows them) is re-pinned, with the object diff; with --pr on branch capi-render/upgrade-images-<id>',
  },
  provider: {
    type: 'string',
    multiple: true,
    value: 'P',
    help: 'only this provider: Kind/name, Kind/namespace/name or its label (cluster-api, bootstrap-kubeadm, …); repeatable',
  },
  ...UNSHARDED_RENDER_OPTIONS,
  'confirm-storage-migration': {
    type: 'boolean',
    help: 'proceed although a CRD version objects may still be stored in is removed or no longer served (do the printed steps first)',
  },
  'allow-removal': {
    type: 'boolean',
    help: 'accept an upgrade that stops rendering a CRD, a provider or an environment (refused by default: Argo CD / Flux would prune it)',
  },
  pr: {
    type: 'boolean',
    help: 'commit on branch capi-render/upgrade-<subject>-<version>, force-push it and open (or update) a pull request; needs GITHUB_TOKEN or GH_TOKEN',
  },
  remote: { type: 'string', value: 'R', help: 'git remote to push to (default origin)' },
  repository: {
    type: 'string',
    value: 'O/N',
    help: 'GitHub repository of the pull request (default: from the remote URL)',
  },
  'pr-base': { type: 'string', value: 'B', help: 'base branch of the pull request (default: the current branch)' },
});

type UpgradeContext = CommandContext<OptionValues<typeof UPGRADE_OPTIONS>>;

export const upgradeCommand = defineCommand({
  name: 'upgrade',
  summary:
    'edit provider versions in providers/ or overlays (comments kept), re-render, relock, and print the diff and safety report; --pr opens a pull request',
  synopsis:
    '(--to V | --latest-patch | --contract C | --images) [--provider P]... [--env NAME]... [--confirm-storage-migration] [--pr [--remote R] [--repository O/N] [--pr-base B]]',
  options: UPGRADE_OPTIONS,
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    if (!values.pr && (values.remote || values.repository || values['pr-base']))
      throw new UsageError('--remote, --repository and --pr-base need --pr');
    if (values.images) return refreshImages(ctx);
    const request = requestOf(values);
    const providers = values.provider;
    const environments = values.env;
    const prepared = await prepareRender(ctx, { writes: true });
    const pr = await preparePr(ctx, prepared);
    const outcome = await applyUpgrade({
      render: prepared.options,
      environments,
      selection: { request, providers },
      confirmStorageMigration: values['confirm-storage-migration'],
      allowRemoval: values['allow-removal'],
    }).finally(() => prepared.settleCache());
    if (outcome.warnings.length > 0) io.stderr.write(formatDiagnostics(outcome.warnings, { color }));
    for (const s of outcome.skipped) io.stderr.write(`unchanged ${s.environment}: ${s.provider} (${s.reason})\n`);
    if (outcome.targets.length === 0) {
      io.stderr.write(`nothing to upgrade${values.pr ? '; no pull request' : ''}\n`);
      return 0;
    }
    for (const f of outcome.edited) {
      for (const e of f.edits)
        io.stderr.write(
          `${outcome.refused ? 'would edit' : 'edited'} ${f.file}:${e.line} (${e.what}): ${e.from || '(unset)'} → ${e.to} (${movedBy(e.targets)})\n`,
        );
    }
    io.stdout.write(formatDiffText(outcome.report.changes, outcome.report.findings, { color }));
    if (outcome.refused) return refuse(ctx, outcome);
    reportWrite(ctx, outcome.written!);
    if (!pr) return 0;

    const naming: UpgradeNaming = { targets: outcome.targets, request, environments };
    const command = commandLine({ ...naming, providers });
    const title = upgradeTitle(naming);
    const branch = upgradeBranchName(naming);
    const published = await publishPullRequest(pr, {
      branch,
      title,
      commitMessage: upgradeCommitMessage(naming, outcome.report.findings, command),
      body: buildPrBody({
        title,
        command,
        outcome,
        repoRoot,
        branches: { base: pr.base, head: branch },
        ...(pr.webUrl ? { webUrl: pr.webUrl } : {}),
      }),
      paths: outcome.changedPaths,
    });
    reportPublished(ctx, pr, published);
    return 0;
  },
});

/** With `--pr`, everything the pull request needs, checked before any file is touched; otherwise undefined. */
async function preparePr(
  ctx: UpgradeContext,
  prepared: Awaited<ReturnType<typeof prepareRender>>,
): Promise<PreparedPullRequest | undefined> {
  const { io, values, repoRoot } = ctx;
  if (!values.pr) return undefined;
  const git = createGitRunner({ cwd: repoRoot, env: io.env, secrets: [prepared.options.githubToken ?? ''] });
  return preparePullRequest(git, {
    remote: values.remote,
    repository: values.repository,
    base: values['pr-base'],
    github: (await loadConfig(repoRoot)).github,
    token: prepared.options.githubToken,
    ...(prepared.options.fetch ? { fetch: prepared.options.fetch } : {}),
  });
}

function reportPublished(
  ctx: UpgradeContext,
  pr: PreparedPullRequest,
  published: PublishedPullRequest | undefined,
): void {
  if (!published) ctx.io.stderr.write('no changes to commit; no pull request\n');
  else
    ctx.io.stderr.write(
      `pushed ${published.branch} (${published.commit.slice(0, 12)}) to ${pr.remote}; pull request #${published.pull.number} ${published.action}: ${published.pull.url}\n`,
    );
}

/** `upgrade --images`: re-pin moved tags (refresh-images.ts); with `--pr`, published as a version upgrade is. */
async function refreshImages(ctx: UpgradeContext): Promise<number> {
  const { io, values, repoRoot, color } = ctx;
  if (values.to !== undefined || values['latest-patch'] || values.contract !== undefined || values.provider.length > 0)
    throw new UsageError(
      '--images re-pins images only: it goes without --to, --latest-patch, --contract and --provider',
    );
  const environments = values.env;
  const prepared = await prepareRender(ctx, { writes: true });
  const pr = await preparePr(ctx, prepared);
  const outcome = await refreshPinnedImages({
    render: prepared.options,
    environments,
    allowRemoval: values['allow-removal'],
  }).finally(() => prepared.settleCache());
  if (outcome.warnings.length > 0) io.stderr.write(formatDiagnostics(outcome.warnings, { color }));
  if (outcome.moved.length === 0)
    io.stderr.write(
      `every pinned image still points where capi-render.lock says; nothing re-pinned${pr ? '; no pull request' : ''}\n`,
    );
  for (const m of outcome.moved)
    io.stderr.write(`re-pinned ${m.image}: ${m.before} → ${m.after} (${m.environments.join(', ')})\n`);
  io.stdout.write(formatDiffText(outcome.report.changes, outcome.report.findings, { color }));
  reportWrite(ctx, outcome.written);
  if (!pr || outcome.moved.length === 0) return 0;

  const naming: ImageRefreshNaming = { moved: outcome.moved, environments };
  const command = imageRefreshCommand(naming);
  const title = imageRefreshTitle(naming);
  const branch = imageRefreshBranchName(naming);
  const published = await publishPullRequest(pr, {
    branch,
    title,
    commitMessage: imageRefreshCommitMessage(naming, outcome.report.findings, command),
    body: buildImagePrBody({
      title,
      command,
      outcome,
      repoRoot,
      branches: { base: pr.base, head: branch },
      ...(pr.webUrl ? { webUrl: pr.webUrl } : {}),
    }),
    paths: outcome.changedPaths,
  });
  reportPublished(ctx, pr, published);
  return 0;
}

function requestOf(values: UpgradeContext['values']): UpgradeRequest {
  const chosen = [values.to !== undefined, values['latest-patch'] === true, values.contract !== undefined].filter(
    Boolean,
  ).length;
  if (chosen !== 1) throw new UsageError('choose exactly one of --to V, --latest-patch, --contract C, --images');
  if (values.to !== undefined) {
    const version = values.to;
    if (!parseVersion(version)) throw new UsageError(`--to ${version} is not a version (e.g. v1.12.0)`);
    return { kind: 'to', version };
  }
  if (values.contract !== undefined) return { kind: 'contract', contract: values.contract };
  return { kind: 'latest-patch' };
}

/** `prod: cluster-api, bootstrap-kubeadm; dev: cluster-api`. */
function movedBy(targets: readonly UpgradeTarget[]): string {
  const byEnv = new Map<string, string[]>();
  for (const t of targets) byEnv.set(t.environment, [...(byEnv.get(t.environment) ?? []), t.label]);
  return [...byEnv].map(([env, labels]) => `${env}: ${labels.join(', ')}`).join('; ');
}

function refuse(ctx: CommandContext, outcome: UpgradeOutcome): number {
  const refused = outcome.refused!;
  const lines = refused.map(
    (f) => `  - ${f.env}/${f.component} ${f.object ?? ''} [${f.code}]: ${(f.subjects ?? []).join(', ')}`,
  );
  ctx.io.stderr.write(
    `\nStorage migration needed before this upgrade (the steps are listed under each DANGER finding above):\n${lines.join('\n')}\n\n`,
  );
  throw new SpecError(
    error(
      'upgrade',
      `the upgrade removes or stops serving versions of ${refused.length} CRD(s) that objects may still be stored in; nothing was changed`,
      {
        hint: 'do the steps on every management cluster this output reaches, then run the same command with --confirm-storage-migration',
      },
    ),
  );
}
