/**
 * Version strings as clusterctl and the operator read them (k8s.io/apimachinery version.ParseSemantic:
 * strict `X.Y.Z[-pre][+build]`, an optional leading `v`). Tags that do not parse are not versions.
 */
import semver from 'semver';

/** The parsed version, or null when `tag` is not a semantic version. */
export function parseVersion(tag: string): semver.SemVer | null {
  if (!/^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(tag)) return null;
  return semver.parse(tag.startsWith('v') ? tag.slice(1) : tag);
}

/** Canonical form with a leading `v`, the way releases are tagged (`1.12.0` → `v1.12.0`). */
export function canonicalVersion(tag: string): string {
  const v = parseVersion(tag);
  return v ? `v${v.version}` : tag;
}

/** Sorts tags by semantic version, ascending; ties (same version, other build metadata) by text. */
export function sortVersions(tags: readonly string[]): string[] {
  return [...tags].sort((a, b) => {
    const va = parseVersion(a);
    const vb = parseVersion(b);
    if (va && vb) return semver.compareBuild(va, vb) || (a < b ? -1 : a > b ? 1 : 0);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
