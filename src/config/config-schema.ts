import { VERIFY_RULES_SCHEMA } from '../images/verify/verify-rules-schema.js';
import { BASELINE_IDS } from '../baseline/baseline.js';

/** capi-render.yaml `certManager:` and the same block in overlay.yaml. */
export const CERT_MANAGER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    install: { type: 'boolean' },
    version: { type: 'string', minLength: 1 },
    url: { type: 'string', minLength: 1 },
    externallyProvisioned: { type: 'boolean' },
  },
} as const;

const str = { type: 'string', minLength: 1 } as const;

/** Where an environment's OCI artifact is, for Argo CD's and Flux's OCI sources alike. */
const OCI_ARTIFACT_PROPERTIES = {
  // registry/repository without scheme, tag or digest: the environment's name is appended.
  repository: { type: 'string', pattern: '^[A-Za-z0-9.-]+(:[0-9]+)?(/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$' },
  digest: { type: 'string', pattern: '^sha256:[a-f0-9]{64}$' },
  tag: { type: 'string', pattern: '^[\\w][\\w.-]{0,127}$' },
} as const;

/** capi-render.yaml `gitops:` and the same block in overlay.yaml (per-environment override). */
export const GITOPS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    flavour: { enum: ['kustomize', 'argocd', 'flux'] },
    protect: {
      type: 'object',
      additionalProperties: false,
      properties: { crds: { type: 'boolean' }, namespaces: { type: 'boolean' } },
    },
    argocd: {
      type: 'object',
      additionalProperties: false,
      properties: {
        application: { type: 'boolean' },
        applicationSet: { type: 'boolean' },
        repoURL: str,
        targetRevision: str,
        project: str,
        destination: {
          type: 'object',
          additionalProperties: false,
          // Exactly one of server and name (Argo CD refuses both): checked where Applications are made.
          properties: { server: { type: 'string', pattern: '^https?://' }, name: str, namespace: str },
        },
        destinationServer: str,
        namespace: str,
        pathPrefix: str,
        source: { enum: ['path', 'plugin', 'hydrator', 'oci'] },
        oci: {
          type: 'object',
          additionalProperties: false,
          // As gitops.flux.oci: `repository` from capi-render.yaml, `digest` from the overlay; required-ness checked after merging.
          properties: OCI_ARTIFACT_PROPERTIES,
        },
        plugin: { type: 'object', additionalProperties: false, properties: { name: str } },
        hydrator: {
          type: 'object',
          additionalProperties: false,
          // syncSource.path must not be the repository root (Argo CD's CRD pattern ^.{2,}|[^./]$).
          properties: {
            targetBranch: str,
            pathPrefix: { type: 'string', pattern: '^.{2,}|[^./]$' },
            hydrateToBranch: str,
          },
        },
        repoPath: str,
      },
    },
    flux: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sourceRef: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'name'],
          properties: { kind: { enum: ['GitRepository', 'OCIRepository'] }, name: str, namespace: str },
        },
        namespace: str,
        interval: str,
        timeout: str,
        pathPrefix: str,
        dependsOn: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: { name: str, namespace: str },
          },
        },
        kubeConfig: {
          type: 'object',
          additionalProperties: false,
          required: ['secretRef'],
          properties: {
            secretRef: {
              type: 'object',
              additionalProperties: false,
              required: ['name'],
              properties: { name: str, key: str },
            },
          },
        },
        serviceAccountName: str,
        oci: {
          type: 'object',
          additionalProperties: false,
          // `repository` may come from capi-render.yaml and `digest` from the overlay: checked after merging.
          properties: {
            ...OCI_ARTIFACT_PROPERTIES,
            insecure: { type: 'boolean' },
            secretRef: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: str } },
            interval: str,
            // Exactly one of key and keyless, and keyless an issuer and an identity (exact or regexp):
            // checked where the OCIRepository is made (gitops/flux.ts), with messages that say so.
            verify: {
              type: 'object',
              additionalProperties: false,
              properties: {
                key: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['secretRef'],
                  properties: {
                    secretRef: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['name'],
                      properties: { name: str },
                    },
                  },
                },
                keyless: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    issuer: str,
                    issuerRegExp: str,
                    identity: str,
                    identityRegExp: str,
                    trustedRootSecretRef: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['name'],
                      properties: { name: str },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

const secretMode = { enum: ['fail', 'omit', 'external-secrets', 'sops', 'plaintext'] } as const;

export const SECRETS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: secretMode,
    providers: { type: 'object', additionalProperties: secretMode },
    notSecret: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
    externalSecrets: {
      type: 'object',
      additionalProperties: false,
      required: ['storeRef'],
      properties: {
        storeRef: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: str, kind: { enum: ['SecretStore', 'ClusterSecretStore'] } },
        },
        keyPrefix: { type: 'string' },
        refreshInterval: str,
      },
    },
    sops: {
      type: 'object',
      additionalProperties: false,
      properties: { decryptionSecret: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$' } },
    },
  },
} as const;

/** `variables:` in capi-render.yaml and overlay.yaml: a literal, or {fromEnv: NAME}. */
export const VARIABLES_SCHEMA = {
  type: 'object',
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
  additionalProperties: {
    anyOf: [
      { type: 'string' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['fromEnv'],
        properties: { fromEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
      },
    ],
  },
} as const;

/** clusterctl `images:` overrides, in capi-render.yaml and overlay.yaml. */
export const IMAGES_SCHEMA = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      repository: { type: 'string' },
      name: { type: 'string' },
      tag: { type: 'string' },
    },
  },
} as const;

/** capi-render.yaml `imagePolicy:` and the same block in overlay.yaml (field by field). */
export const IMAGE_POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pinDigests: { type: 'boolean' },
    insecureRegistries: { type: 'array', items: { type: 'string', pattern: '^[^/\\s]+$' } },
    pullSecret: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'namespace'],
      properties: { name: str, namespace: str },
    },
    verify: VERIFY_RULES_SCHEMA,
    trustedRoot: str,
  },
} as const;

/** JSON Schema of capi-render.yaml (validated with ajv; unknown keys are errors, to catch typos). */
export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { const: 'capi-render/v1alpha1' },
    kind: { const: 'Config' },
    // An enum, so a wrong value is answered with the closest one (schema-diagnostics.ts).
    emulate: { enum: BASELINE_IDS },
    repositories: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: { path: { type: 'string', minLength: 1 } },
      },
    },
    variables: VARIABLES_SCHEMA,
    images: IMAGES_SCHEMA,
    imagePolicy: IMAGE_POLICY_SCHEMA,
    certManager: CERT_MANAGER_SCHEMA,
    sbom: { type: 'object', additionalProperties: false, properties: { write: { type: 'boolean' } } },
    gitops: GITOPS_SCHEMA,
    secrets: SECRETS_SCHEMA,
    gitopsDir: { type: 'string', minLength: 1 },
    templatesDir: { type: 'string', minLength: 1 },
    github: {
      type: 'object',
      additionalProperties: false,
      properties: {
        apiUrl: { type: 'string', pattern: '^https?://' },
        enterpriseHosts: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['origin'],
            properties: {
              origin: { type: 'string', pattern: '^https?://' },
              apiBaseUrl: { type: 'string', pattern: '^https?://' },
            },
          },
        },
      },
    },
    gitlab: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // Only a reference to the environment: a token written here would end up in git.
        accessToken: {
          type: 'object',
          additionalProperties: false,
          required: ['fromEnv'],
          properties: { fromEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
        },
      },
    },
    providers: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type', 'url'],
        properties: { name: { type: 'string' }, type: { type: 'string' }, url: { type: 'string' } },
      },
    },
    providersDir: { type: 'string', minLength: 1 },
    overlaysDir: { type: 'string', minLength: 1 },
    outputDir: { type: 'string', minLength: 1 },
  },
} as const;
