/**
 * What in-cluster controllers write after an install, for realistic dumps:
 * cert-manager's cainjector (caBundle, forced server-side apply), the ClusterRole aggregation
 * controller (rules), the Deployment controller (revision annotation, status), the endpoints and
 * EndpointSlice controllers (copies of each Service's labels), and cert-manager's Certificate and
 * Issuer controllers (status, a CertificateRequest per Certificate carrying its labels).
 */
import { createHash } from 'node:crypto';
import type { ServerClock } from './api-server.js';
import { stableUid } from './api-server.js';
import { subtreeSet } from './field-set.js';

type Obj = Record<string, any>;

const INJECT = [
  'cert-manager.io/inject-ca-from',
  'cert-manager.io/inject-ca-from-secret',
  'cert-manager.io/inject-apiserver-ca',
];
const CAINJECTOR = 'cert-manager-cainjector';

function managedEntry(
  manager: string,
  operation: string,
  apiVersion: string,
  time: string,
  fieldsV1: Obj,
  subresource?: string,
): Obj {
  return {
    apiVersion,
    fieldsType: 'FieldsV1',
    fieldsV1,
    manager,
    operation,
    ...(subresource ? { subresource } : {}),
    time,
  };
}

/** A PEM bundle standing in for the CA cert-manager issues (not a real certificate; only its shape matters). */
function caBundle(source: string): string {
  const body = createHash('sha512')
    .update(source)
    .digest('base64')
    .repeat(6)
    .replace(/(.{64})/g, '$1\n')
    .trim();
  return Buffer.from(`-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`).toString('base64');
}

/** cainjector: fills webhook and CRD-conversion caBundles of objects asking for injection. */
export function injectCaBundles(objects: Obj[], clock: ServerClock): void {
  for (const obj of objects) {
    const source = INJECT.map((k) => obj.metadata.annotations?.[k]).find((v) => typeof v === 'string');
    if (!source) continue;
    const bundle = caBundle(source);
    let fields: Obj | undefined;
    if (obj.kind.endsWith('WebhookConfiguration')) {
      const hooks: Obj = {};
      for (const hook of obj.webhooks ?? []) {
        hook.clientConfig.caBundle = bundle;
        hooks[`k:${JSON.stringify({ name: hook.name })}`] = {
          '.': {},
          'f:clientConfig': { 'f:caBundle': {} },
          'f:name': {},
        };
      }
      fields = { 'f:webhooks': hooks };
    } else if (obj.kind === 'CustomResourceDefinition' && obj.spec.conversion?.strategy === 'Webhook') {
      obj.spec.conversion.webhook.clientConfig.caBundle = bundle;
      fields = { 'f:spec': { 'f:conversion': { 'f:webhook': { 'f:clientConfig': { 'f:caBundle': {} } } } } };
    }
    if (fields) {
      obj.metadata.managedFields.push(managedEntry(CAINJECTOR, 'Apply', obj.apiVersion, clock.now(), fields));
      obj.metadata.resourceVersion = clock.nextVersion();
    }
  }
}

/** The aggregation controller: an aggregated ClusterRole's rules are the union of the selected roles' rules. */
export function aggregateClusterRoles(objects: Obj[], clock: ServerClock): void {
  const roles = objects
    .filter((o) => o.kind === 'ClusterRole')
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const role of roles) {
    const selectors: Obj[] = role.aggregationRule?.clusterRoleSelectors ?? [];
    if (selectors.length === 0) continue;
    const rules: Obj[] = [];
    for (const other of roles) {
      if (
        other === role ||
        !selectors.some((s) => Object.entries(s.matchLabels ?? {}).every(([k, v]) => other.metadata.labels?.[k] === v))
      )
        continue;
      for (const rule of other.rules ?? [])
        if (!rules.some((r) => JSON.stringify(r) === JSON.stringify(rule))) rules.push(rule);
    }
    role.rules = rules;
    role.metadata.managedFields.push(
      managedEntry('clusterrole-aggregation-controller', 'Apply', role.apiVersion, clock.now(), { 'f:rules': {} }),
    );
    role.metadata.resourceVersion = clock.nextVersion();
  }
}

/** The Deployment controller: revision annotation and an available status. */
export function rollOutDeployments(objects: Obj[], clock: ServerClock): void {
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const time = clock.now();
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), 'deployment.kubernetes.io/revision': '1' };
    const replicas = d.spec.replicas;
    d.status = {
      availableReplicas: replicas,
      conditions: [
        {
          lastTransitionTime: time,
          lastUpdateTime: time,
          message: 'Deployment has minimum availability.',
          reason: 'MinimumReplicasAvailable',
          status: 'True',
          type: 'Available',
        },
        {
          lastTransitionTime: time,
          lastUpdateTime: time,
          message: `ReplicaSet "${d.metadata.name}-${hash(d.metadata.name).slice(0, 10)}" has successfully progressed.`,
          reason: 'NewReplicaSetAvailable',
          status: 'True',
          type: 'Progressing',
        },
      ],
      observedGeneration: 1,
      readyReplicas: replicas,
      replicas,
      updatedReplicas: replicas,
    };
    d.metadata.managedFields.push(
      managedEntry('kube-controller-manager', 'Update', 'apps/v1', time, {
        'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } },
      }),
      managedEntry(
        'kube-controller-manager',
        'Update',
        'apps/v1',
        time,
        { 'f:status': subtreeSet(d.status, 'apps', 'Deployment', ['status']) },
        'status',
      ),
    );
    d.metadata.resourceVersion = clock.nextVersion();
  }
}

/** cert-manager: Certificates and Issuers become Ready; each Certificate gets its first CertificateRequest. */
export function issueCertificates(objects: Obj[], clock: ServerClock): Obj[] {
  const made: Obj[] = [];
  for (const obj of objects) {
    if (obj.apiVersion !== 'cert-manager.io/v1') continue;
    const time = clock.now();
    const ready = (reason: string, message: string) => ({
      lastTransitionTime: time,
      message,
      observedGeneration: 1,
      reason,
      status: 'True',
      type: 'Ready',
    });
    if (obj.kind === 'Issuer' || obj.kind === 'ClusterIssuer') obj.status = { conditions: [ready('IsReady', '')] };
    if (obj.kind !== 'Certificate') continue;
    obj.status = {
      conditions: [ready('Ready', 'Certificate is up to date and has not expired')],
      notAfter: '2025-08-31T09:00:00Z',
      notBefore: '2025-06-02T09:00:00Z',
      renewalTime: '2025-08-01T09:00:00Z',
      revision: 1,
    };
    const name = `${obj.metadata.name}-1`;
    made.push({
      apiVersion: 'cert-manager.io/v1',
      kind: 'CertificateRequest',
      metadata: {
        annotations: {
          'cert-manager.io/certificate-name': obj.metadata.name,
          'cert-manager.io/certificate-revision': '1',
          'cert-manager.io/private-key-secret-name': `${obj.metadata.name}-xyz12`,
        },
        creationTimestamp: time,
        generation: 1,
        labels: { ...(obj.metadata.labels ?? {}) },
        name,
        namespace: obj.metadata.namespace,
        ownerReferences: [
          {
            apiVersion: 'cert-manager.io/v1',
            blockOwnerDeletion: true,
            controller: true,
            kind: 'Certificate',
            name: obj.metadata.name,
            uid: obj.metadata.uid,
          },
        ],
        resourceVersion: clock.nextVersion(),
        uid: stableUid(`CertificateRequest/${obj.metadata.namespace}/${name}`),
      },
      spec: {
        issuerRef: obj.spec.issuerRef,
        request: Buffer.from(`CSR for ${obj.metadata.name}`).toString('base64'),
        usages: ['digital signature', 'key encipherment'],
      },
      status: {
        certificate: caBundle(name),
        conditions: [ready('Issued', 'Certificate fetched from issuer successfully')],
      },
    });
  }
  return made;
}

/** Endpoints (labels copied from the Service) and an EndpointSlice (owned by it) per selector Service. */
export function publishEndpoints(objects: Obj[], clock: ServerClock): Obj[] {
  const made: Obj[] = [];
  for (const svc of objects.filter((o) => o.kind === 'Service' && o.spec?.selector)) {
    const { name, namespace } = svc.metadata;
    const ip = `10.244.0.${(parseInt(hash(`${namespace}/${name}`).slice(0, 2), 16) % 250) + 2}`;
    const pod = { kind: 'Pod', name: `${name}-pod`, namespace, uid: stableUid(`Pod/${namespace}/${name}`) };
    const ports = (svc.spec.ports ?? []).map((p: Obj) => ({
      ...(p.name ? { name: p.name } : {}),
      port: typeof p.targetPort === 'number' ? p.targetPort : targetPortNumber(objects, namespace, p.targetPort),
      protocol: p.protocol,
    }));
    const time = clock.now();
    made.push({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        creationTimestamp: time,
        labels: { ...(svc.metadata.labels ?? {}) },
        name,
        namespace,
        resourceVersion: clock.nextVersion(),
        uid: stableUid(`Endpoints/${namespace}/${name}`),
      },
      subsets: [{ addresses: [{ ip, nodeName: 'mgmt-control-plane', targetRef: pod }], ports }],
    });
    made.push({
      addressType: 'IPv4',
      apiVersion: 'discovery.k8s.io/v1',
      endpoints: [
        {
          addresses: [ip],
          conditions: { ready: true, serving: true, terminating: false },
          nodeName: 'mgmt-control-plane',
          targetRef: pod,
        },
      ],
      kind: 'EndpointSlice',
      metadata: {
        creationTimestamp: time,
        generateName: `${name}-`,
        generation: 1,
        labels: {
          ...(svc.metadata.labels ?? {}),
          'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
          'kubernetes.io/service-name': name,
        },
        name: `${name}-${hash(name).slice(0, 5)}`,
        namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            blockOwnerDeletion: true,
            controller: true,
            kind: 'Service',
            name,
            uid: svc.metadata.uid,
          },
        ],
        resourceVersion: clock.nextVersion(),
        uid: stableUid(`EndpointSlice/${namespace}/${name}`),
      },
      ports,
    });
  }
  return made;
}

function targetPortNumber(objects: Obj[], namespace: string, portName: string): number {
  for (const d of objects) {
    if (d.kind !== 'Deployment' || d.metadata.namespace !== namespace) continue;
    for (const c of d.spec.template.spec.containers ?? [])
      for (const p of c.ports ?? []) if (p.name === portName) return p.containerPort;
  }
  return 9443;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
