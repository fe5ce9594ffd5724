/**
 * capi-render's public API. Everything a program needs to render, check and inspect provider
 * installs is exported from here; nothing else in the package is public.
 */
export * from './errors.js';
export type { KubeObject, JsonObject, JsonValue, ObjectId } from './manifest/object.js';
export type { ProviderKind } from './spec/provider-kinds.js';
export type * from './spec/provider-spec.js';
export { diffRendered } from './diff/diff-rendered.js';
export { safetyFindings } from './diff/safety-findings.js';
export { formatDiffText, type DiffTextOptions } from './diff/format-text.js';
export { formatReportMarkdown } from './diff/format-markdown.js';
export type * from './diff/types.js';
export { SCHEMA_PATH_CAP } from './diff/types.js';
export { computeApplierRbac } from './rbac/compute-applier-rbac.js';
export { verifyApplierRbac, listGrantedPermissions, isApplierAllowed } from './rbac/verify-applier-rbac.js';
export { summarizeProviderGrants } from './rbac/provider-grants.js';
export { formatGrants } from './rbac/format-grants.js';
export type * from './rbac/rbac-types.js';
