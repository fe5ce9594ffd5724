/**
 * clusterctl's target-namespace handling (cmd/clusterctl/client/repository/components.go:
 * inspectTargetNamespace, addNamespaceIfMissing, fixTargetNamespace), on immutable objects.
 */
import { SpecError, error, peerWording } from '../errors.js';
import { isClusterScoped } from '../manifest/cluster-scoped.js';
import {
  annotationsOf,
  apiVersionOnly,
  describeObject,
  getIn,
  isJsonObject,
  nameOf,
  namespaceOf,
  setIn,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '../manifest/object.js';
import { withObject, type Resource } from '../manifest/resource.js';

const INJECT_CA_FROM = 'cert-manager.io/inject-ca-from';
/** How clusterctl's NewComponents prefixes every failure of its namespace fix-up. */
const SET_TARGET_NAMESPACE = 'failed to set the TargetNamespace on the components';

/**
 * The namespace the components declare: the name of their single Namespace object, or '' when there
 * is none. More than one Namespace is an error, as in clusterctl.
 */
export function inspectTargetNamespace(resources: readonly Resource[], source: string): string {
  const namespaces = resources.filter((r) => r.object.kind === 'Namespace');
  if (namespaces.length > 1) {
    throw new SpecError(
      error(
        'namespace',
        peerWording(
          'clusterctl',
          'failed to detect default target namespace: Invalid manifest. There should be no more than one resource with Kind Namespace in the provider components yaml',
          `the components declare ${namespaces.length}: ${namespaces.map((r) => nameOf(r.object)).join(', ')}`,
        ),
        {
          file: source,
          hint: 'put extra namespaces in a separate manifest; clusterctl rejects such components too',
        },
      ),
    );
  }
  return namespaces.length === 1 ? nameOf(namespaces[0]!.object) : '';
}

/** Appends a `v1` Namespace named `namespace` when the components have none. */
export function addNamespaceIfMissing(resources: readonly Resource[], namespace: string, source: string): Resource[] {
  if (resources.some((r) => r.object.kind === 'Namespace')) return [...resources];
  const created: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
  return [...resources, { object: created, origin: { source, document: -1 } }];
}

/**
 * Moves every object into `target`: renames the Namespace, sets metadata.namespace on namespaced
 * kinds, and rewrites the references clusterctl rewrites — binding subjects, webhook and CRD
 * conversion service namespaces, `cert-manager.io/inject-ca-from`, Certificate dnsNames.
 */
export function fixTargetNamespace(resources: readonly Resource[], target: string): Resource[] {
  return resources.map((r) => withObject(r, fixObject(r.object, target)));
}

function fixObject(input: KubeObject, target: string): KubeObject {
  let obj = input;
  const originalNamespace = namespaceOf(obj);
  if (obj.kind === 'Namespace' && nameOf(obj) !== target) obj = setIn(obj, ['metadata', 'name'], target);
  // clusterctl decides namespacedness from a fixed kind list; kinds it misses but that are
  // cluster-scoped in reality (ClusterIssuer, APIService, …) are kept cluster-scoped here — the API
  // server would drop the namespace anyway, so the cluster ends up the same.
  if (!isClusterScoped(obj.kind) && originalNamespace !== target) obj = setIn(obj, ['metadata', 'namespace'], target);

  switch (obj.kind) {
    case 'ClusterRoleBinding':
    case 'RoleBinding':
      return fixBindingSubjects(obj, target);
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
      return fixWebhooks(fixInjectCaFrom(obj, target), target);
    case 'CustomResourceDefinition':
      return fixConversionWebhook(fixInjectCaFrom(obj, target), target);
    case 'Certificate':
      return fixCertificateDnsNames(obj, originalNamespace, target);
    default:
      return obj;
  }
}

/** Subjects that name a namespace (ServiceAccounts) must point at the target; User/Group subjects have none. */
function fixBindingSubjects(obj: KubeObject, target: string): KubeObject {
  const subjects = obj.subjects;
  if (!Array.isArray(subjects)) return obj;
  let changed = false;
  const fixed = subjects.map((s) => {
    if (isJsonObject(s) && typeof s.namespace === 'string' && s.namespace !== '' && s.namespace !== target) {
      changed = true;
      return { ...s, namespace: target };
    }
    return s;
  });
  return changed ? setIn(obj, ['subjects'], fixed) : obj;
}

/** The annotation names the serving Certificate as `<namespace>/<name>`; only the namespace moves. */
function fixInjectCaFrom(obj: KubeObject, target: string): KubeObject {
  const value = annotationsOf(obj)[INJECT_CA_FROM];
  if (value === undefined) return obj;
  const parts = String(value).split('/');
  if (parts.length !== 2) {
    throw new SpecError(
      error(
        'namespace',
        peerWording(
          'clusterctl',
          `${SET_TARGET_NAMESPACE}: object ${obj.kind} ${nameOf(obj)} does not have a correct value for ${INJECT_CA_FROM}`,
          `${describeObject(obj)} has annotation ${INJECT_CA_FROM}: "${value}", which is not of the form <namespace>/<certificate>`,
        ),
        {
          object: describeObject(obj),
          field: `metadata.annotations.${INJECT_CA_FROM}`,
          hint: `write the annotation as <namespace>/<certificate name>, e.g. ${target}/serving-cert`,
        },
      ),
    );
  }
  const fixed = `${target}/${parts[1]}`;
  return fixed === value ? obj : setIn(obj, ['metadata', 'annotations', INJECT_CA_FROM], fixed);
}

function requireVersion(obj: KubeObject, allowed: readonly string[]): void {
  const version = apiVersionOnly(obj.apiVersion);
  if (!allowed.includes(version)) {
    throw new SpecError(
      error(
        'namespace',
        peerWording(
          'clusterctl',
          `${SET_TARGET_NAMESPACE}: failed to patch ${version} ${obj.kind}`,
          `cannot set the target namespace on ${describeObject(obj)}: apiVersion ${obj.apiVersion} is not supported (only ${allowed.join(' and ')}, as in clusterctl)`,
        ),
        {
          object: describeObject(obj),
          field: 'apiVersion',
          hint: `use apiVersion ${obj.kind === 'CustomResourceDefinition' ? 'apiextensions.k8s.io' : 'admissionregistration.k8s.io'}/v1`,
        },
      ),
    );
  }
}

function fixWebhooks(obj: KubeObject, target: string): KubeObject {
  requireVersion(obj, ['v1', 'v1beta1']);
  const webhooks = obj.webhooks;
  if (!Array.isArray(webhooks)) return obj;
  let changed = false;
  const fixed = webhooks.map((w) => {
    const service = getIn(w, ['clientConfig', 'service']);
    if (!isJsonObject(service) || service.namespace === target) return w;
    changed = true;
    return setIn(w as JsonObject, ['clientConfig', 'service', 'namespace'], target);
  });
  return changed ? setIn(obj, ['webhooks'], fixed as JsonValue) : obj;
}

function fixConversionWebhook(obj: KubeObject, target: string): KubeObject {
  requireVersion(obj, ['v1', 'v1beta1']);
  // apiextensions v1 nests the client config under `webhook`; v1beta1 called it webhookClientConfig.
  const path =
    apiVersionOnly(obj.apiVersion) === 'v1'
      ? ['spec', 'conversion', 'webhook', 'clientConfig', 'service']
      : ['spec', 'conversion', 'webhookClientConfig', 'service'];
  const service = getIn(obj, path);
  if (!isJsonObject(service) || service.namespace === target) return obj;
  return setIn(obj, [...path, 'namespace'], target);
}

/** Service DNS names embed the namespace (`svc.<ns>.svc`); only the first `.<ns>.` of each name moves. */
function fixCertificateDnsNames(obj: KubeObject, originalNamespace: string, target: string): KubeObject {
  const names = getIn(obj, ['spec', 'dnsNames']);
  if (names === undefined || names === null) return obj;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    // clusterctl reads the field as a list of strings and refuses the components otherwise.
    throw new SpecError(
      error(
        'namespace',
        peerWording(
          'clusterctl',
          `${SET_TARGET_NAMESPACE}: failed to get .spec.dnsNames from Certificate ${namespaceOf(obj)}/${nameOf(obj)}`,
          `spec.dnsNames of ${describeObject(obj)} is not a list of strings`,
        ),
        {
          object: describeObject(obj),
          field: 'spec.dnsNames',
          hint: 'cert-manager takes spec.dnsNames as a list of DNS names (strings)',
        },
      ),
    );
  }
  const from = `.${originalNamespace}.`;
  const to = `.${target}.`;
  let changed = false;
  const fixed = (names as string[]).map((n) => {
    const replaced = n.replace(from, to);
    if (replaced !== n) changed = true;
    return replaced;
  });
  return changed ? setIn(obj, ['spec', 'dnsNames'], fixed) : obj;
}
