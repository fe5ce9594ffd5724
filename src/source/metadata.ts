/**
 * A release's metadata.yaml (clusterctl.cluster.x-k8s.io/v1alpha3 Metadata): its release series map
 * major.minor to the Cluster API contract. Parsing and lookups follow clusterctl
 * (api/v1alpha3/metadata_type.go, repository/metadata_client.go validateMetadata).
 */
import jsYaml from 'js-yaml';
import { SpecError, error, peerWording, type Peer } from '../errors.js';
import { isJsonObject } from '../manifest/object.js';
import { parseVersion } from '../declarations/versions.js';

export const METADATA_FILE = 'metadata.yaml';
const METADATA_API_VERSION = 'clusterctl.cluster.x-k8s.io/v1alpha3';

export interface ReleaseSeries {
  major: number;
  minor: number;
  contract: string;
}

export interface ReleaseMetadata {
  releaseSeries: ReleaseSeries[];
}

/**
 * Parses and validates metadata.yaml. Like clusterctl: the apiVersion must be
 * clusterctl.cluster.x-k8s.io/v1alpha3, kind must be `Metadata` or absent (several providers never
 * serialised it), and releaseSeries must not be empty. Errors carry clusterctl's words
 * (metadata_client.go: validateMetadata, and "error decoding" for what does not decode), naming the
 * provider by `provider`, its manifest label (default: `where`, the file's description). What does
 * not decode is worded as `decodedBy` says (the operator names the provider by its CR name when it
 * reads a ConfigMap source); default: clusterctl's, naming `provider`.
 */
export function parseMetadata(
  text: string,
  where: string,
  provider: string = where,
  decodedBy: { peer: Peer; provider: string } = { peer: 'clusterctl', provider },
): ReleaseMetadata {
  const undecodable = (why: string): SpecError =>
    invalid(
      where,
      peerWording(
        decodedBy.peer,
        `error decoding "${METADATA_FILE}" for provider "${decodedBy.provider}"`,
        `${where} ${why}`,
      ),
    );
  let doc: unknown;
  try {
    doc = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
  } catch (e) {
    throw undecodable(`is not valid YAML: ${(e as { reason?: string }).reason ?? (e as Error).message}`);
  }
  if (!isJsonObject(doc)) throw undecodable('is not a YAML mapping');
  if (doc.apiVersion !== METADATA_API_VERSION) {
    const found = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
    throw invalid(
      where,
      peerWording(
        'clusterctl',
        `invalid provider metadata: unexpected apiVersion "${found}" for provider ${provider} (expected "${METADATA_API_VERSION}")`,
        where,
      ),
    );
  }
  if (doc.kind !== undefined && doc.kind !== 'Metadata' && doc.kind !== '') {
    throw invalid(
      where,
      peerWording(
        'clusterctl',
        `invalid provider metadata: unexpected kind "${String(doc.kind)}" for provider ${provider} (expected "Metadata")`,
        where,
      ),
    );
  }
  const series = doc.releaseSeries;
  if (!Array.isArray(series) || series.length === 0) {
    throw invalid(
      where,
      peerWording(
        'clusterctl',
        `invalid provider metadata: releaseSeries is empty in ${METADATA_FILE} for provider ${provider}`,
        where,
      ),
    );
  }
  const releaseSeries = series.map((s, i) => {
    if (
      !isJsonObject(s) ||
      !Number.isInteger(s.major) ||
      !Number.isInteger(s.minor) ||
      typeof s.contract !== 'string'
    ) {
      throw undecodable(`releaseSeries[${i}] needs integer major and minor and a string contract`);
    }
    return { major: s.major as number, minor: s.minor as number, contract: s.contract };
  });
  return { releaseSeries };
}

function invalid(where: string, message: string): SpecError {
  return new SpecError(
    error('metadata-invalid', message, {
      file: where,
      hint: `a ${METADATA_FILE} has apiVersion ${METADATA_API_VERSION}, kind Metadata and at least one releaseSeries entry {major, minor, contract}`,
    }),
  );
}

/** The series of a version, matched on major.minor only (first match, as clusterctl). */
export function releaseSeriesFor(metadata: ReleaseMetadata, version: string): ReleaseSeries | undefined {
  const v = parseVersion(version);
  if (!v) return undefined;
  return metadata.releaseSeries.find((s) => s.major === v.major && s.minor === v.minor);
}

/** The newest series implementing `contract` (by major.minor; on a tie the later entry wins). */
export function newestSeriesForContract(metadata: ReleaseMetadata, contract: string): ReleaseSeries | undefined {
  let best: ReleaseSeries | undefined;
  for (const s of metadata.releaseSeries) {
    if (s.contract !== contract) continue;
    if (!best || s.major > best.major || (s.major === best.major && s.minor >= best.minor)) best = s;
  }
  return best;
}

/**
 * Contracts a provider of `contract` may work with: the contract itself, plus v1beta1 for v1beta2
 * (clusterctl's GetCompatibleVersions: "v1beta2 is temporarily compatible with v1beta1").
 */
export function compatibleContracts(contract: string): string[] {
  return contract === 'v1beta2' ? ['v1beta2', 'v1beta1'] : [contract];
}
