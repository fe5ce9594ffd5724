/**
 * Every place where capi-render's `spec.patches` / `spec.manifestPatches` deliberately differ
 * from the cluster-api-operator (internal/patch at 46918b65, evanphx/json-patch v5.9.11,
 * sigs.k8s.io/yaml v1.6.0), for docs/fidelity.md. Behaviour kept on purpose is not listed: RFC 7396
 * list replacement, evanphx's negative array indices, `test` treating missing like `null`.
 */
import type { Deviation } from '../deviation.js';

/** The deviations of the patch step, in the order docs/fidelity.md should list them. */
export const MANIFEST_PATCH_DEVIATIONS: readonly Deviation[] = [
  {
    field: 'spec.manifestPatches',
    operatorBehaviour:
      'A patch without apiVersion never matches anything: resource.matches rejects when the patch apiVersion is empty, the opposite of its own comment.',
    capiRenderBehaviour: 'A patch without apiVersion applies to objects of its kind with any apiVersion.',
    why: 'The operator docs say "if apiVersion is specified it will only be applied to matching objects", so leaving it out must not disable the patch.',
  },
  {
    field: 'spec.manifestPatches',
    operatorBehaviour:
      'A patch with apiVersion applies to objects of its kind with any apiVersion; the value is never compared.',
    capiRenderBehaviour: "apiVersion, when given, must equal the object's apiVersion.",
    why: "Same documented rule; otherwise a patch written for one API version silently rewrites another (and sets its apiVersion to the patch's).",
  },
  {
    field: 'spec.manifestPatches',
    operatorBehaviour:
      "metadata.namespace is effectively ignored: the name+namespace clause only rejects when both differ, and the name is then checked on its own, so a same-named object in another namespace is patched too (and moved into the patch's namespace).",
    capiRenderBehaviour: "metadata.namespace, when given, must equal the object's namespace; so must metadata.name.",
    why: 'The docs say "if both metadata.name and metadata.namespace are specified, the patch will be applied to the object with the specified name and namespace".',
  },
  {
    field: 'spec.manifestPatches',
    operatorBehaviour:
      'A patch without kind, or whose YAML holds several documents, is accepted: the first matches nothing, the second is read up to its first document only.',
    capiRenderBehaviour: 'Both are errors (code patch) naming spec.manifestPatches[i].',
    why: 'The docs require kind; the dropped documents and the dead patch are mistakes the author cannot see otherwise.',
  },
  {
    field: 'spec.patches, spec.manifestPatches',
    operatorBehaviour: 'A patch whose target (or kind/apiVersion/name) matches no object does nothing, silently.',
    capiRenderBehaviour:
      'Error (code patch) naming spec.patches[i] and its target, with a hint listing the kinds present and the objects of the wanted kind.',
    why: 'A typo (kind: Deploymnet, version: apps/v1, a wrong name) would otherwise render manifests without the customisation and nobody would notice until runtime.',
  },
  {
    field: 'spec.patches, spec.manifestPatches',
    operatorBehaviour:
      'A patch may change apiVersion, kind, metadata.name or metadata.namespace; e.g. a target-less merge patch carrying kind: Service turns every object into a Service.',
    capiRenderBehaviour: 'Error (code patch) naming the patch, the object and the field that would change.',
    why: 'The id is how every later step, the output file names, the lock file and the cluster know an object; re-identifying one drops the original and creates an unrelated object.',
  },
  {
    field: 'spec.patches',
    operatorBehaviour:
      'An add, replace or test operation without value uses null (the operator re-marshals every operation with "value": null); field names match case-insensitively (Op:, Path:).',
    capiRenderBehaviour:
      'value is required (value: null is accepted); op, path, from and value are the exact lower-case names RFC 6902 uses.',
    why: 'RFC 6902 requires value; a missing one is nearly always a typo such as vaule:.',
  },
  {
    field: 'spec.patches',
    operatorBehaviour:
      'evanphx accepts a path without a leading "/" by dropping its first segment (spec/replicas patches /replicas), array indices with a sign or leading zeros (+1, 01), and "~" not followed by 0 or 1.',
    capiRenderBehaviour: 'Such paths are errors, as RFC 6901 says; negative indices (-1 = last element) are kept.',
    why: 'Each of these patches a different location than the one the author wrote.',
  },
  {
    field: 'spec.patches, spec.manifestPatches',
    operatorBehaviour:
      'Patch text is read as YAML 1.1 by sigs.k8s.io/yaml: unquoted on/off/yes/no/y/n become booleans, 0755 is octal.',
    capiRenderBehaviour:
      'Patch text is read as YAML 1.2 (core schema), like every file people edit for capi-render: those stay strings, 0o755 is octal, duplicate keys are errors.',
    why: 'One YAML reading for all hand-written input; the 1.1 reading of a bare on or y is rarely what the author meant, and the output serializer quotes such strings so Go readers keep them strings.',
  },
];
