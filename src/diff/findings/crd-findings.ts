/**
 * Safety findings for a CRD present on both sides (or new): versions added, removed, no longer
 * served, newly deprecated, and storage-version changes — one finding per CRD and kind of
 * change, listing the versions. Removed CRDs are removal findings.
 */
import { getIn, isJsonObject, nameOf, type KubeObject } from '../../manifest/object.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { crdVersions, storageVersion, type CrdVersion } from './crd-versions.js';
import { removedVersionSteps, unservedVersionSteps } from './crd-migration-steps.js';
import { afterSyncRewrite, crdMigrator, type Migrator } from './crd-migrator.js';
import type { ComponentKind } from './component-kind.js';
import { makeFinding } from './make-finding.js';

/** The ClusterRoles a component renders before and after the change. */
export interface ComponentRoles {
  before: readonly KubeObject[];
  after: readonly KubeObject[];
}

/**
 * The CRD findings of one object pair; none for other kinds. `roles`: the ClusterRoles the CRD's own
 * component renders, which say whether its controller may migrate the CRD's stored objects — the
 * installed release's (before) may have done it already, the new one's (after) may do it after the
 * sync (default: none known); `kind`: what the component is (core, another provider, cert-manager),
 * which says whose migrator the steps may name.
 */
export function findCrdFindings(
  pair: ObjectPair,
  roles: ComponentRoles = { before: [], after: [] },
  kind?: ComponentKind,
): Finding[] {
  const { before, after } = pair;
  if (after?.kind !== 'CustomResourceDefinition') return [];
  const name = nameOf(after);
  const now = crdVersions(after);
  if (before === undefined)
    return [
      makeFinding('info', 'crd-added', pair, `new CRD ${name}: ${now.map(describeVersion).join(', ')}`, {
        subjects: versionNames(now),
      }),
    ];
  const old = new Map(crdVersions(before).map((v) => [v.name, v]));
  const kept = new Set(now.map((v) => v.name));
  const added = now.filter((v) => !old.has(v.name));
  const servedAgain = now.filter((v) => v.served && old.get(v.name)?.served === false);
  const unserved = now.filter((v) => !v.served && old.get(v.name)?.served === true);
  const deprecated = now.filter((v) => v.deprecated && old.get(v.name)?.deprecated === false);
  const removed = [...old.values()].filter((v) => !kept.has(v.name));
  const migrator = crdMigrator(name, pair.component, kind, roles.after);
  const target = {
    crd: name,
    keep: storageVersion(before),
    next: storageVersion(after),
    migrator,
    installed: crdMigrator(name, pair.component, kind, roles.before),
  };
  const out: Finding[] = [];
  if (removed.length > 0) {
    const list = removed.map((v) => `${v.name} (${v.served ? 'served' : 'not served'})`).join(', ');
    const details = removedVersionSteps({ ...target, versions: versionNames(removed) });
    out.push(
      makeFinding(
        'danger',
        'crd-version-removed',
        pair,
        `${name}: ${plural(removed, 'version')} ${list} removed from spec.versions`,
        { details, subjects: versionNames(removed) },
      ),
    );
  }
  if (unserved.length > 0) {
    const details = unservedVersionSteps({ ...target, versions: versionNames(unserved) });
    out.push(
      makeFinding(
        'danger',
        'crd-version-unserved',
        pair,
        `${name}: ${plural(unserved, 'version')} ${names(unserved)} no longer served`,
        { details, subjects: versionNames(unserved) },
      ),
    );
  }
  if (target.keep !== undefined && target.next !== undefined && target.keep !== target.next) {
    const facts = {
      details: storageChangeDetails(name, target.keep, target.next, migrator, after),
      before: target.keep,
      after: target.next,
    };
    out.push(
      makeFinding(
        'warning',
        'crd-storage-version-changed',
        pair,
        `${name}: storage version ${target.keep} → ${target.next}`,
        facts,
      ),
    );
  }
  if (added.length > 0) {
    const details = unservedAdditionDetails(added.filter((v) => !v.served));
    out.push(
      makeFinding(
        'info',
        'crd-version-added',
        pair,
        `${name}: ${plural(added, 'version')} added: ${added.map(describeVersion).join(', ')}`,
        { subjects: versionNames(added), details },
      ),
    );
  }
  if (servedAgain.length > 0) {
    out.push(
      makeFinding(
        'info',
        'crd-version-added',
        pair,
        `${name}: ${plural(servedAgain, 'version')} ${names(servedAgain)} served again`,
        { subjects: versionNames(servedAgain) },
      ),
    );
  }
  if (deprecated.length > 0) {
    out.push(
      makeFinding(
        'info',
        'crd-version-deprecated',
        pair,
        `${name}: ${plural(deprecated, 'version')} ${names(deprecated)} now deprecated`,
        { subjects: versionNames(deprecated) },
      ),
    );
  }
  return out;
}

/** `v1beta2 (served, storage)`. */
function describeVersion(v: CrdVersion): string {
  const flags = [
    v.served ? 'served' : 'not served',
    ...(v.storage ? ['storage'] : []),
    ...(v.deprecated ? ['deprecated'] : []),
  ];
  return `${v.name} (${flags.join(', ')})`;
}

function versionNames(list: readonly CrdVersion[]): string[] {
  return list.map((v) => v.name);
}

function names(list: readonly CrdVersion[]): string {
  return versionNames(list).join(', ');
}

function plural(list: readonly unknown[], word: string): string {
  return list.length === 1 ? word : `${word}s`;
}

/**
 * Why a version that is not served is added at all, and that it needs nothing: the API server only
 * accepts a CRD that still lists every version in `status.storedVersions`, and reads objects stored
 * in a listed version whether or not it is served (converting them). Releases keep or bring back old
 * versions unserved for exactly that (CAPI v1.12 lists v1alpha3/v1alpha4 with `served: false`).
 */
function unservedAdditionDetails(unserved: readonly CrdVersion[]): string[] {
  if (unserved.length === 0) return [];
  const list = names(unserved);
  const they = unserved.length === 1 ? 'it' : 'them';
  return [
    `${list} ${unserved.length === 1 ? 'is' : 'are'} not served: no client can read or write objects through ${they}, so nothing changes for users or controllers.`,
    `Listing ${they} lets the API server accept this CRD on a cluster whose \`status.storedVersions\` still names ${they}, and read objects stored in ${they} long ago. Nothing to do.`,
  ];
}

function storageChangeDetails(
  crd: string,
  keep: string,
  next: string,
  migrator: Migrator,
  object: KubeObject,
): string[] {
  const byHand = `(\`kubectl get ${crd} -A -o json | kubectl replace -f -\`, then remove ${keep} from status.storedVersions) before a later release drops ${keep}`;
  return [
    `New and updated objects are written as ${next}; existing ones stay stored as ${keep} until they are re-written, and status.storedVersions lists both until then.`,
    afterSyncRewrite(migrator, byHand),
    conversionNote(object, keep, next),
  ];
}

/**
 * How the API server serves one version from objects stored in the other: through the CRD's
 * conversion webhook, or (strategy None) by rewriting apiVersion alone.
 */
function conversionNote(crd: KubeObject, keep: string, next: string): string {
  const conversion = getIn(crd, ['spec', 'conversion']);
  if (isJsonObject(conversion) && conversion.strategy === 'Webhook') {
    const service = getIn(conversion, ['webhook', 'clientConfig', 'service']);
    const where =
      isJsonObject(service) && typeof service.name === 'string'
        ? ` (Service ${typeof service.namespace === 'string' ? `${service.namespace}/` : ''}${service.name})`
        : '';
    return `Reads in the other version go through the CRD's conversion webhook${where}: it and its certificate must be healthy during the sync.`;
  }
  return `The CRD has no conversion webhook: the API server only rewrites apiVersion between ${keep} and ${next}, so objects must be valid in both schemas.`;
}
