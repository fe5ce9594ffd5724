/**
 * clusterctl's identification labels (components.go addCommonLabels): every provider object gets
 * `clusterctl.cluster.x-k8s.io: ""` and `cluster.x-k8s.io/provider: <manifest label>`, overwriting
 * any value the artifact had for those two keys and keeping every other label.
 */
import { labelsOf, setIn } from '../manifest/object.js';
import { withObject, type Resource } from '../manifest/resource.js';

export const CLUSTERCTL_LABEL = 'clusterctl.cluster.x-k8s.io';
export const PROVIDER_LABEL = 'cluster.x-k8s.io/provider';
export const CLUSTERCTL_CORE_LABEL = 'clusterctl.cluster.x-k8s.io/core';

/** The two labels clusterctl puts on every object of a provider. */
export function commonLabels(manifestLabel: string): Record<string, string> {
  return { [CLUSTERCTL_LABEL]: '', [PROVIDER_LABEL]: manifestLabel };
}

/** Adds `labels` to every object (existing keys with other values are overwritten). */
export function addLabels(resources: readonly Resource[], labels: Record<string, string>): Resource[] {
  const entries = Object.entries(labels);
  return resources.map((r) => {
    const current = labelsOf(r.object);
    if (entries.every(([k, v]) => current[k] === v)) return r;
    return withObject(r, setIn(r.object, ['metadata', 'labels'], { ...current, ...labels }));
  });
}
