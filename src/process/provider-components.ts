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
import { applySpecPatches } from '../customize/patches/spec-patches.js';
import { appendAdditionalManifests } from '../customize/additional-manifests.js';
import { customizeDeployments } from '../customize/customize-deployments.js';
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
  /** Parses a template; a build passes one parsed once per components text. */
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

/**
 * Steps 1 and 2's parse of the template: the variables it references (`names`) are everything of
 * the values a caller remembering results by its effective inputs needs to know.
 */
export function componentsTemplate(input: ProviderComponentsInput): CompiledTemplate {
  const step = stepOf(input);
  const providerRef = `${input.cr.kind}/${input.cr.namespace}/${input.cr.name}`;
  const text = step('additional manifests', () =>
    input.additionalManifests
      ? appendAdditionalManifests(input.componentsText, input.additionalManifests, providerRef)
      : input.componentsText,
  );
  return step('variable substitution', () => (input.compile ?? compileTemplate)(text, input.componentsSource));
}

/** Runs steps 1–13 for one provider; `template`: {@link componentsTemplate} of the same input, when the caller has it. */
export function renderProviderComponents(
  input: ProviderComponentsInput,
  template: CompiledTemplate = componentsTemplate(input),
): ProviderComponents {
  const label = manifestLabel(input.cr.kind, input.cr.name);
  const step = stepOf(input);
  const substituted = step('variable substitution', () => template.substituteParts(input.lookupVariable));
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
  return {
    label,
    objects,
    variables: substituted.variables,
    usedVariables: substituted.used,
    transformedVariables: template.transformed,
    targetNamespace: target,
    releasedImages: imageOrigins(listImages(resources.map((r) => r.object)), label, input.images),
  };
}

type Step = <T>(name: string, fn: () => T) => T;

/** Runs a step; a failure names the step and the provider, and points at the provider CR. */
function stepOf(input: ProviderComponentsInput): Step {
  const { cr } = input;
  const providerRef = `${cr.kind}/${cr.namespace}/${cr.name}`;
  return <T>(name: string, fn: () => T): T => {
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
}

/** The parse problems clusterctl's yaml reader also fails on (the size limits are capi-render's own). */
const PARSE_FAILURES: ReadonlySet<string> = new Set(['yaml-syntax', 'yaml-duplicate-key', 'components-invalid']);

/**
 * Steps 4–13 on parsed resources: plain functions of their input, each copying only what it
 * changes, so what no step touches stays shared with the parsed objects (the build shares equal
 * results between environments at the stage boundary: manifest/shared-objects.ts).
 */
function processObjects(
  parsed: readonly Resource[],
  input: ProviderComponentsInput,
  label: string,
  step: Step,
): { objects: KubeObject[]; target: string } {
  const { cr } = input;
  const providerRef = `${cr.kind}/${cr.namespace}/${cr.name}`;
  const images = (objects: readonly KubeObject[], mode: 'strict' | 'tolerant') =>
    step('image overrides', () => applyImageOverrides(objects, label, input.images, mode));
  const overridden = images(
    parsed.map((r) => r.object),
    'strict',
  );
  let resources = parsed.map((r, i) => withObject(r, overridden[i]!));
  const declared = step('target namespace', () => inspectTargetNamespace(resources, input.componentsSource));
  // The operator always installs into the provider CR's namespace, whatever the artifact declares.
  const target = cr.namespace || declared;
  resources = step('target namespace', () =>
    fixTargetNamespace(addNamespaceIfMissing(resources, target, input.componentsSource), target),
  );
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
  const stringMaps = checkStringMaps(objects, { providerRef, file: cr.file, line: cr.line });
  if (stringMaps.length > 0) throw new SpecError(stringMaps);
  objects = images(objects, 'tolerant');
  objects.push(inventoryObject(cr.kind, cr.name, target, input.version));
  objects = cleanObjects(objects.map((object) => ({ object, origin: { source: '', document: -1 } }))).map(
    (r) => r.object,
  );
  return { objects, target };
}

/** The default parser: the parts joined, parsed as one text (what clusterctl does). */
function parseJoined(substituted: SubstitutedDocuments, source: string): Resource[] {
  return parseManifests(substituted.texts.join(''), source);
}
