/**
 * capi-render's public API. Everything a program needs to render, check and inspect provider
 * installs is exported from here; nothing else in the package is public.
 */
export * from './errors.js';
export type { KubeObject, JsonObject, JsonValue, ObjectId } from './manifest/object.js';
export type { ProviderKind } from './declarations/provider-kinds.js';
export type * from './declarations/provider-spec.js';
export { diffRendered } from './diff/diff-rendered.js';
export { safetyFindings } from './diff/safety-findings.js';
export { formatDiffText, type DiffTextOptions } from './diff/format-text.js';
export { formatReportMarkdown } from './diff/format-markdown.js';
export type * from './diff/types.js';
export { SCHEMA_PATH_CAP } from './diff/types.js';
export { FINDING_WHY } from './diff/finding-why.js';
export { makeReport, type MakeReportOptions, type MadeReport } from './report/make-report.js';
export type * from './report/report-model.js';
export { computeApplierRbac } from './rbac/compute-applier-rbac.js';
export { verifyApplierRbac, listGrantedPermissions, isApplierAllowed } from './rbac/verify-applier-rbac.js';
export { summarizeProviderGrants } from './rbac/provider-grants.js';
export { formatGrants } from './rbac/format-grants.js';
export type * from './rbac/rbac-types.js';
export { render } from './render/render.js';
export type { RenderOptions, RenderResult } from './render/render-options.js';
export {
  startRender,
  type RenderRun,
  type RenderRunResult,
  type RenderedOutput,
  type ResolvedInputs,
} from './render/render-run.js';
export { listVariables, type ListVariablesOptions } from './render/list-variables.js';
export {
  variablesReport,
  type VariableListDocument,
  type ListedVariable,
  type VariableSourceKind,
} from './render/variables-report.js';
export type { EnvironmentResult, ResolvedProvider } from './render/environment-result.js';
export {
  writeRenderRun,
  type WriteRenderResultOptions,
  type WrittenRenderResult,
  type WrittenRenderRun,
} from './build/write-render-result.js';
export { runBuild, repairedFiles, type BuildRunOptions, type BuildRun } from './build/run-build.js';
export { runCheck, type CheckRunOptions, type CheckResult } from './check/run-check.js';
export type { FileDrift, DriftKind } from './check/compare-output.js';
export { pruneCache, DEFAULT_CACHE_MAX_BYTES, type PruneOptions, type PruneResult } from './cache/prune-cache.js';
export type { CacheEntry, CacheEntryKind } from './cache/cache-entries.js';
export { parseLock, serializeLock } from './lock/lock-file.js';
export { readLockState, parseLockState, writtenLockState, type LockState } from './lock/lock-state.js';
export type { LockFile, LockEmulates, LockedArtifact, LockedEnvironment, LockedProvider } from './lock/lock-types.js';
export { BASELINE_IDS, DEFAULT_BASELINE, baselineOf, type Baseline, type BaselineId } from './baseline/baseline.js';
export { createArtifactCache, defaultCacheDir, type ArtifactCache } from './source/artifact-cache.js';
export type { ReleaseSource, Artifact, ReleaseList, UnlistedVersions } from './source/release-source.js';
export type { FetchLike } from './source/gitlab/gitlab-source.js';
export { applyGitopsFlavour } from './gitops/apply-gitops-flavour.js';
export { run } from './cli/run.js';
export type { CliIo } from './cli/io.js';
