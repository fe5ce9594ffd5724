/**
 * What the Kubernetes API server does to an object on create, for building realistic cluster dumps
 * from rendered objects. Every default is listed with its Kubernetes source,
 * by key: K-APPS pkg/apis/apps/v1/defaults.go, K-CORE pkg/apis/core/v1/defaults.go (+ the generated
 * zz_generated.defaults.go), K-ADM pkg/apis/admissionregistration/v1/defaults.go, K-CRD
 * apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go, K-RBAC pkg/apis/rbac/v1/defaults.go,
 * K-NS pkg/registry/core/namespace/strategy.go, K-SVC pkg/registry/core/service/storage/alloc.go,
 * K-META apiserver pkg/registry/rest/meta.go. This is an independent model of the server for test
 * fixtures: capi-render's comparison code is not used here.
 */
import { createHash } from 'node:crypto';

// Test fixture code works on plain parsed YAML.
type Obj = Record<string, any>;

export interface ServerClock {
  /** RFC 3339 time of the next write. */
  now(): string;
  /** The next resourceVersion. */
  nextVersion(): string;
}

/** A deterministic clock: one second per write from `start`, resourceVersions counting up. */
export function fixedClock(start: string): ServerClock {
  let t = Date.parse(start);
  let rv = 4000;
  return {
    now: () => new Date((t += 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    nextVersion: () => String((rv += 7)),
  };
}

/** A stable UUID for an object identity (the server's is random; fixtures must be reproducible). */
export function stableUid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const KINDS_WITH_GENERATION = new Set([
  'Deployment',
  'CustomResourceDefinition',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'Certificate',
  'Issuer',
  'Provider',
  'CoreProvider',
  'BootstrapProvider',
  'ControlPlaneProvider',
  'InfrastructureProvider',
]);

/** Defaults, server metadata (K-META) and an initial status for a created object. Mutates and returns `obj`. */
export function admit(obj: Obj, seed: string, clock: ServerClock): Obj {
  const meta = (obj.metadata ??= {});
  delete meta.creationTimestamp;
  defaultByKind(obj);
  meta.uid = stableUid(seed);
  meta.creationTimestamp = clock.now();
  meta.resourceVersion = clock.nextVersion();
  if (KINDS_WITH_GENERATION.has(obj.kind)) meta.generation = 1;
  return obj;
}

function defaultByKind(obj: Obj): void {
  switch (obj.kind) {
    case 'Deployment':
      return defaultDeployment(obj);
    case 'Service':
      return defaultService(obj);
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
      return defaultWebhooks(obj, obj.kind === 'MutatingWebhookConfiguration');
    case 'CustomResourceDefinition':
      return defaultCrd(obj);
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return defaultBinding(obj);
    case 'Namespace':
      // K-CORE SetDefaults_Namespace; K-NS PrepareForCreate appends the kubernetes finalizer.
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
      return;
    case 'Secret':
      obj.type ??= 'Opaque'; // K-CORE SetDefaults_Secret
      return;
  }
}

function defaultDeployment(d: Obj): void {
  const spec = (d.spec ??= {});
  spec.replicas ??= 1; // K-APPS SetDefaults_Deployment
  spec.strategy ??= {};
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.template.metadata ??= {};
  // Go clients serialise the template's zero creationTimestamp as null.
  spec.template.metadata.creationTimestamp = null;
  defaultPodSpec(spec.template.spec);
}

function defaultPodSpec(pod: Obj): void {
  // K-CORE SetDefaults_PodSpec (a PodTemplate does not get SetDefaults_Pod).
  pod.dnsPolicy ??= 'ClusterFirst';
  pod.restartPolicy ??= 'Always';
  pod.securityContext ??= {};
  pod.terminationGracePeriodSeconds ??= 30;
  pod.schedulerName ??= 'default-scheduler';
  for (const c of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) defaultContainer(c);
  for (const v of pod.volumes ?? []) {
    // K-CORE SetDefaults_{Secret,ConfigMap,DownwardAPI,Projected}VolumeSource; SetDefaults_Volume.
    for (const source of ['secret', 'configMap', 'downwardAPI', 'projected'])
      if (v[source]) v[source].defaultMode ??= 420;
    if (v.hostPath) v.hostPath.type ??= '';
    for (const s of v.projected?.sources ?? [])
      if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= 3600;
    if (
      !['secret', 'configMap', 'downwardAPI', 'projected', 'hostPath', 'emptyDir', 'persistentVolumeClaim'].some(
        (k) => v[k],
      )
    )
      v.emptyDir = {};
  }
}

function defaultContainer(c: Obj): void {
  // K-CORE SetDefaults_Container with K-PARSE: no tag and no digest, or tag latest ⇒ Always.
  const tagged = /:[^/]+$/.test(String(c.image ?? '').replace(/@.*$/, ''));
  const latest = String(c.image ?? '').endsWith(':latest') || (!tagged && !String(c.image ?? '').includes('@'));
  c.imagePullPolicy ??= latest ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  for (const p of c.ports ?? []) p.protocol ??= 'TCP'; // K-CORE-GEN
  for (const e of c.env ?? []) if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ??= 'v1'; // SetDefaults_ObjectFieldSelector
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
    if (!probe) continue;
    // K-CORE SetDefaults_Probe, SetDefaults_HTTPGetAction.
    probe.timeoutSeconds ??= 1;
    probe.periodSeconds ??= 10;
    probe.successThreshold ??= 1;
    probe.failureThreshold ??= 3;
    if (probe.httpGet) {
      probe.httpGet.path ??= '/';
      probe.httpGet.scheme ??= 'HTTP';
    }
  }
}

function defaultService(s: Obj): void {
  const spec = (s.spec ??= {});
  // K-CORE SetDefaults_Service.
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  for (const p of spec.ports ?? []) {
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (['ClusterIP', 'NodePort', 'LoadBalancer'].includes(spec.type)) spec.internalTrafficPolicy ??= 'Cluster';
  // K-SVC initIPFamilyFields / allocClusterIPs: one family on a single-stack cluster, one address.
  spec.ipFamilyPolicy ??= 'SingleStack';
  spec.ipFamilies ??= ['IPv4'];
  const h = createHash('sha256').update(`${s.metadata.namespace}/${s.metadata.name}`).digest();
  spec.clusterIP ??= `10.96.${h[0]}.${(h[1]! % 253) + 1}`;
  spec.clusterIPs ??= [spec.clusterIP];
  s.status = { loadBalancer: {} };
}

function defaultWebhooks(w: Obj, mutating: boolean): void {
  for (const hook of w.webhooks ?? []) {
    // K-ADM SetDefaults_{Validating,Mutating}Webhook, SetDefaults_Rule, SetDefaults_ServiceReference (GA v1 values).
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    for (const r of hook.rules ?? []) r.scope ??= '*';
    if (hook.clientConfig?.service) hook.clientConfig.service.port ??= 443;
  }
}

function defaultCrd(crd: Obj): void {
  const spec = crd.spec;
  // K-CRD SetDefaults_CustomResourceDefinitionSpec; PUF: a v1 CRD's preserveUnknownFields: false is dropped.
  spec.conversion ??= { strategy: 'None' };
  if (spec.conversion.webhook?.clientConfig?.service) spec.conversion.webhook.clientConfig.service.port ??= 443;
  spec.names.singular ??= String(spec.names.kind).toLowerCase();
  spec.names.listKind ??= `${spec.names.kind}List`;
  if (spec.preserveUnknownFields === false) delete spec.preserveUnknownFields;
  const storage = (spec.versions ?? []).find((v: Obj) => v.storage)?.name;
  const t = '2025-06-02T09:00:00Z';
  crd.status = {
    acceptedNames: { ...spec.names },
    conditions: [
      {
        lastTransitionTime: t,
        message: 'no conflicts found',
        reason: 'NoConflicts',
        status: 'True',
        type: 'NamesAccepted',
      },
      {
        lastTransitionTime: t,
        message: 'the initial names have been accepted',
        reason: 'InitialNamesAccepted',
        status: 'True',
        type: 'Established',
      },
    ],
    storedVersions: storage ? [storage] : [],
  };
}

function defaultBinding(b: Obj): void {
  // K-RBAC SetDefaults_ClusterRoleBinding / RoleBinding / Subject.
  b.roleRef.apiGroup ??= 'rbac.authorization.k8s.io';
  for (const s of b.subjects ?? [])
    if (s.apiGroup === undefined && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = 'rbac.authorization.k8s.io';
}
