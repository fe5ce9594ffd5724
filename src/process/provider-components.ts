/**
 * Renders one provider's components the way `clusterctl init` would install them, customised the way
 * the cluster-api-operator would, in this exact order (clusterctl's NewComponents, then the operator's
 * fetch phase; each step in detail: docs/internals.md "process/provider-components.ts"):
 *  1. append `spec.additionalManifests`;  2. substitute `${VAR}` on the raw text;  3. parse;
 *  4. apply `images:` (strict);  5. find the target namespace, add its Namespace if missing;
 *  6. move every object into it, with clusterctl's fix-ups;  7. add clusterctl's common labels;
 *  8. apply `spec.deployment` / `spec.manager` / `spec.additionalDeployments`;  9. apply the patches;
 * 10. check CRD names and string-only fields (after the patches, which may fix them);
 * 11. apply `images:` again, tolerantly;  12. add the inventory `Provider`;  13. drop `status`.
 * Each step takes and returns plain data; a failure names the step, the provider and the object.
 */
import { RenderError, SpecError, error, peerWording } from '../errors.js';
import type { KubeObject } from '../manifest/object.js';
import { parseManifests } from '../manifest/parse.js';
import { withObject, type Resource } from '../manifest/resource.js';
import { NO_OBJECT_MEMO, type ObjectMemo } from '../manifest/object-memo.js';
import { applySpecPatchesRemembered } from '../customize/patches/spec-patches.js';
import { appendAdditionalManifests } from '../customize/additional-manifests.js';
import { deploymentCustomizer } from '../customize/customize-deployments.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import { manifestLabel } from '../declarations/provider-kinds.js';
import { addLabels, commonLabels } from './common-labels.js';
import { cleanObjects } from './clean-objects.js';
import { checkCrdNames } from './crd-names.js';
import { checkStringMaps } from './string-maps.js';
import { applyImageOverrides, imageOrigins, listImages, type ImageOverrides } from './image-overrides.js';
import { inventoryObject } from './inventory.js';
import { addNamespaceIfMissing, fixTargetNamespace, inspectTargetNamespace } from './target-namespace.js';
import { compileTemplate, type CompiledTemplate, type DocumentPart, type VariableUse } from './variables/index.js';
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
  /**
   * Parses the substituted template to resources (the parts' texts joined are the substituted text);
   * a build passes a parser that parses each constant part once for the whole fleet. Default:
   * parseManifests of the joined text.
   */
  parse?: (substituted: SubstitutedDocuments, source: string) => Resource[];
  /** Per-object step results shared between environments (see manifest/object-memo.ts). Default: none. */
  objectMemo?: ObjectMemo;
  /**
   * Results by content: when another environment rendered this provider from the same text, the
   * same variable values and the same spec, its (immutable) objects are reused — so they are also
   * serialised once. Needs `textKey`.
   */
  memo?: { get(key: string): ProviderComponents | undefined; set(key: string, value: ProviderComponents): void };
  /** Identifies componentsText (+ additional manifests) by content, e.g. their sha256s. */
  textKey?: string;
  /** Parses a template; a build passes a cache keyed by textKey. */
  compile?: (text: string, source: string) => CompiledTemplate;
}

/** The substituted template, document part by document part (see process/variables/document-parts.ts). */
export interface SubstitutedDocuments {
  parts: readonly DocumentPart[];
  /** The substituted text of each part. */
  texts: readonly string[];
}

export interface ProviderComponents {
  label: string;
  objects: KubeObject[];
  variables: VariableUse[];
  /** Variables whose value came from a lookup (not a default), sorted. */
  usedVariables: string[];
  /** Variables the text uses through an operator that transforms the value (CompiledTemplate.transformed). */
  transformedVariables: readonly string[];
  targetNamespace: string;
  /** Each workload image as rendered → the images of the artifact that `images:` turned into it (image-overrides.ts imageOrigins). */
  releasedImages: Map<string, string[]>;
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
      throw new SpecError(
        error('components-invalid', `${name} failed for ${providerRef}: ${(e as Error).message}`, {
          object: providerRef,
          file: input.componentsSource,
        }),
      );
    }
  };

  const text = step('additional manifests', () =>
    input.additionalManifests
      ? appendAdditionalManifests(input.componentsText, input.additionalManifests, providerRef)
      : input.componentsText,
  );
  const template = step('variable substitution', () =>
    (input.compile ?? compileTemplate)(text, input.componentsSource),
  );
  // Every referenced variable is looked up exactly once: the values decide the memo key, and the
  // substitution below reuses them.
  const values = new Map(template.names.map((name) => [name, input.lookupVariable(name)] as const));
  const key = input.memo && input.textKey ? memoKey(input, values) : undefined;
  const remembered = key === undefined ? undefined : input.memo!.get(key);
  if (remembered) return remembered;
  const substituted = step('variable substitution', () =>
    template.substituteParts((name) => (values.has(name) ? values.get(name) : input.lookupVariable(name))),
  );
  const resources = step('parse', () => {
    try {
      return (input.parse ?? parseJoined)({ parts: template.parts, texts: substituted.texts }, input.componentsSource);
    } catch (e) {
      // Text that is not YAML, or a document that is not an object: clusterctl's NewComponents
      // reports both as its parse step failing.
      if (e instanceof RenderError) {
        for (const d of e.diagnostics) {
          if (!PARSE_FAILURES.has(d.code)) continue;
          d.message = peerWording('clusterctl', 'failed to parse yaml', d.message);
          d.hint ??= `the components of ${label} ${input.version} are not Kubernetes YAML: pin another release in spec.version, or fix the artifact where it is published`;
        }
      }
      throw e;
    }
  });
  const { objects, target } = processObjects(resources, input, label, step);
  const result: ProviderComponents = {
    label,
    objects,
    variables: substituted.variables,
    usedVariables: substituted.used,
    transformedVariables: template.transformed,
    targetNamespace: target,
    releasedImages: imageOrigins(listImages(resources.map((r) => r.object)), label, input.images),
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

type Step = <T>(name: string, fn: () => T) => T;

/** The parse problems clusterctl's yaml reader also fails on (the size limits are capi-render's own). */
const PARSE_FAILURES: ReadonlySet<string> = new Set(['yaml-syntax', 'yaml-duplicate-key', 'components-invalid']);

const NO_ORIGIN = { source: '', document: -1 };

/**
 * Steps 4–13 on parsed resources. Each per-object step goes through the object memo, keyed by
 * everything besides the object that the step reads, so objects that environments share come out
 * of every step as the same objects; the steps that look at all objects at once (the target
 * namespace, the customisation and patch checks, the CRD names) run on every call.
 */
function processObjects(
  parsed: readonly Resource[],
  input: ProviderComponentsInput,
  label: string,
  step: Step,
): { objects: KubeObject[]; target: string } {
  const { cr } = input;
  const memo = input.objectMemo ?? NO_OBJECT_MEMO;
  const providerRef = `${cr.kind}/${cr.namespace}/${cr.name}`;
  const imagesKey = canonicalJson({ label, images: input.images });
  // The resource steps read only the object; the origin goes along unchanged.
  const each = (resources: readonly Resource[], key: string, fn: (r: Resource) => KubeObject): Resource[] =>
    memo
      .map(
        resources.map((r) => r.object),
        key,
        (object) => fn({ object, origin: NO_ORIGIN }),
      )
      .map((object, i) => withObject(resources[i]!, object));
  let resources = step('image overrides', () =>
    each(
      parsed,
      `images-strict\u0000${imagesKey}`,
      (r) => applyImageOverrides([r.object], label, input.images, 'strict')[0]!,
    ),
  );
  const declared = step('target namespace', () => inspectTargetNamespace(resources, input.componentsSource));
  // The operator always installs into the provider CR's namespace, whatever the artifact declares.
  const target = cr.namespace || declared;
  const withNamespace = addNamespaceIfMissing(resources, target, input.componentsSource);
  if (withNamespace.length > resources.length) {
    // The Namespace clusterctl adds is the same object in every environment.
    const added = withNamespace.at(-1)!;
    withNamespace[withNamespace.length - 1] = withObject(
      added,
      memo.value(`namespace\u0000${target}`, () => added.object),
    );
  }
  resources = step('target namespace', () =>
    each(withNamespace, `namespace\u0000${target}`, (r) => fixTargetNamespace([r], target)[0]!.object),
  );
  resources = each(resources, `labels\u0000${label}`, (r) => addLabels([r], commonLabels(label))[0]!.object);
  let objects = resources.map((r) => r.object);
  objects = step('deployment customisation', () => {
    const customizer = deploymentCustomizer(objects, {
      providerRef,
      deployment: cr.spec.deployment,
      manager: cr.spec.manager,
      additionalDeployments: cr.spec.additionalDeployments,
    });
    return memo.map(objects, `customize\u0000${customizer.key}`, (o) => customizer.customize(o));
  });
  if (cr.spec.patches !== undefined || cr.spec.manifestPatches !== undefined) {
    objects = step('patches', () => applySpecPatchesRemembered(objects, cr.spec, { providerRef }, memo));
  }
  const crdNames = checkCrdNames(objects, { providerRef, file: cr.file, line: cr.line });
  if (crdNames.length > 0) throw new SpecError(crdNames);
  const stringMaps = checkStringMaps(objects, { providerRef, file: cr.file, line: cr.line });
  if (stringMaps.length > 0) throw new SpecError(stringMaps);
  objects = step('image overrides', () =>
    memo.map(
      objects,
      `images-tolerant\u0000${imagesKey}`,
      (o) => applyImageOverrides([o], label, input.images, 'tolerant')[0]!,
    ),
  );
  objects.push(
    memo.value(`inventory\u0000${canonicalJson([cr.kind, cr.name, target, input.version])}`, () =>
      inventoryObject(cr.kind, cr.name, target, input.version),
    ),
  );
  objects = memo.map(objects, 'clean', (object) => cleanObjects([{ object, origin: NO_ORIGIN }])[0]!.object);
  return { objects, target };
}

/** The default parser: the parts joined, parsed as one text (what clusterctl does). */
function parseJoined(substituted: SubstitutedDocuments, source: string): Resource[] {
  return parseManifests(substituted.texts.join(''), source);
}
