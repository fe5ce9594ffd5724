/**
 * Reading `spec.versions` of a CustomResourceDefinition: which versions exist, are served, are
 * deprecated and which one is the storage version.
 */
import { isJsonObject, type KubeObject } from '../../manifest/object.js';

/** One entry of `spec.versions`, reduced to what the safety checks need. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
}

/** The versions of a CRD in document order; entries without a name are skipped. */
export function crdVersions(crd: KubeObject): CrdVersion[] {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  return versions
    .filter(isJsonObject)
    .flatMap((v) =>
      typeof v.name === 'string'
        ? [{ name: v.name, served: v.served === true, storage: v.storage === true, deprecated: v.deprecated === true }]
        : [],
    );
}

/** The version marked `storage: true`, or undefined when there is none (an invalid CRD). */
export function storageVersion(crd: KubeObject): string | undefined {
  return crdVersions(crd).find((v) => v.storage)?.name;
}
