/**
 * What an environment's committed output holds — what Argo CD or Flux applies to its cluster — as
 * the guards need it: the providers installed (clusterctl's inventory `Provider` objects, with their
 * versions) and the CRDs (by the file names capi-render gives them). The removal guard, the downgrade
 * refusal and the storage-migration checks decide from this and the inputs, never from a lock field
 * alone: a lock can be edited in the same pull request as the inputs, what Argo CD applies cannot
 * change without showing in rendered/.
 *
 * Pure: the caller lists the files (relative to the output folder, only those capi-render owns and
 * that are regular files) and reads them through the repository reader.
 */
import jsYaml from 'js-yaml';
import { isJsonObject } from '../manifest/object.js';

/** One installed provider: its id as the lock writes it (`Kind/namespace/name`) and version. */
export interface CommittedProvider {
  provider: string;
  version: string;
  /** The inventory file it was read from, relative to the output folder. */
  file: string;
}

/** One environment's committed output, as the guards read it. */
export interface CommittedEnvironment {
  name: string;
  providers: CommittedProvider[];
  /** CRD names, sorted. */
  crds: string[];
}

const CRD_FILE = /^[^/]+\/[^/]+\/customresourcedefinition(?:\.apiextensions\.k8s\.io-cluster)?-(.+)\.yaml$/;
const INVENTORY_FILE = /^[^/]+\/[^/]+\/provider[.-][^/]*\.yaml$/;
const INVENTORY_API = 'clusterctl.cluster.x-k8s.io/';

/**
 * Environment `env`'s committed output among `files`; undefined when it has none (never built, or
 * its folder deleted: nothing of it is applied). `read` returns a file's text (undefined when it
 * cannot be read); an inventory file that does not hold an inventory object is not a provider.
 */
export function committedEnvironment(
  env: string,
  files: Iterable<string>,
  read: (rel: string) => string | undefined,
): CommittedEnvironment | undefined {
  const prefix = `${env}/`;
  const crds: string[] = [];
  const providers: CommittedProvider[] = [];
  let any = false;
  for (const file of files) {
    if (!file.startsWith(prefix)) continue;
    any = true;
    const crd = CRD_FILE.exec(file);
    if (crd) crds.push(crd[1]!);
    else if (INVENTORY_FILE.test(file)) {
      const provider = inventoryProvider(read(file));
      if (provider) providers.push({ ...provider, file });
    }
  }
  if (!any) return undefined;
  return {
    name: env,
    providers: providers.sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0)),
    crds: crds.sort(),
  };
}

/** The provider an inventory file's text records, or undefined. */
function inventoryProvider(text: string | undefined): Omit<CommittedProvider, 'file'> | undefined {
  if (text === undefined) return undefined;
  let object: unknown;
  try {
    object = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (
    !isJsonObject(object) ||
    object.kind !== 'Provider' ||
    typeof object.apiVersion !== 'string' ||
    !object.apiVersion.startsWith(INVENTORY_API)
  )
    return undefined;
  const { type, providerName, version, metadata } = object;
  const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
  if (
    typeof type !== 'string' ||
    typeof providerName !== 'string' ||
    typeof version !== 'string' ||
    typeof namespace !== 'string'
  )
    return undefined;
  return { provider: `${type}/${namespace}/${providerName}`, version };
}
