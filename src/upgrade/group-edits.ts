/**
 * Decides which bytes to change for a set of upgrade targets. Several targets may share one site
 * (a base provider file used by several environments, or one overlay patch that pins three
 * providers); a site is edited only when every provider and environment it feeds moves to the same
 * version, so an upgrade never changes a provider it was not asked to move. Pure.
 */
import { error, type Diagnostic } from '../errors.js';
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
export function groupEdits(targets: readonly UpgradeTarget[], sites: VersionSites, versions: ReadonlyMap<string, ReadonlyMap<string, string>>): GroupedEdits {
  const bySite = new Map<string, SiteEdit>();
  const problems: Diagnostic[] = [];
  for (const t of targets) {
    const site = sites.get(t.environment)?.get(t.provider);
    if (!site) {
      problems.push(error('upgrade', `[${t.environment}] no file sets the version of ${t.provider}`, { object: t.provider }));
      continue;
    }
    const entry = bySite.get(site.key);
    if (!entry) bySite.set(site.key, { site, edit: site.edit, version: t.to, targets: [t] });
    else if (entry.version !== t.to) {
      problems.push(
        error('upgrade', `${where(site)} sets the version of ${describe(entry.targets[0]!)} and of ${describe(t)}, which this upgrade moves to different versions (${entry.version}, ${t.to})`, {
          file: site.file,
          line: site.line,
          hint: 'give each its own spec.version (split the patch), or upgrade them to the same version',
        }),
      );
    } else entry.targets.push(t);
  }
  for (const entry of bySite.values()) {
    for (const [env, envSites] of sites) {
      for (const [provider, site] of envSites) {
        if (site.key !== entry.site.key || entry.targets.some((t) => t.environment === env && t.provider === provider)) continue;
        if (versions.get(env)?.get(provider) === entry.version) continue;
        problems.push(
          error('upgrade', `${where(entry.site)} also sets the version of ${provider} in ${env}, which this upgrade does not move to ${entry.version}`, {
            file: entry.site.file,
            line: entry.site.line,
            object: provider,
            hint: `include it (--env ${env}, --provider …), or pin its version separately (e.g. a patch in overlays/${env}/overlay.yaml)`,
          }),
        );
      }
    }
  }
  const files = new Map<string, SiteEdit[]>();
  for (const entry of [...bySite.values()].sort((a, b) => (a.site.file < b.site.file ? -1 : a.site.file > b.site.file ? 1 : a.edit.start - b.edit.start))) {
    files.set(entry.site.file, [...(files.get(entry.site.file) ?? []), entry]);
  }
  return { files, problems };
}

function where(site: VersionSite): string {
  return `${site.file}:${site.line} (${site.what})`;
}

function describe(t: UpgradeTarget): string {
  return `${t.provider} in ${t.environment}`;
}
