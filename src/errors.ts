/**
 * Error model. Every failure a user can cause carries one or more {@link Diagnostic}s that say
 * what went wrong, where (file:line:col or an object id) and how to fix it. Errors are classified by
 * class, never by message text; the CLI maps classes to exit codes in one place (cli/run.ts).
 */

/** Closed set of diagnostic codes. Tests assert on these, never on message text. */
export type DiagnosticCode =
  | 'yaml-syntax'
  | 'yaml-duplicate-key'
  | 'yaml-limit'
  | 'input-not-object'
  | 'input-encoding'
  | 'input-path'
  | 'unknown-kind'
  | 'schema'
  | 'cel'
  | 'preflight'
  | 'config'
  | 'selector-no-match'
  | 'configmap-duplicate-version'
  | 'configmap-invalid'
  | 'config-secret'
  | 'additional-manifests'
  | 'source-not-found'
  | 'source-unsupported'
  | 'version-not-found'
  | 'versions-unlisted'
  | 'metadata-invalid'
  | 'contract'
  | 'variables-missing'
  | 'variables-syntax'
  | 'variables-unused'
  | 'variables-env-unset'
  | 'components-invalid'
  | 'crd-name'
  | 'namespace'
  | 'image'
  | 'customize'
  | 'patch'
  | 'overlay'
  | 'lock'
  | 'digest-mismatch'
  | 'frozen'
  | 'offline'
  | 'fetch'
  | 'rate-limit'
  | 'auth'
  | 'secret-guard'
  | 'sops'
  | 'output'
  | 'drift'
  | 'template'
  | 'gitops'
  | 'git'
  | 'upgrade'
  | 'multi-namespace'
  | 'rbac'
  | 'busy'
  | 'write'
  | 'output-location'
  | 'removal'
  | 'diff-duplicate-object'
  | 'live-dump'
  | 'import'
  | 'destination'
  | 'plugin'
  | 'publish'
  | 'shard';

/** Where a diagnostic points. `file` is relative to the repository root when it is inside it. */
export interface Location {
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  col?: number;
  /** Field path inside the object, e.g. `spec.fetchConfig.selector`. */
  field?: string;
  /** `Kind/namespace/name` of the object concerned. */
  object?: string;
}

export interface Diagnostic extends Location {
  severity: 'error' | 'warning';
  code: DiagnosticCode;
  message: string;
  /** How to fix it, when there is something useful to say. */
  hint?: string;
}

/** Base class of every error a user can cause or fix. */
export class RenderError extends Error {
  readonly diagnostics: Diagnostic[];

  constructor(diagnostics: Diagnostic | Diagnostic[]) {
    const list = Array.isArray(diagnostics) ? diagnostics : [diagnostics];
    super(list.map((d) => d.message).join('; '));
    this.diagnostics = list;
    this.name = new.target.name;
  }

  get code(): DiagnosticCode {
    return this.diagnostics[0]?.code ?? 'config';
  }
}

/** The inputs (specs, overlays, config, artifacts' content) are wrong. Exit 1. */
export class SpecError extends RenderError {}

/** A source could not deliver an artifact (network, GitHub, registry, cache). Exit 1. */
export class FetchError extends RenderError {}

/**
 * Writing the output failed (permissions, a read-only or full file system, a file where a folder
 * should be). The previous output is left as it was. Exit 1.
 */
export class WriteError extends RenderError {}

/** The committed output differs from what the inputs render. Exit 1. */
export class DriftError extends RenderError {}

/** Bad command-line usage. Exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A bug in capi-render. Printed with a request to report it. */
export class InternalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InternalError';
  }
}

/** The tools whose messages users know and search the web for. */
export type Peer = 'clusterctl' | 'cluster-api-operator';

/**
 * A message that starts with a peer's own wording, so a user who knows the peer's error (or searches
 * for it) recognises capi-render's: `clusterctl: "<phrase>"`, then `; <detail>` — capi-render's own
 * words on what is wrong here. The phrase is quoted as the peer prints it (inner quotes included),
 * and stays on the first line of the formatted error; the location and hint follow as usual.
 */
export function peerWording(peer: Peer, phrase: string, detail?: string): string {
  return `${peer}: "${phrase}"${detail ? `; ${detail}` : ''}`;
}

/** Builds an error diagnostic; a small convenience so call sites stay one line. */
export function error(code: DiagnosticCode, message: string, where: Location & { hint?: string } = {}): Diagnostic {
  return { severity: 'error', code, message, ...where };
}

/** Builds a warning diagnostic. */
export function warning(code: DiagnosticCode, message: string, where: Location & { hint?: string } = {}): Diagnostic {
  return { severity: 'warning', code, message, ...where };
}

/** Throws a SpecError when any diagnostic in the list is an error; returns the warnings otherwise. */
export function throwIfErrors(diagnostics: Diagnostic[]): Diagnostic[] {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new SpecError(errors);
  return diagnostics.filter((d) => d.severity === 'warning');
}
