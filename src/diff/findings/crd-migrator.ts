/**
 * Who re-writes a CRD's stored objects (and trims `status.storedVersions`) once a release that moves
 * or drops its storage version is applied, and the words for it — for the component the CRD belongs
 * to, not only for Cluster API core. The evidence is the RBAC a migrator needs: update and patch on
 * `customresourcedefinitions/status` by CRD name; without it no migrator of the component can trim
 * `status.storedVersions`.
 *
 * Design notes: docs/internals.md "diff/findings/crd-migrator.ts".
 */
import type { KubeObject } from '../../manifest/object.js';
import type { ComponentKind } from './component-kind.js';
import { coversPermission, expandRules } from './rbac-permissions.js';

/**
 * `core` / `provider`: a ClusterRole of the component grants its controller update or patch on the
 * CRD's status (the core provider's, or another provider's); `none`: the component renders
 * ClusterRoles and none does; `cert-manager`: cert-manager's CRD; `unknown`: the component renders
 * no ClusterRole to tell.
 */
export type MigratorKind = 'core' | 'provider' | 'none' | 'cert-manager' | 'unknown';

/** The migrator of one CRD, with the component (manifest label) the words name. */
export interface Migrator {
  by: MigratorKind;
  component: string;
}

/** Who migrates CRD `crd` of `component` (of `kind`), from the ClusterRoles the component renders after the change. */
export function crdMigrator(
  crd: string,
  component: string,
  kind: ComponentKind | undefined,
  roles: readonly KubeObject[],
): Migrator {
  if (kind === 'cert-manager') return { by: 'cert-manager', component };
  if (roles.length === 0) return { by: 'unknown', component };
  if (!roles.some((r) => mayUpdateStatus(crd, r))) return { by: 'none', component };
  return { by: kind === 'CoreProvider' ? 'core' : 'provider', component };
}

/**
 * True when `role` grants patch or update on the status of CRD `crd`: a CRD migrator trims
 * status.storedVersions through it, and releases grant it by name for exactly the CRDs their
 * migrator handles.
 */
function mayUpdateStatus(crd: string, role: KubeObject): boolean {
  const granted = expandRules(role.rules);
  return ['patch', 'update'].some((verb) =>
    granted.some((g) =>
      coversPermission(g, {
        verb,
        apiGroup: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions/status',
        resourceName: crd,
      }),
    ),
  );
}

/** What happens to objects still stored in the old version after the sync (storage-version change). `byHand`: the manual steps. */
export function afterSyncRewrite(m: Migrator, byHand: string): string {
  switch (m.by) {
    case 'core':
      return `${m.component}'s controller (Cluster API v1.10+) re-writes them and trims status.storedVersions through its CRD migrator after the sync; otherwise do it by hand ${byHand}.`;
    case 'provider':
      return `A ClusterRole of ${m.component} lets its controller update this CRD's status, the grant Cluster API's CRD migrator needs (providers embed it from Cluster API v1.10 on): if ${m.component}'s release runs it (its release notes say), its controller re-writes them after the sync; otherwise do it by hand ${byHand}.`;
    case 'none':
      return `No ClusterRole of ${m.component} lets its controller update this CRD's status, which a CRD migrator needs to trim status.storedVersions: do it by hand ${byHand}.`;
    case 'cert-manager':
      return `cert-manager's controllers do not re-write them, and only clusterctl's own cert-manager upgrade migrates them (Argo CD and Flux do not): do it by hand ${byHand}, or with \`cmctl upgrade migrate-api-version\`.`;
    case 'unknown':
      return `${m.component} renders no ClusterRole that shows whether its controller runs a CRD migrator (as Cluster API core and providers embedding it since v1.10 do); check, or do it by hand ${byHand}.`;
  }
}

/** Said after "nothing needs migrating" when storedVersions already lists only the storage version: who likely did it. */
export function alreadyMigratedNote(m: Migrator): string {
  switch (m.by) {
    case 'core':
      return ` (${m.component}'s CRD migrator, Cluster API v1.10+, usually did it already)`;
    case 'provider':
      return ` (${m.component}'s controller may have done it already: its ClusterRole has the grant Cluster API's CRD migrator needs for this CRD)`;
    default:
      return '';
  }
}

/** Who else can re-write the objects, and that clusterctl and the GitOps appliers do not. */
export function otherMigrators(m: Migrator): string {
  const clusterctl =
    'clusterctl upgrade stopped doing this by default in v1.10 and dropped it in v1.13 (cluster-api #13290); Argo CD and Flux never do.';
  switch (m.by) {
    case 'core':
      return `, or let ${m.component}'s CRD migrator do it. ${clusterctl}`;
    case 'provider':
      return `, or let ${m.component}'s CRD migrator do it if its release runs one. ${clusterctl}`;
    case 'none':
      return `. No ClusterRole of ${m.component} lets its controller update this CRD's status, so no CRD migrator of its own does it; ${clusterctl}`;
    case 'cert-manager':
      return ' (`cmctl upgrade migrate-api-version` does the same). clusterctl does it only in its own cert-manager upgrade; Argo CD and Flux never do.';
    case 'unknown':
      return `, or let the provider's CRD migrator do it if it runs one. ${clusterctl}`;
  }
}

const BY_HAND_FIELDS =
  'remove them from each object (a JSON patch on `/metadata/managedFields`) before a server-side apply (Flux always uses one) writes it';

/** Who removes managedFields entries naming a version that is no longer served. */
export function managedFieldsCleanup(m: Migrator): string {
  switch (m.by) {
    case 'core':
      return `${m.component}'s CRD migrator (Cluster API v1.10+, phase CleanupManagedFields) removes those entries`;
    case 'provider':
      return `${m.component}'s controller removes those entries if its release runs Cluster API's CRD migrator (phase CleanupManagedFields)`;
    case 'none':
      return `no CRD migrator of ${m.component} removes those entries (its ClusterRoles do not let it update this CRD): ${BY_HAND_FIELDS}`;
    case 'cert-manager':
      return `cert-manager does not remove those entries: ${BY_HAND_FIELDS}`;
    case 'unknown':
      return `Cluster API's CRD migrator (phase CleanupManagedFields) removes those entries for the providers that run it; nothing rendered here shows whether ${m.component} does`;
  }
}
