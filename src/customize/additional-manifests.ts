/**
 * `spec.additionalManifests`: a ConfigMap whose `data.manifests` holds extra YAML documents that
 * are installed with the provider (operator `internal/controller/phase_load.go`).
 */
import { SpecError, error } from '../errors.js';
import { describeObject, isJsonObject, type JsonObject } from '../manifest/object.js';
import type { Deviation } from './deviation.js';

/** The ConfigMap data key the operator reads (`AdditionalManifestsConfigMapKey`). */
export const ADDITIONAL_MANIFESTS_KEY = 'manifests';

/**
 * Appends the ConfigMap's `data.manifests` to the components text with "\n---\n" between them,
 * exactly as the operator does before clusterctl processing — so the extra objects are
 * substituted, namespace-fixed, labelled and patched like the provider's own. An empty
 * `data.manifests` leaves the text unchanged (the operator appends nothing then either).
 *
 * Throws SpecError code `additional-manifests` (field `spec.additionalManifests`, object
 * `providerRef`) when `configMap` is not a ConfigMap or has no string `data.manifests`.
 */
export function appendAdditionalManifests(componentsText: string, configMap: JsonObject, providerRef: string): string {
  const fail = (message: string, hint: string): never => {
    throw new SpecError(
      error('additional-manifests', `${providerRef} spec.additionalManifests: ${message}`, {
        object: providerRef,
        field: 'spec.additionalManifests',
        hint,
      }),
    );
  };
  const ref = describeObject(configMap);
  if (configMap.kind !== 'ConfigMap') fail(`${ref} is not a ConfigMap`, 'spec.additionalManifests names a ConfigMap');
  const data = configMap.data;
  const manifests = isJsonObject(data) ? data[ADDITIONAL_MANIFESTS_KEY] : undefined;
  if (typeof manifests !== 'string') {
    const binary = configMap.binaryData;
    const inBinary = isJsonObject(binary) && Object.hasOwn(binary, ADDITIONAL_MANIFESTS_KEY);
    fail(
      `ConfigMap ${ref} has no data.${ADDITIONAL_MANIFESTS_KEY}${manifests === undefined ? '' : ' string'}`,
      inBinary
        ? `move binaryData.${ADDITIONAL_MANIFESTS_KEY} to data.${ADDITIONAL_MANIFESTS_KEY}: the operator reads data only`
        : `put the extra YAML documents under data.${ADDITIONAL_MANIFESTS_KEY} (a block scalar: ${ADDITIONAL_MANIFESTS_KEY}: |)`,
    );
  }
  if (manifests === '') return componentsText;
  return `${componentsText}\n---\n${manifests as string}`;
}

/** Where `appendAdditionalManifests` deliberately differs from the operator, for docs/fidelity.md. */
export const ADDITIONAL_MANIFESTS_DEVIATIONS: readonly Deviation[] = [
  {
    field: 'spec.additionalManifests',
    operatorBehaviour:
      'A ConfigMap without data.manifests (e.g. a misspelt key, or the YAML under binaryData) installs the provider without the extra objects, silently.',
    capiRenderBehaviour: 'Error (code additional-manifests) naming the provider and the ConfigMap.',
    why: 'Referencing a ConfigMap states that there are extra manifests; rendering without them hides the mistake until the objects are missed at runtime.',
  },
];
