/**
 * Decides which bytes to change for a set of upgrade targets. Several targets may share one site
 * (a base provider file used by several environments, or one overlay patch that pins three
 * providers); a site is edited only when every provider and environment it feeds moves to the same
 * version, so an upgrade never changes a provider it was not asked to move. Pure.
 */
import { error, type Diagnostic } from '../errors.js';
import { isProviderKind, manifestLabel } from '../declarations/provider-kinds.js';
import type { PlannedEdit } from './edit-version.js';
import type { VersionSite, VersionSites } from './locate-version.js';
import type { UpgradeTarget } from './select-targets.js';

/** One site to edit, with everything it moves. */
export interface SiteEdit extends PlannedEdit {
  site: VersionSite;
  /** The targets this edit realises. */
  targets: UpgradeTarget[];
}

/** The edits grouped per file (file path order), or every conflict found. */
export interface GroupedEdits {
  files: Map<string, SiteEdit[]>;
  problems: Diagnostic[];
}

/**
 * Groups targets by site. `sites` must cover every environment (not only the upgraded ones), and
 * `versions` gives every provider's current version per environment, so a site's other consumers
 * are known. A consumer that is not a target but already has the new version is no conflict.
 */
export function groupEdits(
  targets: readonly UpgradeTarget[],
  sites: VersionSites,
  versions: ReadonlyMap<string, ReadonlyMap<string, string>>,
): GroupedEdits {
  const bySite = new Map<string, SiteEdit>();
  const problems: Diagnostic[] = [];
  for (const t of targets) {
    const site = sites.get(t.environment)?.get(t.provider);
    if (!site) {
      problems.push(
        error('upgrade', `[${t.environment}] no file sets the version of ${t.provider}`, { object: t.provider }),
      );
      continue;
    }
    const entry = bySite.get(site.key);
    if (!entry) bySite.set(site.key, { site, edit: site.edit, version: t.to, targets: [t] });
    else if (entry.version !== t.to) {
      problems.push(
        error(
          'upgrade',
          `${where(site)} sets the version of ${describe(entry.targets[0]!)} and of ${describe(t)}, which this upgrade moves to different versions (${entry.version}, ${t.to})`,
          {
            file: site.file,
            line: site.line,
            hint: 'give each its own spec.version (split the patch), or upgrade them to the same version',
          },
        ),
      );
    } else entry.targets.push(t);
  }
  for (const entry of bySite.values()) {
    const stay: { env: string; provider: string }[] = [];
    for (const [env, envSites] of sites) {
      for (const [provider, site] of envSites) {
        if (site.key !== entry.site.key || entry.targets.some((t) => t.environment === env && t.provider === provider))
          continue;
        if (versions.get(env)?.get(provider) === entry.version) continue;
        stay.push({ env, provider });
      }
    }
    if (stay.length > 0) problems.push(sharedSiteProblem(entry, stay));
  }
  const files = new Map<string, SiteEdit[]>();
  for (const entry of [...bySite.values()].sort((a, b) =>
    a.site.file < b.site.file ? -1 : a.site.file > b.site.file ? 1 : a.edit.start - b.edit.start,
  )) {
    files.set(entry.site.file, [...(files.get(entry.site.file) ?? []), entry]);
  }
  return { files, problems };
}

/**
 * One error per shared site that would move providers the upgrade was not asked to move: it names
 * the site and those providers, and gives both ways out — move them together (the exact command),
 * or give the requested providers a version of their own with a later patch (composition takes a
 * provider's version from the last patch that sets it, so the upgrade then edits that patch).
 */
function sharedSiteProblem(entry: SiteEdit, stay: readonly { env: string; provider: string }[]): Diagnostic {
  const envs = [...new Set([...entry.targets.map((t) => t.environment), ...stay.map((s) => s.env)])].sort();
  const movedLabels = [...new Set(entry.targets.map((t) => t.label))];
  const stayLabels = [...new Set(stay.map((s) => labelOf(s.provider)))].filter((l) => !movedLabels.includes(l));
  const listed = stay.map((s) => `${s.provider}${envs.length > 1 ? ` in ${s.env}` : ''}`).join(', ');
  const together = [
    'capi-render upgrade',
    ...envs.map((e) => `--env ${e}`),
    `--to ${entry.version}`,
    ...[...movedLabels, ...stayLabels].map((l) => `--provider ${l}`),
  ].join(' ');
  const own = entry.site.file.endsWith('overlay.yaml')
    ? `add a patch after it in ${entry.site.file} that sets only ${movedLabels.join(', ')}'s /spec/version (e.g. target: {kind: ${[...new Set(entry.targets.map((t) => t.provider.split('/')[0]))].join('|')}}), then run this command again`
    : `give ${movedLabels.join(', ')} a spec.version of its own (an overlay patch that sets only its /spec/version), then run this command again`;
  return error(
    'upgrade',
    `${where(entry.site)} also sets the version of ${listed}${envs.length === 1 ? ` in ${envs[0]}` : ''}, which this upgrade does not move to ${entry.version}; nothing was changed`,
    {
      file: entry.site.file,
      line: entry.site.line,
      object: stay[0]!.provider,
      hint: `move them together: \`${together}\`; or, to move only ${movedLabels.join(', ')}, ${own}`,
    },
  );
}

/** `BootstrapProvider/ns/kubeadm` → `bootstrap-kubeadm`, the name `--provider` takes. */
function labelOf(ref: string): string {
  const [kind, , name] = ref.split('/');
  return kind && name && isProviderKind(kind) ? manifestLabel(kind, name) : ref;
}

function where(site: VersionSite): string {
  return `${site.file}:${site.line} (${site.what})`;
}

function describe(t: UpgradeTarget): string {
  return `${t.provider} in ${t.environment}`;
}
