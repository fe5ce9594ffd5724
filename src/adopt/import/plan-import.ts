/**
 * Which files `capi-render import` writes, as text, without touching the disk (plan, then apply):
 *
 * - without an environment: one declaration per provider in providers/ (`<label>.yaml`), and
 *   capi-render.yaml when there is none yet (so cert-manager's version is pinned);
 * - with `--env NAME`: a new overlay, overlays/NAME/overlay.yaml, on top of the existing base. A
 *   provider the base declares differently becomes a strategic-merge patch of just the differing
 *   fields; one the cluster does not run becomes a `$patch: delete`; one only the cluster runs goes
 *   into overlays/NAME/providers.yaml. The base is never copied.
 *
 * Existing files are never replaced unless `force` says so; the caller writes atomically.
 */
import { error, warning, type Diagnostic } from '../../errors.js';
import type { CertManagerConfig } from '../../config/config-types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../manifest/object.js';
import { CERT_MANAGER_DEFAULT_VERSION } from '../../render/cert-manager.js';
import { isProviderKind, manifestLabel, OPERATOR_API_VERSION } from '../../declarations/provider-kinds.js';
import type { SourceDocument } from '../../declarations/yaml-document.js';
import { commentedYaml } from './commented-yaml.js';
import type { ImportedProvider, InferredInstallation } from './infer-providers.js';
import { createMergePatch } from './merge-patch-diff.js';
import { destinationMessages, destinationSetting, type DestinationPlan, type FillIn } from './argocd-destination.js';

export interface ImportPlanInput {
  installation: InferredInstallation;
  /** The dump as the user named it, for comments. */
  dumpName: string;
  /** Repository-relative, `/`-separated. */
  providersDir: string;
  overlaysDir: string;
  env?: string;
  /** The documents of providers/ (empty when it does not exist). */
  base: readonly SourceDocument[];
  /** capi-render.yaml's certManager settings; undefined when there is no capi-render.yaml. */
  configCertManager: CertManagerConfig | undefined;
  /** The cert-manager version rendered when certManager.version is unset (the baseline's; default clusterctl v1.14's). */
  certManagerDefaultVersion?: string;
  /** The text of a repository-relative file, or undefined when there is none. */
  read(relative: string): string | undefined;
  force: boolean;
  /** With `env`: whether the new environment needs its own Argo CD destination (argocd-destination.ts). */
  destination?: DestinationPlan;
}

export interface PlannedFile {
  path: string;
  text: string;
  /** Whether it replaces an existing file (only with force). */
  replaces: boolean;
  /** The file already holds exactly this text (an import run again): nothing to write. */
  unchanged?: boolean;
}

export interface ImportPlan {
  files: PlannedFile[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** Lines for the report about what was filled in, with file:line. */
  notes: string[];
  /** A placeholder written for the user to fill in before the build. */
  fillIn?: FillIn;
}

const GENERATED_BY = 'Written by `capi-render import`';

/** Plans the files; errors (never thrown) say what blocks the import. */
export function planImport(input: ImportPlanInput): ImportPlan {
  const plan: ImportPlan = { files: [], errors: [], warnings: [], notes: [] };
  if (input.env === undefined) planBase(input, plan);
  else planOverlay(input, input.env, plan);
  for (const f of plan.files) {
    const current = input.read(f.path);
    if (current === undefined) continue;
    if (current === f.text) f.unchanged = true;
    else if (input.force) f.replaces = true;
    else
      plan.errors.push(
        error('import', `${f.path} already exists`, {
          file: f.path,
          hint: 'pass --force to replace it (atomically), or import into a new environment with --env NAME',
        }),
      );
  }
  return plan;
}

function planBase(input: ImportPlanInput, plan: ImportPlan): void {
  const { installation } = input;
  const declared = baseProviders(input.base);
  const counts = new Map<string, number>();
  for (const p of installation.providers) counts.set(labelOf(p), (counts.get(labelOf(p)) ?? 0) + 1);
  for (const p of installation.providers) {
    const file = `${input.providersDir}/${labelOf(p)}${(counts.get(labelOf(p)) ?? 0) > 1 ? `.${p.namespace}` : ''}.yaml`;
    const twin = declared.find((d) => d.kind === p.kind && d.name === p.name && d.namespace === p.namespace);
    if (twin && twin.doc.file !== file) {
      plan.errors.push(
        error('import', `${p.kind} ${p.namespace}/${p.name} is already declared in ${twin.doc.file}`, {
          file: twin.doc.file,
          ...twin.doc.locate([]),
          hint: `import into an environment instead (--env NAME): its differences from ${input.providersDir}/ become patches; or remove the declaration first`,
        }),
      );
      continue;
    }
    plan.files.push({ path: file, text: providerText(p, input.dumpName), replaces: false });
  }
  for (const d of declared) {
    if (!installation.providers.some((p) => p.kind === d.kind && p.name === d.name && p.namespace === d.namespace)) {
      plan.warnings.push(
        warning(
          'import',
          `${d.doc.file} declares ${d.kind} ${d.namespace}/${d.name}, which the cluster does not run: the first sync would install it`,
          { file: d.doc.file, ...d.doc.locate([]) },
        ),
      );
    }
  }
  const cm = installation.certManager;
  if (input.configCertManager === undefined) {
    const value: JsonObject = { apiVersion: 'capi-render/v1alpha1', kind: 'Config' };
    if (cm) value.certManager = { version: cm.version };
    plan.files.push({
      path: 'capi-render.yaml',
      text: commentedYaml({
        value,
        header: [`capi-render settings. ${GENERATED_BY} from ${input.dumpName}.`],
        comments: cm ? { 'certManager.version': `from ${cm.from}` } : {},
      }),
      replaces: false,
    });
  } else if (cm && (input.configCertManager.version ?? defaultVersion(input)) !== cm.version) {
    plan.warnings.push(
      warning(
        'import',
        `the cluster runs cert-manager ${cm.version} (${cm.from}); capi-render.yaml renders ${input.configCertManager.version ?? `the default ${defaultVersion(input)}`}`,
        {
          file: 'capi-render.yaml',
          hint: `set certManager: {version: ${cm.version}} in capi-render.yaml (import does not edit it), or import into an environment with --env NAME, whose overlay pins it`,
        },
      ),
    );
  }
}

function planOverlay(input: ImportPlanInput, env: string, plan: ImportPlan): void {
  const { installation } = input;
  const dir = `${input.overlaysDir}/${env}`;
  const declared = baseProviders(input.base);
  const patches: JsonValue[] = [];
  const patchComments: Record<string, string> = {};
  const added: ImportedProvider[] = [];
  for (const p of installation.providers) {
    const twin = declared.find((d) => d.kind === p.kind && d.name === p.name && d.namespace === p.namespace);
    if (!twin) {
      added.push(p);
      continue;
    }
    const patch = createMergePatch(isJsonObject(twin.value.spec) ? twin.value.spec : {}, p.spec);
    if (Object.keys(patch).length === 0) continue;
    const changed = Object.keys(flatten(patch)).sort();
    patchComments[`patches.${patches.length}`] =
      `${p.kind} ${p.namespace}/${p.name}: the cluster differs from ${twin.doc.file} in ${changed.join(', ')} (${p.origin})`;
    patches.push({
      patch: commentedYaml({ value: { ...crHead(p), spec: patch }, comments: prefixed(p.sources, changed) }),
    });
  }
  for (const d of declared) {
    if (installation.providers.some((p) => p.kind === d.kind && p.name === d.name && p.namespace === d.namespace))
      continue;
    patchComments[`patches.${patches.length}`] =
      `${d.kind} ${d.namespace}/${d.name} (${d.doc.file}) is not installed in the cluster`;
    patches.push({
      patch: commentedYaml({
        value: {
          apiVersion: OPERATOR_API_VERSION,
          kind: d.kind,
          metadata: { name: d.name, namespace: d.namespace },
          $patch: 'delete',
        },
      }),
    });
  }
  const resources: string[] = [];
  if (declared.length > 0 || input.base.length > 0) resources.push(relativeFrom(dir, input.providersDir));
  if (added.length > 0) {
    resources.push('providers.yaml');
    plan.files.push({
      path: `${dir}/providers.yaml`,
      text: added.map((p) => providerText(p, input.dumpName)).join('---\n'),
      replaces: false,
    });
  }
  const overlay: JsonObject = { apiVersion: 'capi-render/v1alpha1', kind: 'Overlay', resources };
  const comments: Record<string, string> = { ...patchComments };
  const cm = installation.certManager;
  if (cm && (input.configCertManager?.version ?? defaultVersion(input)) !== cm.version) {
    overlay.certManager = { version: cm.version };
    comments['certManager.version'] = `from ${cm.from}`;
  }
  const destination = input.destination && destinationSetting(input.destination, env);
  if (destination) {
    overlay.gitops = destination.gitops;
    comments['gitops.argocd.destination'] = destination.comment;
  }
  if (patches.length > 0) overlay.patches = patches;
  if (added.length > 0)
    comments.resources = `providers.yaml: providers only this cluster runs (not in ${input.providersDir}/)`;
  const header = [
    `Environment ${env}. ${GENERATED_BY} from ${input.dumpName}: ${installation.providers.map((p) => `${labelOf(p)} ${String(p.spec.version)}`).join(', ')}.`,
    `Differences from the base (${input.providersDir}/) are patches; the base is not copied.`,
  ];
  const text = commentedYaml({ value: overlay, header, comments, blocks: patches.map((_, i) => `patches.${i}.patch`) });
  plan.files.push({ path: `${dir}/overlay.yaml`, text, replaces: false });
  if (input.destination) {
    const said = destinationMessages(input.destination, env, `${dir}/overlay.yaml`, text);
    plan.warnings.push(...said.warnings);
    plan.notes.push(...said.notes);
    if (said.fillIn) plan.fillIn = said.fillIn;
  }
}

/** The operator CR text of one provider, with where each value came from. */
function providerText(p: ImportedProvider, dumpName: string): string {
  const value = { ...crHead(p), spec: p.spec };
  if (p.labels) value.metadata.labels = p.labels;
  if (p.annotations) value.metadata.annotations = p.annotations;
  const comments = Object.fromEntries(Object.entries(p.sources).map(([k, v]) => [k, `from ${v}`]));
  return commentedYaml({
    value,
    header: [`${p.kind} ${p.namespace}/${p.name}. ${GENERATED_BY} from ${dumpName}.`, ...p.notes],
    comments,
  });
}

function crHead(p: ImportedProvider): { apiVersion: string; kind: string; metadata: JsonObject } {
  return { apiVersion: OPERATOR_API_VERSION, kind: p.kind, metadata: { name: p.name, namespace: p.namespace } };
}

interface DeclaredProvider {
  kind: string;
  name: string;
  namespace: string;
  value: JsonObject;
  doc: SourceDocument;
}

function baseProviders(docs: readonly SourceDocument[]): DeclaredProvider[] {
  return docs.flatMap((doc): DeclaredProvider[] => {
    const v = doc.value;
    if (!isJsonObject(v) || !isProviderKind(v.kind) || !isJsonObject(v.metadata)) return [];
    return [
      {
        kind: v.kind,
        name: String(v.metadata.name ?? ''),
        namespace: String(v.metadata.namespace ?? ''),
        value: v,
        doc,
      },
    ];
  });
}

function labelOf(p: ImportedProvider): string {
  return manifestLabel(p.kind, p.name);
}

/** Dotted paths of the leaves of a patch (its replaced values). */
function flatten(value: JsonObject, prefix = 'spec'): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isJsonObject(v) && Object.keys(v).length > 0) Object.assign(out, flatten(v, `${prefix}.${k}`));
    else out[`${prefix}.${k}`] = v;
  }
  return out;
}

/** The source comments that apply to the given patched paths (exact, or the nearest ancestor's). */
function prefixed(sources: Record<string, string>, paths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of paths) {
    const key = Object.keys(sources)
      .filter((s) => p === s || p.startsWith(`${s}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (key) out[key === 'spec' ? p : key] = `from ${sources[key]}`;
  }
  return out;
}

function relativeFrom(dir: string, target: string): string {
  const up = dir
    .split('/')
    .filter(Boolean)
    .map(() => '..');
  return [...up, target].join('/');
}

function defaultVersion(input: ImportPlanInput): string {
  return input.certManagerDefaultVersion ?? CERT_MANAGER_DEFAULT_VERSION;
}
