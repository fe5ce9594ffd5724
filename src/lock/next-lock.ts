/**
 * Computes the lock a build leaves behind, and what changed against the previous one (for
 * `--frozen`, `check` and the removal guard). Environments that were not rendered this time keep
 * their entries, and the artifacts those entries use; environments that no longer exist are dropped.
 */
import type {
  LockEmulates,
  LockFile,
  LockedArtifact,
  LockedEnvironment,
  LockedImage,
  LockedInputFile,
  LockedProvider,
} from './lock-types.js';
import { LOCK_API_VERSION } from './lock-types.js';
import { artifactKey, serializeLock } from './lock-file.js';
import type { LockState } from './lock-state.js';
import { configuredLocalLabel } from '../source/local-repository.js';

export interface RenderedLockEntries {
  environment: string;
  inputs?: string;
  providers: LockedProvider[];
  artifacts: LockedArtifact[];
  /** CRD names the environment's output holds. */
  crds: string[];
  /** Images pinned in its output, with their digests. */
  images: LockedImage[];
}

/**
 * `emulates` is the build's baseline (capi-render.yaml `emulate:`); without it the previous lock's
 * record is kept.
 */
export function nextLock(
  previous: LockFile,
  rendered: readonly RenderedLockEntries[],
  allEnvironments: readonly string[],
  inputFiles?: readonly LockedInputFile[],
  emulates?: LockEmulates,
): LockFile {
  const sameFiles = inputFiles === undefined || sameInputFiles(previous.inputFiles, inputFiles);
  const sameBaseline = emulates === undefined || sameEmulates(previous.emulates, emulates);
  // Nothing rendered, no environment gone, no input file changed, the same baseline: the lock stays as it is (the same object).
  if (
    rendered.length === 0 &&
    sameFiles &&
    sameBaseline &&
    previous.environments.every((e) => allEnvironments.includes(e.name))
  )
    return previous;
  const renderedNames = new Set(rendered.map((r) => r.environment));
  const kept = previous.environments.filter((e) => !renderedNames.has(e.name) && allEnvironments.includes(e.name));
  const environments: LockedEnvironment[] = [
    ...kept,
    ...rendered.map((r) => ({
      name: r.environment,
      ...(r.inputs ? { inputs: r.inputs } : {}),
      providers: r.providers,
      crds: [...r.crds].sort(),
      ...(r.images.length > 0 ? { images: r.images.map((i) => i.image).sort() } : {}),
    })),
  ];
  const used = new Set<string>();
  for (const e of kept) for (const p of e.providers) used.add(`${p.source}\u0000${p.version}`);
  const artifacts = new Map<string, LockedArtifact>();
  for (const a of previous.artifacts)
    if (used.has(`${a.source}\u0000${a.version}`)) artifacts.set(artifactKey(a.source, a.version, a.file), a);
  for (const r of rendered) for (const a of r.artifacts) artifacts.set(artifactKey(a.source, a.version, a.file), a);
  const images = new Map<string, LockedImage>();
  const keptImages = new Set(kept.flatMap((e) => e.images ?? []));
  for (const i of previous.images ?? []) if (keptImages.has(i.image)) images.set(i.image, i);
  for (const r of rendered) for (const i of r.images) images.set(i.image, i);
  const files = inputFiles ?? previous.inputFiles;
  const recorded = emulates ?? previous.emulates;
  return {
    apiVersion: LOCK_API_VERSION,
    kind: 'Lock',
    ...(recorded ? { emulates: recorded } : {}),
    environments,
    artifacts: [...artifacts.values()],
    ...(images.size > 0 ? { images: [...images.values()] } : {}),
    ...(files ? { inputFiles: [...files] } : {}),
  };
}

function sameEmulates(a: LockEmulates | undefined, b: LockEmulates): boolean {
  return (
    a !== undefined &&
    a.clusterctl === b.clusterctl &&
    a.operator === b.operator &&
    a.contract === b.contract &&
    a.operatorApi === b.operatorApi
  );
}

function sameInputFiles(a: readonly LockedInputFile[] | undefined, b: readonly LockedInputFile[]): boolean {
  if (!a || a.length !== b.length) return false;
  const digests = new Map(a.map((f) => [f.file, f.sha256]));
  return b.every((f) => digests.get(f.file) === f.sha256);
}

/** One difference between two locks, as data: the removal guard reads it, the reports print it. */
export type LockChange =
  | { kind: 'environment-added' | 'environment-removed'; env: string }
  | { kind: 'provider-added'; env: string; provider: string; version: string }
  | { kind: 'provider-removed'; env: string; provider: string; version: string }
  | { kind: 'provider-version'; env: string; provider: string; before: string; after: string }
  | { kind: 'provider-entry'; env: string; provider: string; fields: LockedFieldChange[] }
  | { kind: 'crd-removed' | 'crd-added'; env: string; crd: string }
  | { kind: 'inputs'; env: string }
  | { kind: 'artifact-digest'; artifact: LockedArtifact; before: string }
  | { kind: 'artifact-url'; artifact: LockedArtifact; before: string }
  | { kind: 'image-digest'; image: string; before: string; after: string }
  | { kind: 'image-verification'; image: string; before: string | undefined; after: string | undefined }
  | { kind: 'image-evidence'; image: string }
  | { kind: 'image-added' | 'image-removed'; env: string; image: string }
  | { kind: 'input-file'; file: string; change: 'edited' | 'added' | 'removed' };

/** One field of a provider entry that differs, with both values as the lock writes them (`undefined`: absent). */
export interface LockedFieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The fields a provider entry has, in the lock's order; any other key was added by hand. */
const PROVIDER_FIELDS = ['requested', 'version', 'contract', 'source', 'variables'] as const;

/**
 * Which fields of two entries of one provider differ. A lock holds no secret value (variables are
 * names, sources are ids), so every value may be shown.
 */
export function providerFieldChanges(before: LockedProvider, after: LockedProvider): LockedFieldChange[] {
  const known = new Set<string>(['provider', ...PROVIDER_FIELDS]);
  const extra = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !known.has(k)).sort();
  const out: LockedFieldChange[] = [];
  for (const field of [...PROVIDER_FIELDS, ...extra]) {
    const b = (before as unknown as Record<string, unknown>)[field];
    const a = (after as unknown as Record<string, unknown>)[field];
    if (JSON.stringify(b) !== JSON.stringify(a)) out.push({ field, before: b, after: a });
  }
  return out;
}

/** `source local:a/cluster-api → local:cluster-api`, `variables: +EXP_X, −OLD_Y`, `contract (none) → v1beta2`. */
function describeFieldChange(c: LockedFieldChange): string {
  if (Array.isArray(c.before) && Array.isArray(c.after)) {
    const was = new Set(c.before.map(String));
    const is = new Set(c.after.map(String));
    const added = [...is].filter((v) => !was.has(v)).map((v) => `+${v}`);
    const removed = [...was].filter((v) => !is.has(v)).map((v) => `−${v}`);
    const moved = added.length + removed.length === 0 ? ['order changed'] : [];
    return `${c.field}: ${[...added, ...removed, ...moved].join(', ')}`;
  }
  const label = c.field === 'source' && typeof c.after === 'string' ? configuredLocalLabel(c.after) : undefined;
  const pathless =
    label !== undefined &&
    typeof c.before === 'string' &&
    c.before.startsWith('local:') &&
    c.before.endsWith(`/${label}`);
  return `${c.field} ${fieldValue(c.before)} → ${fieldValue(c.after)}${pathless ? ' (a configured local repository is recorded without its path)' : ''}`;
}

function fieldValue(v: unknown): string {
  if (v === undefined) return '(absent)';
  if (v === '') return "''";
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Every difference between two locks, environments in name order. */
export function lockChanges(before: LockFile, after: LockFile): LockChange[] {
  if (before === after) return [];
  const out: LockChange[] = [];
  const envs = new Set([...before.environments.map((e) => e.name), ...after.environments.map((e) => e.name)]);
  for (const env of [...envs].sort()) {
    const b = before.environments.find((e) => e.name === env);
    const a = after.environments.find((e) => e.name === env);
    if (!b || !a) {
      out.push({ kind: b ? 'environment-removed' : 'environment-added', env });
      continue;
    }
    const names = new Set([...b.providers.map((p) => p.provider), ...a.providers.map((p) => p.provider)]);
    for (const provider of [...names].sort()) {
      const pb = b.providers.find((p) => p.provider === provider);
      const pa = a.providers.find((p) => p.provider === provider);
      if (!pb) out.push({ kind: 'provider-added', env, provider, version: pa!.version });
      else if (!pa) out.push({ kind: 'provider-removed', env, provider, version: pb.version });
      else if (pb.version !== pa.version)
        out.push({ kind: 'provider-version', env, provider, before: pb.version, after: pa.version });
      else {
        const fields = providerFieldChanges(pb, pa);
        if (fields.length > 0) out.push({ kind: 'provider-entry', env, provider, fields });
      }
    }
    // A lock written before CRDs were recorded says nothing about them: no change to report.
    if (b.crds && a.crds) {
      const kept = new Set(a.crds);
      const had = new Set(b.crds);
      for (const crd of b.crds) if (!kept.has(crd)) out.push({ kind: 'crd-removed', env, crd });
      for (const crd of a.crds) if (!had.has(crd)) out.push({ kind: 'crd-added', env, crd });
    }
    const hadImages = new Set(b.images ?? []);
    const hasImages = new Set(a.images ?? []);
    for (const image of [...hasImages].filter((i) => !hadImages.has(i)).sort())
      out.push({ kind: 'image-added', env, image });
    for (const image of [...hadImages].filter((i) => !hasImages.has(i)).sort())
      out.push({ kind: 'image-removed', env, image });
    if (b.inputs !== a.inputs) out.push({ kind: 'inputs', env });
  }
  const imagesBefore = new Map((before.images ?? []).map((i) => [i.image, i]));
  for (const i of after.images ?? []) {
    const was = imagesBefore.get(i.image);
    if (was !== undefined && was.digest !== i.digest)
      out.push({ kind: 'image-digest', image: i.image, before: was.digest, after: i.digest });
    else if (was !== undefined && was.verified?.rule !== i.verified?.rule)
      out.push({ kind: 'image-verification', image: i.image, before: was.verified?.rule, after: i.verified?.rule });
    else if (was !== undefined && JSON.stringify(was.verified) !== JSON.stringify(i.verified))
      out.push({ kind: 'image-evidence', image: i.image });
  }
  const key = (x: LockedArtifact) => artifactKey(x.source, x.version, x.file);
  const beforeArtifacts = new Map(before.artifacts.map((x) => [key(x), x]));
  for (const x of after.artifacts) {
    const old = beforeArtifacts.get(key(x));
    if (old && old.sha256 !== x.sha256) out.push({ kind: 'artifact-digest', artifact: x, before: old.sha256 });
    else if (old && old.url !== x.url) out.push({ kind: 'artifact-url', artifact: x, before: old.url });
  }
  out.push(...inputFileChanges(before.inputFiles, after.inputFiles));
  return out;
}

function inputFileChanges(
  before: readonly LockedInputFile[] | undefined,
  after: readonly LockedInputFile[] | undefined,
): LockChange[] {
  // Without a record on one side, no file can be named.
  if (!before || !after) return [];
  const was = new Map(before.map((f) => [f.file, f.sha256]));
  const is = new Map(after.map((f) => [f.file, f.sha256]));
  const out: LockChange[] = [];
  for (const file of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    const b = was.get(file);
    const a = is.get(file);
    if (b === a) continue;
    out.push({ kind: 'input-file', file, change: b === undefined ? 'added' : a === undefined ? 'removed' : 'edited' });
  }
  return out;
}

/**
 * Whether capi-render.lock's text is the one capi-render writes for its content: a comment, a
 * reformatting or a field capi-render does not write is not, and a build rewrites it (the content is
 * compared by {@link describeLockChanges}), so `check` and `--frozen` cannot call it unchanged. Line
 * endings and a byte-order mark are not a change (a Windows checkout of the same commit), as for every
 * committed file `check` reads.
 */
export function describeLockTextChange(committed: LockState): string | undefined {
  if (committed.text === undefined || committed.canonical) return undefined;
  const text = normalizedText(committed.text);
  const canonical = serializeLock(committed.lock);
  if (text === canonical) return undefined;
  const [have, want] = [text.split('\n'), canonical.split('\n')];
  let line = 0;
  while (line < have.length && have[line] === want[line]) line++;
  return `from line ${line + 1}: not what capi-render writes for this lock (a comment, a reformatting or a field added by hand); a build rewrites it`;
}

/**
 * What `check` and `--frozen` report about the committed lock against the one the inputs give: the
 * differences, one line each (content, then text), and the first line of the committed text that
 * differs from what a build would write — where a reader of the error looks. Empty when the build
 * would leave the lock as it is.
 */
export function describeLockDifferences(committed: LockState, next: LockFile): { changes: string[]; line?: number } {
  const textChange = describeLockTextChange(committed);
  // The next lock is serialised once: to compare with the committed one, and to find the line.
  let want: string | undefined;
  const wanted = () => (want ??= serializeLock(next));
  const same =
    next === committed.lock || wanted() === (committed.canonical ? committed.text : serializeLock(committed.lock));
  const changes = [...(same ? [] : contentChanges(committed.lock, next)), ...(textChange ? [textChange] : [])];
  if (changes.length === 0 || committed.text === undefined) return { changes };
  const have = normalizedText(committed.text).split('\n');
  const lines = wanted().split('\n');
  let line = 0;
  while (line < have.length && have[line] === lines[line]) line++;
  return { changes, line: line + 1 };
}

/** A lock's text as compared: a byte-order mark and CRLF line ends (a Windows checkout) are not changes. */
function normalizedText(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n/g, '\n');
}

/** Human-readable differences between two locks (empty when they serialise identically). */
export function describeLockChanges(before: LockFile, after: LockFile): string[] {
  if (before === after || serializeLock(before) === serializeLock(after)) return [];
  return contentChanges(before, after);
}

/** describeLockChanges for two locks known to serialise differently. */
function contentChanges(before: LockFile, after: LockFile): string[] {
  const changes = lockChanges(before, after);
  const baseline =
    emulatesText(before.emulates) === emulatesText(after.emulates)
      ? []
      : [`emulates ${emulatesText(before.emulates)} → ${emulatesText(after.emulates)} (capi-render.yaml emulate:)`];
  const files = changes.filter((c) => c.kind === 'input-file');
  const named = files.map((c) => `${c.file} (${c.change})`).join(', ');
  const out = changes.flatMap((c): string[] => {
    switch (c.kind) {
      case 'environment-added':
        return [`environment ${c.env} is new`];
      case 'environment-removed':
        return [`environment ${c.env} is gone`];
      case 'provider-added':
        return [`${c.env}: ${c.provider} added at ${c.version}`];
      case 'provider-removed':
        return [`${c.env}: ${c.provider} removed (was ${c.version})`];
      case 'provider-version':
        return [`${c.env}: ${c.provider} ${c.before} → ${c.after}`];
      case 'provider-entry':
        return [`${c.env}: ${c.provider} ${c.fields.map(describeFieldChange).join('; ')}`];
      case 'crd-removed':
        return [`${c.env}: CRD ${c.crd} no longer rendered`];
      case 'crd-added':
        return [`${c.env}: CRD ${c.crd} added`];
      case 'inputs':
        return [
          `${c.env}: inputs changed (${named ? `changed input files: ${named}` : 'no recorded input file changed: the capi-render version, or a base outside providers/ and overlays/'})`,
        ];
      case 'artifact-digest':
        return [
          `artifact ${c.artifact.file} of ${c.artifact.source} ${c.artifact.version}: sha256 ${c.before.slice(0, 12)}… → ${c.artifact.sha256.slice(0, 12)}…`,
        ];
      case 'artifact-url':
        return [
          `artifact ${c.artifact.file} of ${c.artifact.source} ${c.artifact.version}: url ${c.before} → ${c.artifact.url}`,
        ];
      case 'image-added':
        return [`${c.env}: image ${c.image} pinned`];
      case 'image-removed':
        return [`${c.env}: image ${c.image} no longer pinned`];
      case 'image-digest':
        return [`image ${c.image}: digest ${c.before} → ${c.after}`];
      case 'image-evidence':
        return [`image ${c.image}: the signature evidence of its verification changed`];
      case 'image-verification':
        return [
          `image ${c.image}: ${c.after === undefined ? `no longer verified (was rule ${c.before})` : c.before === undefined ? `verified against rule ${c.after}` : `verified against rule ${c.before} → ${c.after} (the rule changed)`}`,
        ];
      case 'input-file':
        return [];
    }
  });
  out.unshift(...baseline);
  if (out.length === 0 && files.length > 0) out.push(`input files changed: ${named}`);
  if (out.length === 0) out.push('artifact list changed');
  return out;
}

/** `clusterctl v1.14.0` or `cluster-api-operator v0.28.0 (clusterctl v1.12.10)`, as a lock records it. */
function emulatesText(e: LockEmulates | undefined): string {
  if (!e) return '(not recorded)';
  return e.operator ? `cluster-api-operator ${e.operator} (clusterctl ${e.clusterctl})` : `clusterctl ${e.clusterctl}`;
}
