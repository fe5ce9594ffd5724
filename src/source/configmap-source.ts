/**
 * The cluster-api-operator's air-gapped source (internal/controller/phase_load.go configmapRepository):
 * `spec.fetchConfig.selector` matches ConfigMaps in the provider's namespace; each is one version —
 * from the `provider.cluster.x-k8s.io/version` label, else the ConfigMap's name — with `data.metadata`
 * and `data.components`, or gzip'd `binaryData.components` behind the
 * `provider.cluster.x-k8s.io/compressed: "true"` annotation. Here the ConfigMaps come from the inputs,
 * so the source is pure data; every matched ConfigMap is checked up front, as the operator does.
 */
import { gunzipSync } from 'node:zlib';
import { FetchError, SpecError, error, peerWording, type Diagnostic } from '../errors.js';
import { isJsonObject, labelsOf, annotationsOf, nameOf, namespaceOf } from '../manifest/object.js';
import type { InputObject } from '../declarations/inputs.js';
import type { LabelSelector } from '../declarations/provider-spec.js';
import { formatLabelSelector, matchesLabelSelector } from './label-selector.js';
import { METADATA_FILE } from './metadata.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from './release-source.js';
import { canonicalVersion, parseVersion, sortVersions } from '../declarations/versions.js';

export const VERSION_LABEL = 'provider.cluster.x-k8s.io/version';
export const COMPRESSED_ANNOTATION = 'provider.cluster.x-k8s.io/compressed';

export interface ConfigMapSourceInput {
  selector: LabelSelector;
  /** The provider's namespace: only ConfigMaps there are considered. */
  namespace: string;
  configMaps: readonly InputObject[];
  /** Where the selector is declared, for the "matches nothing" error. */
  declaredAt: { file: string; line: number; col: number; object: string };
}

interface VersionEntry {
  version: string;
  metadata: string;
  components: () => string;
  from: InputObject;
}

/** Builds the source; throws a SpecError listing every problem with the matched ConfigMaps. */
export function createConfigMapSource(input: ConfigMapSourceInput): ReleaseSource {
  const selectorText = formatLabelSelector(input.selector);
  const matching = input.configMaps.filter((cm) => matchesLabelSelector(input.selector, labelsOf(cm.object)));
  const inNamespace = matching.filter((cm) => namespaceOf(cm.object) === input.namespace);
  if (inNamespace.length === 0) {
    const elsewhere = matching.map((cm) => `${cm.file} (${namespaceOf(cm.object) || 'no namespace'})`);
    throw new SpecError(
      error(
        'selector-no-match',
        peerWording(
          'cluster-api-operator',
          `no ConfigMaps found with selector ${selectorText}`,
          `spec.fetchConfig.selector matches no ConfigMap in namespace ${input.namespace}`,
        ),
        {
          ...input.declaredAt,
          field: 'spec.fetchConfig.selector',
          hint:
            elsewhere.length > 0
              ? `ConfigMaps that match but live in another namespace: ${elsewhere.join(', ')}; the operator only reads ConfigMaps in the provider's namespace`
              : 'add the ConfigMaps (operator air-gapped format) under providers/, in the provider namespace, with labels the selector matches',
        },
      ),
    );
  }
  const problems: Diagnostic[] = [];
  const byVersion = new Map<string, VersionEntry>();
  for (const cm of inNamespace) {
    const entry = readEntry(cm, problems);
    if (!entry) continue;
    const key = canonicalVersion(entry.version);
    const clash = byVersion.get(key);
    if (clash) {
      problems.push(
        error(
          'configmap-duplicate-version',
          `ConfigMaps ${describe(clash.from)} and ${describe(cm)} both provide version ${key} for selector ${selectorText}`,
          {
            file: cm.file,
            ...cm.locate(['metadata', 'name']),
            object: describe(cm),
            hint: 'keep exactly one ConfigMap per version, or narrow the selector',
          },
        ),
      );
      continue;
    }
    byVersion.set(key, entry);
  }
  if (problems.length > 0) throw new SpecError(problems);

  const shown = releaseSourceId('configmap', `${input.namespace}/{${selectorText}}`);
  return {
    id: shown,
    description: `ConfigMaps in ${input.namespace} matching ${selectorText}`,
    async listVersions() {
      return sortVersions([...byVersion.values()].map((e) => e.version));
    },
    async readFile(version, fileName): Promise<Artifact> {
      const entry = byVersion.get(canonicalVersion(version));
      if (!entry) {
        throw new FetchError(
          error(
            'version-not-found',
            `no ConfigMap in ${input.namespace} matching ${selectorText} provides version ${version}`,
            {
              ...input.declaredAt,
              hint: `available versions: ${sortVersions([...byVersion.values()].map((e) => e.version)).join(', ')}`,
            },
          ),
        );
      }
      const text = fileName === METADATA_FILE ? entry.metadata : entry.components();
      const key = fileName === METADATA_FILE ? 'metadata' : 'components';
      return { bytes: new TextEncoder().encode(text), url: `configmap:${describeRef(entry.from)}#${key}` };
    },
  };
}

/** How to write a ConfigMap the operator reads (its docs' air-gapped format). */
const FORMAT_HINT = `one ConfigMap per version: data.metadata (the release's metadata.yaml) and data.components, or binaryData.components (base64 of gzip) with the annotation ${COMPRESSED_ANNOTATION}: "true"; \`capi-render mirror --format configmaps\` writes them`;

function readEntry(cm: InputObject, problems: Diagnostic[]): VersionEntry | undefined {
  const labels = labelsOf(cm.object);
  const fromLabel = Object.prototype.hasOwnProperty.call(labels, VERSION_LABEL);
  const version = fromLabel ? String(labels[VERSION_LABEL]) : nameOf(cm.object);
  const where = { file: cm.file, object: describe(cm) };
  if (!parseVersion(version)) {
    problems.push(
      error(
        'configmap-invalid',
        peerWording(
          'cluster-api-operator',
          `ConfigMap ${describeRef(cm)} has invalid version:${version} (from the ${fromLabel ? `Label ${VERSION_LABEL}` : 'Name'})`,
          'not a semantic version',
        ),
        {
          ...where,
          ...cm.locate(fromLabel ? ['metadata', 'labels', VERSION_LABEL] : ['metadata', 'name']),
          hint: 'a version is a semantic version such as v1.12.0',
        },
      ),
    );
    return undefined;
  }
  const data = isJsonObject(cm.object.data) ? cm.object.data : {};
  const binaryData = isJsonObject(cm.object.binaryData) ? cm.object.binaryData : {};
  if (typeof data.metadata !== 'string') {
    problems.push(
      error(
        'configmap-invalid',
        peerWording('cluster-api-operator', `ConfigMap ${describeRef(cm)} has no metadata`, 'data.metadata is missing'),
        { ...where, ...cm.locate(['data']), field: 'data.metadata', hint: FORMAT_HINT },
      ),
    );
    return undefined;
  }
  const compressed = annotationsOf(cm.object)[COMPRESSED_ANNOTATION] === 'true';
  if (compressed) {
    const payload = binaryData.components;
    if (typeof payload !== 'string') {
      problems.push(
        error(
          'configmap-invalid',
          peerWording(
            'cluster-api-operator',
            `ConfigMap ${describeRef(cm)} BinaryData has no components`,
            `it is annotated ${COMPRESSED_ANNOTATION}: "true"`,
          ),
          { ...where, ...cm.locate(['binaryData']), field: 'binaryData.components', hint: FORMAT_HINT },
        ),
      );
      return undefined;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(gunzipSync(Buffer.from(payload, 'base64')));
    } catch {
      problems.push(
        error(
          'configmap-invalid',
          peerWording(
            'cluster-api-operator',
            `cannot decompress data from ConfigMap ${describeRef(cm)}`,
            "binaryData.components must be base64 of gzip'd UTF-8 YAML",
          ),
          { ...where, ...cm.locate(['binaryData', 'components']), field: 'binaryData.components', hint: FORMAT_HINT },
        ),
      );
      return undefined;
    }
    return { version, metadata: data.metadata, components: () => text, from: cm };
  }
  if (typeof data.components !== 'string') {
    problems.push(
      error(
        'configmap-invalid',
        peerWording(
          'cluster-api-operator',
          `ConfigMap ${describeRef(cm)} Data has no components`,
          'data.components is missing',
        ),
        { ...where, ...cm.locate(['data']), field: 'data.components', hint: FORMAT_HINT },
      ),
    );
    return undefined;
  }
  const components = data.components;
  return { version, metadata: data.metadata, components: () => components, from: cm };
}

function describeRef(cm: InputObject): string {
  return `${namespaceOf(cm.object) || 'default'}/${nameOf(cm.object)}`;
}

function describe(cm: InputObject): string {
  return `ConfigMap/${describeRef(cm)} (${cm.file})`;
}
