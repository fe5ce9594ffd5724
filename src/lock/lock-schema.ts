/**
 * The shape of capi-render.lock as a JSON Schema (draft-07, like the other schemas of capi-render's
 * own files): what validate-lock.ts checks every lock against, and, with LOCK_DESCRIPTIONS, the
 * editor schema schemas/lock.schema.json. It states only what the readers rely on: unknown fields
 * are accepted (a build rewrites a lock it would write otherwise), and fields no reader takes as a
 * string (emulates.contract, a verification's identity) are described but not typed.
 */
import { LOCK_API_VERSION } from './lock-types.js';

const text = { type: 'string' } as const;
const names = { type: 'array', items: text } as const;

const PROVIDER = {
  type: 'object',
  required: ['provider', 'version', 'source'],
  properties: { provider: text, requested: text, version: text, contract: text, source: text, variables: names },
} as const;

const ENVIRONMENT = {
  type: 'object',
  required: ['name', 'providers'],
  properties: {
    name: text,
    inputs: text,
    providers: { type: 'array', items: PROVIDER },
    crds: names,
    images: names,
  },
} as const;

const VERIFIED = {
  type: 'object',
  required: ['rule', 'method', 'format'],
  properties: {
    rule: text,
    method: { enum: ['keyless', 'key'] },
    format: { enum: ['bundle', 'legacy-tag'] },
    identity: {},
    issuer: {},
    evidence: text,
  },
} as const;

/** The lock's schema; the order of `properties` is the order its problems are looked for. */
export const LOCK_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { const: LOCK_API_VERSION },
    kind: { const: 'Lock' },
    emulates: {
      type: 'object',
      required: ['clusterctl'],
      properties: { clusterctl: text, operator: text, contract: {}, operatorApi: {} },
    },
    environments: { type: 'array', items: ENVIRONMENT },
    inputFiles: {
      type: 'array',
      items: { type: 'object', required: ['file', 'sha256'], properties: { file: text, sha256: text } },
    },
    images: {
      type: 'array',
      items: {
        type: 'object',
        required: ['image', 'digest'],
        properties: { image: text, digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' }, verified: VERIFIED },
      },
    },
    artifacts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['source', 'version', 'file', 'sha256'],
        properties: {
          source: text,
          version: text,
          file: text,
          url: text,
          sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
      },
    },
  },
} as const;

/** The editor schema's text for each field (paths as editor-schemas.ts names them: `a.b`, `a[].b`). */
export const LOCK_DESCRIPTIONS: Record<string, string> = {
  apiVersion: `Always ${LOCK_API_VERSION}.`,
  kind: 'Always Lock.',
  emulates: 'What capi-render reproduces (capi-render.yaml emulate:); written by every build.',
  'emulates.clusterctl': 'The clusterctl release whose code and provider list are reproduced.',
  'emulates.operator': 'The cluster-api-operator release, when the operator is emulated.',
  'emulates.contract': 'The Cluster API contract of the baseline.',
  'emulates.operatorApi': 'The API version of the provider CRs.',
  environments: 'One entry per environment (overlays/<env>/), sorted by name.',
  'environments[].name': 'The environment: its overlay folder name.',
  'environments[].inputs':
    'sha256 over everything the output depends on; equal on the next build means nothing to do. Absent when a variable comes from the process environment.',
  'environments[].providers': 'One entry per provider CR, sorted by provider.',
  'environments[].providers[].provider': 'Kind/namespace/name of the provider CR.',
  'environments[].providers[].requested':
    'spec.version as written (empty when unset): a range or latest is resolved again only when this changes.',
  'environments[].providers[].version': 'The version the request resolved to.',
  'environments[].providers[].contract': 'The Cluster API contract of that version.',
  'environments[].providers[].source': 'The id of the source the release came from (artifacts[].source).',
  'environments[].providers[].variables': 'Names of the variables whose values were used (never the values).',
  'environments[].crds':
    'Names of the CustomResourceDefinitions the output holds, sorted: a build that would drop one fails unless the removal is deliberate.',
  'environments[].images': 'The images of its output pinned to a digest (images[].image), sorted.',
  inputFiles: 'Every input file capi-render reads, sorted by file.',
  'inputFiles[].file': 'Repository-relative, /-separated.',
  'inputFiles[].sha256': 'sha256 of the file (line endings and byte-order mark normalised).',
  images: 'Pinned images, each listed once however many environments run it.',
  'images[].image': 'registry/repository:tag as the provider releases it.',
  'images[].digest': 'sha256:<64 hex> of the manifest the tag pointed to.',
  'images[].verified': 'The signature check this digest passed (imagePolicy.verify), when a rule applies to it.',
  'images[].verified.rule': 'The id of the rule: a changed rule is verified again.',
  'images[].verified.method': 'keyless or key.',
  'images[].verified.format': 'Where the signature was: a Sigstore bundle referrer, or the legacy .sig tag.',
  'images[].verified.identity': "Keyless: the certificate's identity.",
  'images[].verified.issuer': "Keyless: the certificate's OIDC issuer.",
  'images[].verified.evidence':
    'The signature that passed, as found: every build, check and --frozen verify it again offline.',
  artifacts: 'Every fetched release file, listed once however many environments use it.',
  'artifacts[].source': 'The stable id of the source (github:owner/repo, local:label, oci:…).',
  'artifacts[].version': 'The release version.',
  'artifacts[].file': 'The release file.',
  'artifacts[].url': 'Where it was fetched from.',
  'artifacts[].sha256': 'sha256 (64 hex) of its bytes: a fetch that gives other bytes fails.',
};
