import {
  CERT_MANAGER_SCHEMA,
  GITOPS_SCHEMA,
  IMAGES_SCHEMA,
  IMAGE_POLICY_SCHEMA,
  VARIABLES_SCHEMA,
} from '../config/config-schema.js';

/** JSON Schema of overlay.yaml (unknown keys are errors, to catch typos). */
const target = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(
    ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector'].map((k) => [
      k,
      { type: 'string' },
    ]),
  ),
};

export const OVERLAY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { const: 'capi-render/v1alpha1' },
    kind: { const: 'Overlay' },
    abstract: { type: 'boolean' },
    resources: { type: 'array', items: { type: 'string', minLength: 1 } },
    patches: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { patch: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 }, target },
        oneOf: [{ required: ['patch'] }, { required: ['path'] }],
      },
    },
    variables: VARIABLES_SCHEMA,
    images: IMAGES_SCHEMA,
    imagePolicy: IMAGE_POLICY_SCHEMA,
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    certManager: CERT_MANAGER_SCHEMA,
    gitops: GITOPS_SCHEMA,
  },
} as const;
