/**
 * The two ways the objects got into the cluster. `clusterctl init`
 * creates every object with a plain create (never server-side apply): one `Update` managedFields
 * entry of manager `clusterctl` (its user agent, clusterctl/<version>), owning every field of the
 * created object including the server's defaults. The cluster-api-operator applies the same
 * components (rendered by clusterctl's own code) but without the Namespace and the inventory,
 * adding an owner reference to its provider CR on namespaced objects; its entries are an `Update`
 * of manager `manager` (the operator binary's user agent) and an `Apply` of `capi-operator` from
 * re-applying its cache. The provider CRs and Namespaces were written by a user with client-side
 * `kubectl apply` (a last-applied annotation and a `kubectl-client-side-apply` entry).
 */
import { createHash } from 'node:crypto';
import { admit, type ServerClock } from './api-server.js';
import {
  aggregateClusterRoles,
  injectCaBundles,
  issueCertificates,
  publishEndpoints,
  rollOutDeployments,
} from './controllers.js';
import { fieldSetOf } from './field-set.js';

type Obj = Record<string, any>;

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const entry = (manager: string, operation: string, obj: Obj, time: string) => ({
  apiVersion: obj.apiVersion,
  fieldsType: 'FieldsV1',
  fieldsV1: fieldSetOf(obj, groupOf(obj.apiVersion)),
  manager,
  operation,
  time,
});
const seedOf = (variant: string, o: Obj) => `${variant}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** What `clusterctl init` leaves in the cluster for these rendered objects, after the controllers ran. */
export function clusterctlInstall(variant: string, rendered: readonly Obj[], clock: ServerClock): Obj[] {
  const live = rendered.map((o) => {
    const obj = admit(structuredClone(o), seedOf(variant, o), clock);
    obj.metadata.managedFields = [entry('clusterctl', 'Update', obj, obj.metadata.creationTimestamp)];
    return obj;
  });
  return settle(live, clock);
}

/** A provider CR as the user applied it (kubectl apply), with the operator's own additions. */
export interface OperatorCr {
  /** The CR as written by the user. */
  declared: Obj;
  /** The manifest label of its components (cluster-api, bootstrap-kubeadm, …). */
  label: string;
  installedVersion: string;
  contract: string;
}

/** What the operator leaves in the cluster: its CRs, the user's Namespaces, the components it applied. */
export function operatorInstall(
  variant: string,
  rendered: readonly Obj[],
  crs: readonly OperatorCr[],
  clock: ServerClock,
): Obj[] {
  const live: Obj[] = [];
  const byLabel = new Map<string, Obj>();
  const namespaces = [...new Set(crs.map((c) => c.declared.metadata.namespace as string))].sort();
  for (const ns of namespaces)
    live.push(userApplied({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, variant, clock));
  for (const cr of crs) {
    const obj = userApplied(cr.declared, variant, clock, operatorAdmission);
    const time = clock.now();
    obj.metadata.finalizers = ['provider.cluster.x-k8s.io'];
    obj.metadata.annotations['operator.cluster.x-k8s.io/applied-spec-hash'] = createHash('sha256')
      .update(JSON.stringify(obj.spec))
      .digest('hex');
    obj.metadata.managedFields.push({
      apiVersion: obj.apiVersion,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:annotations': { 'f:operator.cluster.x-k8s.io/applied-spec-hash': {} },
          'f:finalizers': { '.': {}, 'v:"provider.cluster.x-k8s.io"': {} },
        },
      },
      manager: 'manager',
      operation: 'Update',
      time,
    });
    const condition = (type: string) => ({
      lastTransitionTime: time,
      message: '',
      observedGeneration: 1,
      reason: '',
      status: 'True',
      type,
    });
    obj.status = {
      conditions: ['PreflightCheckPassed', 'ProviderInstalled', 'Ready'].map(condition),
      contract: cr.contract,
      installedVersion: cr.installedVersion,
      observedGeneration: 1,
    };
    obj.metadata.managedFields.push({
      apiVersion: obj.apiVersion,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:status': {
          '.': {},
          'f:conditions': {},
          'f:contract': {},
          'f:installedVersion': {},
          'f:observedGeneration': {},
        },
      },
      manager: 'manager',
      operation: 'Update',
      subresource: 'status',
      time,
    });
    byLabel.set(cr.label, obj);
    live.push(obj);
  }
  for (const o of rendered) {
    // The operator filters the Namespace out (its CR lives there) and never writes clusterctl's inventory.
    if (o.kind === 'Namespace' || o.kind === 'Provider' || o.metadata.name === 'providers.clusterctl.cluster.x-k8s.io')
      continue;
    const owner = byLabel.get(o.metadata.labels?.['cluster.x-k8s.io/provider']);
    const obj = admit(structuredClone(o), seedOf(variant, o), clock);
    if (owner && obj.metadata.namespace) {
      obj.metadata.ownerReferences = [
        { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid },
      ];
    }
    obj.metadata.managedFields = [
      entry('manager', 'Update', obj, obj.metadata.creationTimestamp),
      entry('capi-operator', 'Apply', obj, clock.now()),
    ];
    live.push(obj);
  }
  return settle(live, clock);
}

/** An object created by `kubectl apply` (client side). */
function userApplied(
  declared: Obj,
  variant: string,
  clock: ServerClock,
  admission: (obj: Obj) => void = () => undefined,
): Obj {
  const lastApplied = `${JSON.stringify(sortKeys(declared))}\n`;
  const obj = admit(structuredClone(declared), seedOf(variant, declared), clock);
  // Admission happens inside the request: what it adds belongs to the request's manager.
  admission(obj);
  obj.metadata.annotations = {
    ...(obj.metadata.annotations ?? {}),
    'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
  };
  obj.metadata.managedFields = [entry('kubectl-client-side-apply', 'Update', obj, obj.metadata.creationTimestamp)];
  return obj;
}

/**
 * What a provider CR gets on its way in (cluster-api-operator v0.28): the mutating webhook's defaults
 * (internal/webhook/provider_webhook.go: the config Secret's and additional manifests' namespace),
 * the empty structs its round trip through the Go types adds to `manager` (metrics, health and
 * webhook cannot be omitted), and the CRD's structural default `manager.verbosity: 1`.
 */
function operatorAdmission(obj: Obj): void {
  const spec = obj.spec ?? {};
  if (spec.configSecret && !spec.configSecret.namespace) spec.configSecret.namespace = obj.metadata.namespace;
  if (spec.additionalManifests && !spec.additionalManifests.namespace)
    spec.additionalManifests.namespace = obj.metadata.namespace;
  if (spec.manager) {
    for (const empty of ['metrics', 'health', 'webhook']) spec.manager[empty] ??= {};
    spec.manager.verbosity ??= 1;
  }
}

/** Runs the controllers and adds what they create; the result is in creation order. */
function settle(live: Obj[], clock: ServerClock): Obj[] {
  injectCaBundles(live, clock);
  aggregateClusterRoles(live, clock);
  rollOutDeployments(live, clock);
  return [...live, ...issueCertificates(live, clock), ...publishEndpoints(live, clock)];
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Obj)[k])]),
  );
}
