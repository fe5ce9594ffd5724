/**
 * Classifies the documents found under providers/ (and overlay bases) into what capi-render reads:
 * provider CRs, ConfigMaps (artifact sources, additional manifests) and Secrets (configSecret
 * variables). Namespaces are accepted and ignored — operator users keep them beside their CRs, and
 * the rendered output carries each provider's Namespace from its components. Anything else is an
 * error: inputs are never copied to the output.
 */
import { error, type Diagnostic } from '../errors.js';
import { isJsonObject, type JsonObject } from '../manifest/object.js';
import { isProviderKind, OPERATOR_API_VERSION, OPERATOR_GROUP } from './provider-kinds.js';
import type { SourceDocument } from './yaml-document.js';

/** An input object with the place it was declared. */
export interface InputObject {
  object: JsonObject;
  file: string;
  /**
   * Locates a field of this object (path relative to the object root). `file` is set when the field
   * was last written elsewhere than `file` — by an overlay patch.
   */
  locate(path: readonly (string | number)[], target?: 'key' | 'value'): { file?: string; line: number; col: number };
  /**
   * A Secret's `stringData` references (`{fromEnv}` / `{fromFile}`) with the values the loading edge
   * read for them (secrets/secret-references.ts), by key; undefined where the reference has no value
   * (the variable unset, the file absent). Absent until that edge has run.
   */
  references?: ReadonlyMap<string, string | undefined>;
}

export interface InputSet {
  providers: InputObject[];
  configMaps: InputObject[];
  secrets: InputObject[];
}

/** Sorts documents into an InputSet; every unusable document becomes a diagnostic. */
export function classifyInputs(documents: readonly SourceDocument[]): { inputs: InputSet; diagnostics: Diagnostic[] } {
  const inputs: InputSet = { providers: [], configMaps: [], secrets: [] };
  const diagnostics: Diagnostic[] = [];
  for (const doc of documents) {
    const here = (path: (string | number)[] = [], target: 'key' | 'value' = 'value') => ({
      file: doc.file,
      ...doc.locate(path, target),
    });
    if (!isJsonObject(doc.value)) {
      diagnostics.push(
        error(
          'input-not-object',
          `document ${doc.index + 1} is not a Kubernetes object (expected a mapping with apiVersion and kind)`,
          here(),
        ),
      );
      continue;
    }
    const object = doc.value;
    const input: InputObject = { object, file: doc.file, locate: doc.locate };
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      diagnostics.push(
        error('input-not-object', 'object has no string apiVersion and kind', {
          ...here(),
          field: typeof kind === 'string' ? 'apiVersion' : 'kind',
        }),
      );
      continue;
    }
    if (isProviderKind(kind) && apiVersion.startsWith(`${OPERATOR_GROUP}/`)) {
      if (apiVersion !== OPERATOR_API_VERSION) {
        diagnostics.push(
          error('unknown-kind', `${kind} ${apiVersion} is not supported; capi-render reads ${OPERATOR_API_VERSION}`, {
            ...here(['apiVersion']),
            field: 'apiVersion',
            hint: `write apiVersion: ${OPERATOR_API_VERSION}`,
          }),
        );
        continue;
      }
      inputs.providers.push(input);
    } else if (apiVersion === 'v1' && kind === 'ConfigMap') {
      inputs.configMaps.push(input);
    } else if (apiVersion === 'v1' && kind === 'Secret') {
      inputs.secrets.push(input);
    } else if (apiVersion === 'v1' && kind === 'Namespace') {
      // Accepted and ignored: see the module comment.
    } else {
      diagnostics.push(
        error('unknown-kind', `${kind} (${apiVersion}) is not an input capi-render reads`, {
          ...here(['kind']),
          field: 'kind',
          hint: `inputs are ${OPERATOR_API_VERSION} provider CRs (CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider, IPAMProvider, RuntimeExtensionProvider, AddonProvider), v1 ConfigMaps and v1 Secrets`,
        }),
      );
    }
  }
  return { inputs, diagnostics };
}

/** Finds a ConfigMap or Secret of the input set by namespace and name. */
export function findInput(list: readonly InputObject[], namespace: string, name: string): InputObject | undefined {
  return list.find((i) => {
    const meta = isJsonObject(i.object.metadata) ? i.object.metadata : {};
    return meta.name === name && (meta.namespace ?? 'default') === namespace;
  });
}
