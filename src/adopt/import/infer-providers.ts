/**
 * What a cluster runs, read from a dump: clusterctl's inventory
 * `Provider` objects and the operator's provider CRs, the cert-manager clusterctl installed, and
 * the Secrets and ConfigMaps the providers reference. Pure: the caller reads the dump and decides
 * what a provider needs to be fetched. Nothing is guessed: a provider capi-render cannot fetch and a
 * dump without any provider are errors that say what to add.
 */
import { error, warning, type Diagnostic } from '../../errors.js';
import {
  apiGroup,
  apiVersionOnly,
  isJsonObject,
  labelsOf,
  annotationsOf,
  type JsonObject,
  type KubeObject,
} from '../../manifest/object.js';
import {
  isProviderKind,
  manifestLabel,
  kindInfo,
  OPERATOR_GROUP,
  type ProviderKind,
} from '../../declarations/provider-kinds.js';
import { CLUSTERCTL_CORE_LABEL } from '../../process/common-labels.js';
import { CERT_MANAGER_VERSION_ANNOTATION } from '../../render/cert-manager.js';
import type { LiveDump } from '../live-dump.js';
import { declaredMetadata } from '../live-object.js';
import { withoutOperatorDefaults } from './operator-defaults.js';

/** A provider to declare, and where each of its values came from (written as comments). */
export interface ImportedProvider {
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** The operator CR's spec (version included), or `{ version }` for an inventory entry. */
  spec: JsonObject;
  /** Labels and annotations an operator CR carried (server ones removed). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** What the provider was read from, e.g. `clusterctl inventory Provider capi-system/cluster-api`. */
  origin: string;
  /** Field path in the CR → where its value came from. */
  sources: Record<string, string>;
  /** Extra lines for the declaration's header comment. */
  notes: string[];
}

/** A Secret or ConfigMap a provider needs among the inputs; never imported with values. */
export interface RequiredInput {
  kind: 'Secret' | 'ConfigMap';
  namespace: string;
  /** A name, or a label selector for `fetchConfig.selector`. */
  name: string;
  usedBy: string;
  field: string;
  /** Keys the dump shows (never values); undefined when the object is not in the dump. */
  keys?: string[];
}

export interface CertManagerFinding {
  version: string;
  /** The object whose annotation gave the version. */
  from: string;
}

export interface InferredInstallation {
  providers: ImportedProvider[];
  certManager?: CertManagerFinding;
  required: RequiredInput[];
  warnings: Diagnostic[];
}

export interface InferOptions {
  /** Whether capi-render can fetch a provider without a fetchConfig (clusterctl's list, capi-render.yaml `providers:`, a local repository). */
  isKnown(kind: ProviderKind, name: string): boolean;
  /** `--fetch-url LABEL=URL`: fetchConfig.url for providers capi-render does not know, by manifest label. */
  fetchUrls: ReadonlyMap<string, string>;
}

const INVENTORY_API_VERSION = 'clusterctl.cluster.x-k8s.io/v1alpha3';

/** Reads the installation from the dump; throws nothing, returns errors among the diagnostics. */
export function inferInstallation(
  dump: LiveDump,
  options: InferOptions,
): InferredInstallation & { errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const where = (o: { document: number; item?: number }) =>
    `${dump.file} document ${o.document}${o.item ? ` item ${o.item}` : ''}`;
  const fromOperator: ImportedProvider[] = [];
  const fromInventory: ImportedProvider[] = [];
  for (const entry of dump.objects) {
    const obj = entry.object;
    if (obj.apiVersion === INVENTORY_API_VERSION && obj.kind === 'Provider') {
      const imported = inventoryProvider(obj, where(entry), dump.file);
      if ('error' in imported) errors.push(imported.error);
      else fromInventory.push(imported);
    } else if (apiGroup(obj.apiVersion) === OPERATOR_GROUP && isProviderKind(obj.kind)) {
      if (apiVersionOnly(obj.apiVersion) !== 'v1alpha2') {
        errors.push(
          error(
            'import',
            `${obj.kind} ${ref(obj)} is ${obj.apiVersion}; capi-render reads the operator's v1alpha2 API`,
            {
              file: dump.file,
              hint: 'dump it again with the fully qualified resource name (kubectl get coreproviders.v1alpha2.operator.cluster.x-k8s.io …): the API server converts it',
            },
          ),
        );
      } else fromOperator.push(operatorProvider(obj));
    }
  }
  const providers = [...fromOperator];
  for (const p of fromInventory) {
    const twin = fromOperator.find((o) => o.kind === p.kind && o.name === p.name);
    if (!twin) providers.push(p);
    else if (twin.namespace !== p.namespace || twin.spec.version !== p.spec.version) {
      // A migration from clusterctl to the operator leaves clusterctl's inventory behind.
      warnings.push(
        warning(
          'import',
          `${p.origin} says ${p.spec.version} in ${p.namespace}, the operator's ${twin.origin} says ${String(twin.spec.version)} in ${twin.namespace}; the operator CR is imported`,
          {
            file: dump.file,
            hint: 'a stale inventory entry is left by a migration from clusterctl to the operator; the first sync rewrites it',
          },
        ),
      );
    }
  }
  for (const p of providers) {
    if (p.spec.fetchConfig !== undefined || options.isKnown(p.kind, p.name)) continue;
    const label = manifestLabel(p.kind, p.name);
    const url = options.fetchUrls.get(label);
    if (url) {
      p.spec = { ...p.spec, fetchConfig: { url } };
      p.sources['spec.fetchConfig.url'] = `--fetch-url ${label}=…`;
    } else {
      errors.push(
        error(
          'import',
          `${p.kind} ${p.namespace}/${p.name} (${p.origin}) is not in clusterctl's provider list, so capi-render cannot tell where its releases are`,
          {
            file: dump.file,
            hint: `pass --fetch-url ${label}=https://github.com/<owner>/<repo>/releases/${String(p.spec.version ?? 'latest')}/${kindInfo(p.kind).componentsAsset}, or add {name: ${p.name}, type: ${p.kind}, url: …} to providers: in capi-render.yaml, or put its releases in a local repository under repositories:`,
          },
        ),
      );
    }
  }
  const cores = providers.filter((p) => p.kind === 'CoreProvider');
  if (providers.length === 0 && errors.length === 0) {
    errors.push(
      error(
        'import',
        `${dump.file} holds neither clusterctl's inventory (Provider objects) nor the operator's provider CRs`,
        {
          file: dump.file,
          hint: 'dump them with kubectl get providers.clusterctl.cluster.x-k8s.io,coreproviders.operator.cluster.x-k8s.io,… -A -o yaml (docs/adoption.md "1. Dump the cluster (read-only)")',
        },
      ),
    );
  } else if (cores.length !== 1 && errors.length === 0) {
    errors.push(
      error(
        'import',
        `${dump.file} has ${cores.length === 0 ? 'no CoreProvider' : `${cores.length} CoreProviders (${cores.map((c) => `${c.namespace}/${c.name}`).join(', ')})`}; an installation has exactly one`,
        {
          file: dump.file,
          hint: 'include the core provider in the dump; clusterctl upgrade plan refuses a cluster with no or several core providers too',
        },
      ),
    );
  }
  providers.sort(
    (a, b) => kindInfo(a.kind).order - kindInfo(b.kind).order || cmp(a.name, b.name) || cmp(a.namespace, b.namespace),
  );
  return { providers, certManager: findCertManager(dump), required: requiredInputs(providers, dump), warnings, errors };
}

function inventoryProvider(obj: KubeObject, at: string, file: string): ImportedProvider | { error: Diagnostic } {
  const meta = obj.metadata as JsonObject;
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const origin = `clusterctl inventory Provider ${namespace}/${String(meta.name)}`;
  const type = obj.type;
  const name = obj.providerName;
  const version = obj.version;
  if (
    !isProviderKind(type) ||
    typeof name !== 'string' ||
    name === '' ||
    typeof version !== 'string' ||
    version === '' ||
    namespace === ''
  ) {
    return {
      error: error('import', `${origin} (${at}) needs providerName, a known type, version and a namespace`, {
        file,
        hint: 'the object is damaged or not written by clusterctl; fix or drop it from the dump',
      }),
    };
  }
  const notes = [`installed by clusterctl: ${origin}`];
  if (typeof obj.watchedNamespace === 'string' && obj.watchedNamespace !== '') {
    // Deprecated since clusterctl v1alpha4 (controllers watch every namespace); not turned into a flag.
    notes.push(
      `the inventory records watchedNamespace ${obj.watchedNamespace} (deprecated); if the controller really watches only that namespace, set spec.manager.cacheNamespace: ${obj.watchedNamespace}`,
    );
  }
  return {
    kind: type,
    name,
    namespace,
    spec: { version },
    origin,
    sources: {
      'metadata.namespace': `the namespace of Provider ${namespace}/${String(meta.name)}`,
      'spec.version': `the version field of Provider ${namespace}/${String(meta.name)}`,
    },
    notes,
  };
}

function operatorProvider(obj: KubeObject): ImportedProvider {
  const meta = declaredMetadata(obj.metadata as JsonObject);
  const namespace = String(meta.namespace ?? '');
  const origin = `cluster-api-operator ${obj.kind} ${namespace}/${String(meta.name)}`;
  // What the API server and the operator's webhook defaulted is not the author's: left out (operator-defaults.ts).
  const defaults = withoutOperatorDefaults(obj.kind as ProviderKind, namespace, isJsonObject(obj.spec) ? obj.spec : {});
  const spec: JsonObject = { ...defaults.spec };
  const sources: Record<string, string> = { spec: `the spec of ${obj.kind} ${namespace}/${String(meta.name)}` };
  const installed = isJsonObject(obj.status) ? obj.status.installedVersion : undefined;
  if ((spec.version === undefined || spec.version === '') && typeof installed === 'string' && installed !== '') {
    // An empty spec.version makes the operator install the latest release; pin what it installed.
    spec.version = installed;
    sources['spec.version'] =
      `status.installedVersion of ${obj.kind} ${namespace}/${String(meta.name)} (its spec.version is empty: the operator installed the latest release)`;
  }
  const labels = labelsOf(meta);
  const annotations = annotationsOf(meta);
  return {
    kind: obj.kind as ProviderKind,
    name: String(meta.name),
    namespace,
    spec,
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    origin,
    sources,
    notes: [
      `installed by the operator: ${origin} (status, finalizer and server fields removed)`,
      ...(defaults.dropped.length > 0
        ? [
            `left out as the ${[...new Set(defaults.dropped.map((d) => (d.by === 'crd' ? "CRD's" : "operator webhook's")))].join(' and ')} defaults (they render the same): ${defaults.dropped.map((d) => `${d.path}=${JSON.stringify(d.value)}`).join(', ')}`,
          ]
        : []),
    ],
  };
}

/** cert-manager as clusterctl init installed it; undefined when the dump holds none. */
function findCertManager(dump: LiveDump): CertManagerFinding | undefined {
  let found: CertManagerFinding | undefined;
  for (const { object } of dump.objects) {
    if (labelsOf(object)[CLUSTERCTL_CORE_LABEL] !== 'cert-manager') continue;
    // clusterctl before the annotation existed installed v0.11.0 (cert_manager.go).
    const version = annotationsOf(object)[CERT_MANAGER_VERSION_ANNOTATION] ?? 'v0.11.0';
    const candidate = { version, from: `${CERT_MANAGER_VERSION_ANNOTATION} on ${object.kind} ${ref(object)}` };
    if (!found || (object.kind === 'Deployment' && !found.from.includes(' Deployment '))) found = candidate;
  }
  return found;
}

function requiredInputs(providers: readonly ImportedProvider[], dump: LiveDump): RequiredInput[] {
  const out: RequiredInput[] = [];
  const keysOf = (kind: string, namespace: string, name: string): string[] | undefined => {
    const found = dump.objects.find(
      ({ object: o }) =>
        o.kind === kind &&
        o.apiVersion === 'v1' &&
        (o.metadata as JsonObject).namespace === namespace &&
        (o.metadata as JsonObject).name === name,
    )?.object;
    if (!found) return undefined;
    return [
      ...new Set([
        ...Object.keys(isJsonObject(found.data) ? found.data : {}),
        ...Object.keys(isJsonObject(found.stringData) ? found.stringData : {}),
        ...Object.keys(isJsonObject(found.binaryData) ? found.binaryData : {}),
      ]),
    ].sort();
  };
  for (const p of providers) {
    const usedBy = `${p.kind} ${p.namespace}/${p.name}`;
    const refAt = (kind: 'Secret' | 'ConfigMap', value: unknown, field: string) => {
      if (!isJsonObject(value) || typeof value.name !== 'string') return;
      const v = value;
      const namespace = typeof v.namespace === 'string' && v.namespace !== '' ? v.namespace : p.namespace;
      const keys = keysOf(kind, namespace, String(v.name));
      out.push({ kind, namespace, name: String(v.name), usedBy, field, ...(keys ? { keys } : {}) });
    };
    refAt('Secret', p.spec.configSecret, 'spec.configSecret');
    refAt('ConfigMap', p.spec.additionalManifests, 'spec.additionalManifests');
    const selector = isJsonObject(p.spec.fetchConfig) ? p.spec.fetchConfig.selector : undefined;
    if (isJsonObject(selector)) {
      out.push({
        kind: 'ConfigMap',
        namespace: p.namespace,
        name: `selected by ${JSON.stringify(selector)}`,
        usedBy,
        field: 'spec.fetchConfig.selector',
      });
    }
  }
  return out;
}

function ref(obj: KubeObject): string {
  const meta = obj.metadata as JsonObject;
  return typeof meta.namespace === 'string' && meta.namespace
    ? `${meta.namespace}/${String(meta.name)}`
    : String(meta.name);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
