/**
 * The GitOps flavour stage: runs after provider processing, before file planning. In this order,
 * for every object of every component:
 *
 *  1. drop placeholder caBundles (all flavours);
 *  2. mark objects still holding a `${` literal `kustomize.toolkit.fluxcd.io/substitute: disabled`
 *     and warn (all flavours — the annotation means nothing to other consumers);
 *  3. flavour annotations: Argo CD waves and sync options, or Flux prune protection.
 *
 * Design notes: docs/internals.md "gitops/apply-gitops-flavour.ts".
 */
import type { Diagnostic } from '../errors.js';
import type { KubeObject } from '../manifest/object.js';
import type { RenderedComponent, RenderedEnvironment } from '../plan/output-plan.js';
import { annotateForArgocd } from './argocd.js';
import { argocdApplicationFiles } from './argocd-applications.js';
import { stripPlaceholderCaBundles } from './ca-bundle.js';
import { annotateForFlux, fluxExtraFiles } from './flux.js';
import {
  componentRole,
  resolveGitopsOptions,
  type ComponentRole,
  type GitopsOptions,
  type GitopsResult,
  type ResolvedGitopsOptions,
} from './options.js';
import { guardSubstitutionLiterals } from './substitution-guard.js';
import { readTextFileSync, type ReadTextFile } from './templates.js';
import { packagePath } from '../package-files.js';

/** A transformed object and the warnings it raised. */
export interface FlavouredObject {
  object: KubeObject;
  warnings: Diagnostic[];
}

/**
 * Results kept per input object across calls, so an object shared by many environments is
 * transformed (and later serialised) once. Keyed inside by flavour, role and protection, so one
 * memo can serve calls with different options. Create one per build with `new WeakMap()`.
 */
export type GitopsMemo = WeakMap<KubeObject, Map<string, FlavouredObject>>;

/** Injected I/O and caches of {@link applyGitopsFlavour}; every field is optional. */
export interface GitopsDeps {
  /** Reads template files; default node:fs. Missing file → undefined. */
  read?: ReadTextFile;
  /** Bundled templates folder; default the package's `templates/`. */
  bundledTemplatesDir?: string;
  memo?: GitopsMemo;
}

/**
 * Annotates an environment's objects for `options.flavour` and returns the consumer files.
 * Throws SpecError `config` (missing Argo CD repoURL) or `template` (a template that is missing,
 * fails, or renders invalid YAML). Warnings: `gitops` for `${` literals, placeholder caBundles
 * without cert-manager injection, conflicting sync options, over-long Flux names.
 */
export function applyGitopsFlavour(
  env: RenderedEnvironment,
  options: GitopsOptions,
  deps: GitopsDeps = {},
): GitopsResult {
  const resolved = resolveGitopsOptions(options);
  const warnings: Diagnostic[] = [];
  const components = env.components.map((component): RenderedComponent => {
    const role = componentRole(component.name);
    let changed = false;
    const objects = component.objects.map((obj) => {
      const result = flavourObjectMemo(obj, role, resolved, deps.memo);
      warnings.push(...result.warnings);
      if (result.object !== obj) changed = true;
      return result.object;
    });
    return changed ? { name: component.name, objects } : component;
  });
  const environment: RenderedEnvironment = { name: env.name, components };

  const extra: [string, string][] = [];
  if (resolved.flavour === 'flux') {
    const flux = fluxExtraFiles(environment, resolved);
    extra.push(...flux.files);
    warnings.push(...flux.warnings);
  } else if (resolved.flavour === 'argocd') {
    const templates = {
      userDir: resolved.templatesDir,
      bundledDir: deps.bundledTemplatesDir ?? packagePath('bundled-templates'),
      read: deps.read ?? readTextFileSync,
    };
    const argocd = argocdApplicationFiles(environment, resolved, templates);
    extra.push(...argocd.files);
    warnings.push(...argocd.warnings);
  }
  extra.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return { environment, extraFiles: new Map(extra), warnings };
}

function flavourObjectMemo(
  obj: KubeObject,
  role: ComponentRole,
  options: ResolvedGitopsOptions,
  memo: GitopsMemo | undefined,
): FlavouredObject {
  if (!memo) return flavourObject(obj, role, options);
  const key = `${options.flavour}|${role}|${options.protect.crds}|${options.protect.namespaces}`;
  let perObject = memo.get(obj);
  if (!perObject) memo.set(obj, (perObject = new Map()));
  let result = perObject.get(key);
  if (!result) perObject.set(key, (result = flavourObject(obj, role, options)));
  return result;
}

/** Steps 1–3 for one object. */
function flavourObject(obj: KubeObject, role: ComponentRole, options: ResolvedGitopsOptions): FlavouredObject {
  const ca = stripPlaceholderCaBundles(obj);
  const guarded = guardSubstitutionLiterals(ca.object);
  const warnings = [...ca.warnings, ...guarded.warnings];
  if (options.flavour === 'argocd') {
    const argo = annotateForArgocd(guarded.object, role, options.protect);
    return { object: argo.object, warnings: [...warnings, ...argo.warnings] };
  }
  if (options.flavour === 'flux') return { object: annotateForFlux(guarded.object, options.protect), warnings };
  return { object: guarded.object, warnings };
}
