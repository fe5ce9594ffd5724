/**
 * The exact steps an operator takes before a GitOps sync that drops or stops serving a CRD
 * version. clusterctl upgrade migrated stored provider objects itself
 * (cmd/clusterctl/client/cluster/crd_migration.go) until v1.10 made it opt-in
 * (`--enable-crd-storage-version-migration`, deprecated) and v1.13 removed it (cluster-api #13290);
 * the operator v0.28's upgrade (clusterctl v1.12.10 ApplyCustomPlan with default options) does not
 * run it either. Who may have done it instead — the component's own CRD migrator, if its release
 * runs one — is said per component (crd-migrator.ts); Argo CD and Flux only apply the new CRD, and
 * the API server rejects a CRD whose spec.versions lacks a version still listed in
 * status.storedVersions.
 */
import { alreadyMigratedNote, managedFieldsCleanup, otherMigrators, type Migrator } from './crd-migrator.js';

/** Facts the steps are written from. */
export interface MigrationTarget {
  /** CRD name, `<plural>.<group>`, which kubectl also accepts as the resource name. */
  crd: string;
  /** The versions being removed or unserved. */
  versions: readonly string[];
  /** Storage version before the upgrade (what the cluster writes today). */
  keep: string | undefined;
  /** Storage version after the upgrade. */
  next: string | undefined;
  /** Who migrates the CRD's objects after the sync, which the steps name; default: not known. */
  migrator?: Migrator;
  /** Who may have migrated them already, under the release installed now; default: not known. */
  installed?: Migrator;
}

const NOT_KNOWN: Migrator = { by: 'unknown', component: 'the provider' };

/** Steps for a version removed from `spec.versions`. */
export function removedVersionSteps(t: MigrationTarget): string[] {
  if (t.keep === undefined || t.versions.includes(t.keep)) return throughIntermediateRelease(t);
  return [
    ...storageMigrationCommands({ ...t, keep: t.keep }),
    `Sync only then: the API server rejects a CRD whose spec.versions no longer contains a version listed in status.storedVersions.`,
  ];
}

/** Steps for a version that stays in `spec.versions` but is no longer served. */
export function unservedVersionSteps(t: MigrationTarget): string[] {
  const versions = t.versions.join(', ');
  const clients = [
    `After the sync, clients can no longer read or write ${versions}: move manifests in git, other controllers and scripts that still use ${versions} of ${t.crd} to ${t.next ?? 'a served version'} first.`,
    `Stored objects stay readable through the served versions, but objects whose metadata.managedFields still name ${versions} break server-side apply (kubernetes/kubernetes#111937); ${managedFieldsCleanup(t.migrator ?? NOT_KNOWN)}.`,
  ];
  if (t.keep === undefined || t.versions.includes(t.keep)) return [...clients, ...throughIntermediateRelease(t)];
  return [
    ...clients,
    ...storageMigrationCommands({ ...t, keep: t.keep }),
    'Migrating now keeps the later release that removes the version from failing to sync.',
  ];
}

/** Check, re-write, prune storedVersions: the manual form of what clusterctl and a CRD migrator do. */
function storageMigrationCommands(t: MigrationTarget & { keep: string }): string[] {
  const { crd, keep } = t;
  return [
    `Before syncing, with the current release still installed, list the versions objects are stored in: \`kubectl get crd ${crd} -o jsonpath='{.status.storedVersions}'\``,
    `If it prints exactly \`["${keep}"]\`, nothing needs migrating${alreadyMigratedNote(t.installed ?? NOT_KNOWN)}.`,
    `Otherwise re-write every object so the API server stores it in ${keep}: a no-op update such as \`kubectl get ${crd} -A -o json | kubectl replace -f -\` (repeat for objects that report a conflict)${otherMigrators(t.migrator ?? NOT_KNOWN)}`,
    `Then drop the old versions from the stored list: \`kubectl patch crd ${crd} --subresource=status --type=merge -p '{"status":{"storedVersions":["${keep}"]}}'\` (kubectl 1.24+), and check with the first command that only ${keep} is listed.`,
  ];
}

function throughIntermediateRelease(t: MigrationTarget): string[] {
  const next = t.next ?? 'the new version';
  return [
    `The storage version the cluster uses today (${t.keep ?? 'none found'}) is one of ${t.versions.join(', ')}, so its objects cannot be migrated in this upgrade.`,
    `Upgrade through an intermediate release whose CRD serves ${t.keep ?? 'it'} and stores ${next}, let its objects be re-written there (\`kubectl get crd ${t.crd} -o jsonpath='{.status.storedVersions}'\` must print \`["${next}"]\`), then continue with this upgrade.`,
  ];
}
