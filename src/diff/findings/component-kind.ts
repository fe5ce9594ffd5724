/**
 * What a rendered component is, read from its own objects: a provider of one of the operator's
 * seven kinds (its clusterctl inventory `Provider` object names the type), cert-manager (clusterctl's
 * `clusterctl.cluster.x-k8s.io/core: cert-manager` label), or unknown. Findings whose truth depends on
 * it — who migrates stored CRD objects, what a contract move means — are worded from this, so a text
 * about Cluster API core's own machinery is never raised for an infrastructure provider.
 */
import { labelsOf, type KubeObject } from '../../manifest/object.js';
import { CLUSTERCTL_CORE_LABEL } from '../../process/common-labels.js';
import { PROVIDER_KINDS, isProviderKind, type ProviderKind } from '../../declarations/provider-kinds.js';
import type { ObjectPair } from '../pair-objects.js';

/** A provider kind, or `cert-manager`; absent (undefined) when the objects do not say. */
export type ComponentKind = ProviderKind | 'cert-manager';

const INVENTORY_GROUP = 'clusterctl.cluster.x-k8s.io/';

/** The kind of a component from its objects (either side); undefined when nothing identifies it. */
export function componentKind(objects: readonly KubeObject[]): ComponentKind | undefined {
  for (const o of objects) {
    if (
      o.kind === 'Provider' &&
      typeof o.apiVersion === 'string' &&
      o.apiVersion.startsWith(INVENTORY_GROUP) &&
      isProviderKind(o.type)
    )
      return o.type;
  }
  return objects.some((o) => labelsOf(o)[CLUSTERCTL_CORE_LABEL] === 'cert-manager') ? 'cert-manager' : undefined;
}

/** For `env\ncomponent`: the component's kind, from its objects after the change (before, when it is gone). */
export function componentKinds(pairs: readonly ObjectPair[]): Map<string, ComponentKind> {
  const objects = new Map<string, KubeObject[]>();
  for (const pair of pairs) {
    const key = componentKey(pair.env, pair.component);
    objects.set(key, [
      ...(objects.get(key) ?? []),
      ...(pair.after ? [pair.after] : []),
      ...(pair.after || !pair.before ? [] : [pair.before]),
    ]);
  }
  const out = new Map<string, ComponentKind>();
  for (const [key, list] of objects) {
    const kind = componentKind(list) ?? kindOfLabel(key.slice(key.indexOf('\n') + 1));
    if (kind !== undefined) out.set(key, kind);
  }
  return out;
}

/**
 * The provider kind a manifest label names (`cluster-api`, `bootstrap-kubeadm`,
 * `infrastructure-vcd`, …): clusterctl's label is the kind's prefix and the provider name, and the
 * core provider must be named `cluster-api` (both peers refuse another name). Undefined otherwise.
 */
export function kindOfLabel(label: string): ProviderKind | undefined {
  if (label === CORE_LABEL) return 'CoreProvider';
  return PROVIDER_KINDS.find(
    (k) => k.labelPrefix !== '' && label.startsWith(k.labelPrefix) && label.length > k.labelPrefix.length,
  )?.kind;
}

const CORE_LABEL = 'cluster-api';

/** The key of {@link componentKinds}. */
export function componentKey(env: string, component: string): string {
  return `${env}\n${component}`;
}
