/**
 * What the HTML report template sees: plain data, every string already worded and every list
 * already sorted, so the template only lays it out (and handlebars escapes every value it prints).
 * Every key is always present (the template runs in strict mode); absent values are null, empty
 * strings or empty lists. Documented field by field in bundled-templates/README.md.
 */
import type { SummaryRow } from '../diff/summary-table.js';

/** Text with `code spans`: the template prints `code` segments in <code>. */
export type RichText = { text: string; code: boolean }[];

/** The whole page. */
export interface ReportModel {
  title: string;
  /** The one line a reviewer acts on, e.g. "1 environment changed; 0 dangers; 2 warnings; 20 info findings". */
  summary: string;
  /** `ok`, `warning` or `danger`: the colour of the summary. */
  tone: 'ok' | 'warning' | 'danger';
  matrix: MatrixModel;
  environments: EnvironmentModel[];
  /** The upgrade review, with `--base`; null without. */
  review: ReviewModel | null;
  /** Every finding code and why it matters (the legend at the end). */
  findingCodes: { code: string; why: string }[];
}

/** Providers (rows) × environments (columns, grouped by GitOps flavour). */
export interface MatrixModel {
  groups: { flavour: string; title: string; span: number }[];
  columns: { environment: string; flavour: string; anchor: string }[];
  rows: MatrixRow[];
}

export interface MatrixRow {
  /** Manifest label (`cluster-api`) or `cert-manager`. */
  name: string;
  /** `CoreProvider`, …, or `cert-manager`. */
  kind: string;
  cells: MatrixCell[];
}

/** One provider in one environment. */
export interface MatrixCell {
  environment: string;
  /** False when the environment does not install the provider (the other fields are empty). */
  present: boolean;
  version: string;
  /** The contract, or `no contract` (cert-manager). */
  contract: string;
  /** What is available: `patch` (newer patch), `minor` (newer minor, same contract), `contract` (a next contract). */
  marks: { code: 'patch' | 'minor' | 'contract'; label: string; title: string }[];
  /** Shown when the cell is expanded. */
  details: { label: string; value: string }[];
}

/** One environment's facts. */
export interface EnvironmentModel {
  name: string;
  anchor: string;
  flavour: string;
  flavourTitle: string;
  /** The overlay's free `labels:` (cluster, region…). */
  labels: { key: string; value: string }[];
  core: string;
  objectTotal: number;
  /** `objectTotal` worded: `108 objects`, `1 object`. */
  objectTotalPhrase: string;
  kinds: { kind: string; count: number }[];
  crds: {
    name: string;
    component: string;
    versions: { name: string; served: boolean; storage: boolean; deprecated: boolean; flags: string }[];
  }[];
  images: { image: string; components: string }[];
  /** Pinned images whose tag now points elsewhere than the lock says (`upgrade --images` re-pins them). */
  movedTags: { image: string; locked: string; current: string }[];
  /** Where it is delivered: the controller, the destination cluster, the source and a pinned artifact digest. */
  delivery: DeliveryModel;
  rbac: RbacModel;
  /** The upgrade plan's contracts: what can move and how. */
  plans: { contract: string; current: boolean; status: string; command: string; blockers: string[]; steps: string[] }[];
}

/** Where an environment's output goes and where its controller takes it from (its effective gitops settings). */
export interface DeliveryModel {
  /** `Argo CD`, `Flux` or `none` (the kustomize flavour). */
  controller: string;
  /** Where the controller takes the manifests from: `path`, `plugin` or `hydrator` (Argo CD), `path` or `oci` (Flux), `none`. */
  mode: string;
  /** The destination cluster: Argo CD's server URL or cluster name, Flux's kubeConfig Secret or `the cluster Flux runs in`; empty for none. */
  destination: string;
  /** The `sha256:…` the OCI source is pinned to; empty when not an artifact or not pinned. */
  digest: string;
  /**
   * Everything above and the rest (repository, revision, path, Application, Kustomizations), in the order shown;
   * `code` values print in <code>, `note` after them.
   */
  facts: { label: string; value: string; code: boolean; note: string }[];
  /** A remark (how to pin an unpinned artifact); empty when none. */
  note: RichText;
}

/** The applier's least-privilege role (as `capi-render rbac` computes it) and what the providers grant. */
export interface RbacModel {
  applier: string;
  /** Why this applier (the flavour's, or the default one for plain kustomize). */
  applierNote: RichText;
  clusterRules: string[];
  /** How many cluster rules, worded: `14 rules`, `1 rule`. */
  clusterRulesPhrase: string;
  /** Each namespace's Role; `rulesPhrase` is how many rules, worded. */
  namespaces: { namespace: string; rules: string[]; rulesPhrase: string }[];
  notes: string[];
  grants: { component: string; subjects: string; clusterScoped: number; namespaced: number; escalations: string[] }[];
}

/** The upgrade review: the working tree's output against `--base`. */
export interface ReviewModel {
  base: string;
  commit: string;
  /**
   * The summary table the page opens with, the rows `capi-render diff` prints: per environment and
   * provider, `version` (`v1.11.0 → v1.12.0`), `contract` (`v1beta1 → v1beta2` when it moves,
   * `contractMoves` then true) and its findings per severity.
   */
  summaryRows: SummaryRowModel[];
  counts: { danger: number; warning: number; info: number };
  changedEnvironments: string[];
  versionChanges: { environment: string; component: string; from: string; to: string; contract: string }[];
  findings: FindingModel[];
  objectCounts: string;
  places: { place: string; objects: ObjectDiffModel[] }[];
}

/** One row of the summary table, as `diff` prints it. */
export type SummaryRowModel = SummaryRow;

/** One finding, merged across the environments it occurs in. */
export interface FindingModel {
  severity: 'danger' | 'warning' | 'info';
  code: string;
  why: string;
  component: string;
  object: string;
  message: RichText;
  details: RichText[];
  environments: string;
  /** Open by default (danger and warning). */
  open: boolean;
}

/** One object that differs, with its field changes. */
export interface ObjectDiffModel {
  change: 'added' | 'removed' | 'changed';
  mark: string;
  id: string;
  /** `3 fields`, `new object`, `pruned`. */
  note: string;
  /**
   * `pathParts`: `path` cut before each `.` and `[`, for the template to lay out so that lines break
   * between them; `textParts`: `text` cut after each `,` not followed by a space, likewise (a list or
   * a flag's `a=1,b=2` wraps there). `lines`:
   * the lines under a CRD schema change (`added spec.paused`, `… 3 more added`); `properties`: the
   * same lines as `{text, pathParts}` (`pathParts` empty for a `… N more` line).
   */
  fields: {
    change: 'added' | 'removed' | 'changed';
    mark: string;
    path: string;
    pathParts: string[];
    text: string;
    textParts: string[];
    lines: string[];
    properties: { text: string; pathParts: string[] }[];
  }[];
}
