/**
 * The data model of an object-level comparison of two rendered trees (e.g. the output before and
 * after an upgrade) and of the safety findings computed from it. Plain data, so a caller can
 * serialise it (JSON for tools, markdown for pull requests) without knowing the diff code.
 */
import type { KubeObject } from '../manifest/object.js';

/**
 * One side of a comparison: the objects of every environment, per component (the folder under
 * `rendered/<env>/`, e.g. `cluster-api`). Objects are read, never mutated.
 */
export interface RenderedSide {
  environments: Record<string, Record<string, readonly KubeObject[]>>;
}

/**
 * One object that differs between the sides. `id` is `Kind[.group]/[namespace/]name`, e.g.
 * `Deployment.apps/capi-system/capi-controller-manager`; the API version is not part of it, so an
 * object whose apiVersion changed is `changed` (with an `apiVersion` field change), not removed+added.
 */
export interface ObjectChange {
  env: string;
  component: string;
  id: string;
  change: 'added' | 'removed' | 'changed';
  /** Only for `changed`: the field changes, in path order. */
  fields?: FieldChange[];
}

/**
 * One field that differs. `path` uses dots for map keys, `[name=x]` for
 * list entries matched by their `name` and `["key"]` for keys that are not plain identifiers
 * (e.g. `metadata.labels["cluster.x-k8s.io/provider"]`). `before`/`after` are summaries: long
 * strings are cut and large lists/maps are replaced by a short text such as `"[42 items]"`.
 */
export interface FieldChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
  /** A one-line description where the values are summarised rather than shown (CRD schemas, list order). */
  summary?: string;
  /** CRD schema changes only: property paths added/removed, capped (see {@link SCHEMA_PATH_CAP}). */
  properties?: SchemaPropertyChanges;
}

/** Property paths of a CRD version schema that appeared or disappeared, e.g. `spec.topology.classRef.name`. */
export interface SchemaPropertyChanges {
  added: string[];
  removed: string[];
  /** How many added/removed paths were left out of the lists above. */
  moreAdded: number;
  moreRemoved: number;
}

/** How many property paths of each kind a CRD schema change lists. */
export const SCHEMA_PATH_CAP = 20;

/** `danger`: the upgrade needs a human decision before it is merged; `warning`: read it; `info`: for the record. */
export type FindingSeverity = 'info' | 'warning' | 'danger';

/** Closed set of finding codes. Tests and tools match on these, never on message text. */
export type FindingCode =
  | 'contract-changed'
  | 'contract-older-than-core'
  | 'crd-added'
  | 'crd-removed'
  | 'crd-version-added'
  | 'crd-version-removed'
  | 'crd-version-unserved'
  | 'crd-version-deprecated'
  | 'crd-storage-version-changed'
  | 'webhook-added'
  | 'webhook-removed'
  | 'webhook-changed'
  | 'rbac-permissions-gained'
  | 'rbac-permissions-lost'
  | 'rbac-aggregation'
  | 'rbac-binding-added'
  | 'rbac-binding-subjects-added'
  | 'rbac-binding-role-changed'
  | 'image-changed'
  | 'args-changed'
  | 'feature-gates-changed'
  | 'variables-changed'
  | 'object-removed'
  | 'object-moved'
  | 'namespace-removed';

/**
 * One fact about an upgrade a reviewer should know. `object` is an {@link ObjectChange} id.
 * `message` and `details` are plain text in which commands and literal values are wrapped in
 * single backticks (markdown code spans); the markdown report keeps them, the text report prints them.
 */
export interface Finding {
  severity: FindingSeverity;
  code: FindingCode;
  env: string;
  component: string;
  object?: string;
  message: string;
  /** Supporting lines: permissions, argument changes, or the exact steps to take. */
  details?: string[];
  /**
   * What the finding is about, as data for tools and tests: CRD version names, webhook names,
   * a container name, permissions (`verb resource.group`), aggregated role names, binding subjects
   * (`Group system:authenticated`, `ServiceAccount capi-system/capi-manager`). Sorted unless
   * the source order matters (CRD versions keep spec.versions order).
   */
  subjects?: string[];
  /** For a value that changed (contract, storage version, image, component of a moved object): the old one. */
  before?: string;
  /** The new value. */
  after?: string;
}

/**
 * Contract (e.g. `v1beta1`) of a provider before and after, per environment; absent when unknown
 * (before: also when the provider is new in the environment).
 */
export interface ContractChange {
  env: string;
  provider: string;
  before?: string;
  after?: string;
  /** The provider's version before and after, when known: a provider whose version changes is part of the change. */
  from?: string;
  to?: string;
  /**
   * The environment's core provider (its manifest label) and its contract before and after, when
   * `provider` is not the core itself: a provider moving to the contract the core already implements
   * is not a move of the whole installation.
   */
  core?: { provider: string; before?: string; after?: string };
}

/**
 * The variables a provider read a value for (names only, as the lock records them) before and after
 * its version changed, per environment.
 */
export interface VariableUseChange {
  env: string;
  /** Manifest label, e.g. `infrastructure-metal3`. */
  provider: string;
  from: string;
  to: string;
  /** Sorted names. */
  before: readonly string[];
  after: readonly string[];
}

/** Extra facts the objects alone do not carry. */
export interface SafetyContext {
  contracts?: readonly ContractChange[];
  variables?: readonly VariableUseChange[];
}
