/**
 * Renders one provider's components the way `clusterctl init` would install them, customised the way
 * the cluster-api-operator would. The steps, in this exact order (clusterctl's NewComponents, then the
 * operator's fetch phase):
 *
 *  1. append `spec.additionalManifests` to the components text (operator: before clusterctl sees it);
 *  2. substitute `${VAR}` variables on the raw text (every missing variable reported at once);
 *  3. parse the YAML into objects;
 *  4. apply clusterctl `images:` overrides — strict: every image must be a canonical reference;
 *  5. find the target namespace (the provider CR's namespace) and add a Namespace object if missing;
 *  6. move every object into the target namespace, with clusterctl's reference fix-ups;
 *  7. add clusterctl's common labels;
 *  8. apply `spec.deployment` / `spec.manager` / `spec.additionalDeployments`;
 *  9. apply `spec.patches` or `spec.manifestPatches`;
 * 10. check CRD names as `clusterctl init` does (`<plural>.<group>`, unless annotated to skip) — after
 *     the patches, so a patch can add the skip annotation;
 * 11. apply `images:` again, tolerantly — the operator's last pass, so it overrides `imageUrl`;
 * 12. add the clusterctl inventory `Provider` object;
 * 13. drop `status` and `creationTimestamp: null`.
 *
 * Each step takes and returns plain data; a failure names the step, the provider and the object.
 */
import { RenderError, SpecError, error } from '../errors.js';
import type { KubeObject } from '../manifest/object.js';
import { parseManifests } from '../manifest/parse.js';
import type { Resource } from '../manifest/resource.js';
import { applySpecPatches } from '../customize/patches/index.js';
import { appendAdditionalManifests } from '../customize/additional-manifests.js';
import { customizeDeployments } from '../customize/customize-deployments.js';
import type { ProviderCR } from '../spec/provider-spec.js';
import { manifestLabel } from '../spec/provider-kinds.js';
import { addLabels, commonLabels } from './common-labels.js';
import { cleanObjects } from './clean-objects.js';
import { checkCrdNames } from './crd-names.js';
import { applyImageOverrides, type ImageOverrides } from './image-overrides.js';
import { inventoryObject } from './inventory.js';
import { addNamespaceIfMissing, fixTargetNamespace, inspectTargetNamespace } from './target-namespace.js';
import { compileTemplate, type CompiledTemplate, type VariableUse } from './variables/index.js';
import type { JsonObject } from '../manifest/object.js';
import { canonicalJson } from '../manifest/canonical-json.js';

export interface ProviderComponentsInput {
  cr: ProviderCR;
  version: string;
  /** The components file's text, as published. */
  componentsText: string;
  /** Names the artifact in messages, e.g. `local repository test/fixtures/repository/cluster-api v1.12.0 core-components.yaml`. */
  componentsSource: string;
  /** The additionalManifests ConfigMap, when spec.additionalManifests is set. */
  additionalManifests?: JsonObject;
  lookupVariable(name: string): string | undefined;
  images: ImageOverrides;
  /** Parses text to resources; a build passes a cached parser so identical texts are parsed once. */
  parse?: (text: string, source: string) => Resource[];
  /**
   * Results by content: when another environment rendered this provider from the same text, the
   * same variable values and the same spec, its (immutable) objects are reused — so they are also
   * serialised once. Needs `textKey`.
   */
  memo?: Map<string, ProviderComponents>;
  /** Identifies componentsText (+ additional manifests) by content, e.g. their sha256s. */
  textKey?: string;
  /** Parses a template; a build passes a cache keyed by textKey. */
  compile?: (text: string, source: string) => CompiledTemplate;
}

export interface ProviderComponents {
  label: string;
  objects: KubeObject[];
  variables: VariableUse[];
  /** Variables whose value came from a lookup (not a default), sorted. */
  usedVariables: string[];
  targetNamespace: string;
}

/** Runs steps 1–13 for one provider. */
export function renderProviderComponents(input: ProviderComponentsInput): ProviderComponents {
  const { cr } = input;
  const label = manifestLabel(cr.kind, cr.name);
  const providerRef = `${cr.kind}/${cr.namespace}/${cr.name}`;
  const step = <T>(name: string, fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof RenderError) {
        for (const d of e.diagnostics) {
          if (!d.object) d.object = providerRef;
          // Point at the provider CR (what the user edits), and name the artifact in the message.
          if (d.file === input.componentsSource) {
            d.message = `${d.message} (in ${input.componentsSource}${d.line ? ` line ${d.line}` : ''})`;
            d.file = cr.file;
            d.line = cr.line;
            d.col = 1;
          } else if (!d.file) {
            // A problem in an object of the artifact (an image, a container): the CR is where it is fixed.
            d.file = cr.file;
            d.line = cr.line;
            d.col = 1;
          }
        }
        throw e;
      }
      throw new SpecError(error('components-invalid', `${name} failed for ${providerRef}: ${(e as Error).message}`, { object: providerRef, file: input.componentsSource }));
    }
  };

  const text = step('additional manifests', () =>
    input.additionalManifests ? appendAdditionalManifests(input.componentsText, input.additionalManifests, providerRef) : input.componentsText,
  );
  const template = step('variable substitution', () => (input.compile ?? compileTemplate)(text, input.componentsSource));
  // Every referenced variable is looked up exactly once: the values decide the memo key, and the
  // substitution below reuses them.
  const values = new Map(template.names.map((name) => [name, input.lookupVariable(name)] as const));
  const key = input.memo && input.textKey ? memoKey(input, values) : undefined;
  const remembered = key === undefined ? undefined : input.memo!.get(key);
  if (remembered) return remembered;
  const substituted = step('variable substitution', () => template.substitute((name) => (values.has(name) ? values.get(name) : input.lookupVariable(name))));
  let resources = step('parse', () => (input.parse ?? parseManifests)(substituted.text, input.componentsSource));
  resources = step('image overrides', () => mapObjects(resources, (objs) => applyImageOverrides(objs, label, input.images, 'strict')));
  const declared = step('target namespace', () => inspectTargetNamespace(resources, input.componentsSource));
  // The operator always installs into the provider CR's namespace, whatever the artifact declares.
  const target = cr.namespace || declared;
  resources = addNamespaceIfMissing(resources, target, input.componentsSource);
  resources = step('target namespace', () => fixTargetNamespace(resources, target));
  resources = addLabels(resources, commonLabels(label));
  let objects = resources.map((r) => r.object);
  objects = step('deployment customisation', () =>
    customizeDeployments(objects, {
      providerRef,
      deployment: cr.spec.deployment,
      manager: cr.spec.manager,
      additionalDeployments: cr.spec.additionalDeployments,
    }),
  );
  if (cr.spec.patches !== undefined || cr.spec.manifestPatches !== undefined) {
    objects = step('patches', () => applySpecPatches(objects, cr.spec, { providerRef }));
  }
  const crdNames = checkCrdNames(objects, { providerRef, file: cr.file, line: cr.line });
  if (crdNames.length > 0) throw new SpecError(crdNames);
  objects = step('image overrides', () => applyImageOverrides(objects, label, input.images, 'tolerant'));
  objects.push(inventoryObject(cr.kind, cr.name, target, input.version));
  const cleaned = cleanObjects(objects.map((object, document) => ({ object, origin: { source: input.componentsSource, document } })));
  const result: ProviderComponents = {
    label,
    objects: cleaned.map((r) => r.object),
    variables: substituted.variables,
    usedVariables: substituted.used,
    targetNamespace: target,
  };
  if (key !== undefined) input.memo!.set(key, result);
  return result;
}

/** Everything steps 2–13 depend on: the text (by key), the variable values, the spec and images. Kept in memory only. */
function memoKey(input: ProviderComponentsInput, values: ReadonlyMap<string, string | undefined>): string {
  const { cr } = input;
  return canonicalJson({
    text: input.textKey,
    values: Object.fromEntries([...values].map(([k, v]) => [k, v ?? null])),
    kind: cr.kind,
    name: cr.name,
    namespace: cr.namespace,
    version: input.version,
    spec: cr.spec,
    images: input.images,
  });
}

function mapObjects(resources: Resource[], fn: (objects: KubeObject[]) => KubeObject[]): Resource[] {
  const out = fn(resources.map((r) => r.object));
  return out.map((object, i) => ({ object, origin: resources[i]?.origin ?? { source: '', document: i } }));
}
