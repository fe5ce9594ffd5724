/**
 * Why each kind of finding matters, in one line a reviewer can act on. The HTML report prints it
 * under every finding and the table in docs/upgrades-and-report.md "Finding codes" repeats it word for word (a test
 * keeps the two in step). A `Record` over the closed code union, so a new code cannot ship without one.
 */
import type { FindingCode } from './types.js';

/** One line per finding code: what goes wrong in the cluster if the reviewer ignores it. */
export const FINDING_WHY: Readonly<Record<FindingCode, string>> = {
  'contract-changed':
    'Every provider must implement a contract the core provider accepts: a core that moves takes along every provider it no longer accepts, and a provider moves only to a contract the core accepts.',
  'contract-older-than-core':
    "A core provider accepts a provider on an older contract only where Cluster API keeps them compatible, with limits and until that contract is end of life: the provider needs a release on the core's contract before then.",
  'crd-added':
    'A new kind becomes available; nothing existing changes, and removing it later is a removal of its objects.',
  'crd-removed': 'A pruned CRD deletes every object of its kind; one left behind survives but is never updated again.',
  'crd-version-added':
    'Clients can use a new served version; an unserved one only keeps objects stored in it long ago readable.',
  'crd-version-removed':
    'Objects still stored in a removed version cannot be read, and the API server refuses the CRD while status.storedVersions names it.',
  'crd-version-unserved':
    'Clients and controllers still using the version break; objects stored in it must be migrated before a release drops it.',
  'crd-version-deprecated':
    'Clients of the version get deprecation warnings now and break when a later release stops serving it.',
  'crd-storage-version-changed':
    'New writes use the new version; old objects stay stored in the old one until rewritten, which must happen before it is dropped.',
  'webhook-added':
    'A new admission webhook can reject or change requests; while its Service or certificate is not ready, those writes fail.',
  'webhook-removed': 'Validation or defaulting that guarded these objects no longer runs.',
  'webhook-changed':
    'The requests a webhook sees or its failure policy changed: it may now block writes or let unchecked ones through.',
  'rbac-permissions-gained':
    "A controller's service account can do more in the cluster; each gain should match a feature of the release.",
  'rbac-permissions-lost': 'A controller that still needs a permission it lost fails at run time.',
  'rbac-aggregation':
    'Aggregated ClusterRoles collect permissions from other roles by label, so a selector change widens or narrows them silently.',
  'rbac-binding-added':
    'Every subject of a new binding can do all its role allows; cluster-admin, a wildcard role or a group such as system:authenticated hands the cluster to far more than a controller.',
  'rbac-binding-subjects-added':
    'Each new subject can do all the bound role allows; a group such as system:authenticated or system:serviceaccounts grants it to every user or workload.',
  'rbac-binding-role-changed':
    'Every subject of the binding gets the new role instead of the old one, and roleRef is immutable: the sync fails until the binding is deleted and created again.',
  'image-changed':
    'A different image runs: the registry (or mirror) must have it, a registry host new to the cluster must be reachable and allowed from it, and it should be the release the lock names.',
  'args-changed':
    'Controller flags changed: a dropped flag changes behaviour, a flag the new binary does not know stops it from starting.',
  'feature-gates-changed':
    'Feature gates switch controller behaviour on or off; a gate that disappears falls back to the new release default.',
  'variables-changed':
    'A value set for a variable the new release no longer reads stops applying without an error; one it starts reading changes what the release does.',
  'object-removed': 'Argo CD and Flux delete what leaves git, unless the object is protected from pruning.',
  'object-moved':
    'Two components own the object during the move: the one that drops it may prune it before the other adopts it.',
  'namespace-removed':
    'Pruning a Namespace deletes everything in it, including Secrets and certificates that are not rendered here.',
};
