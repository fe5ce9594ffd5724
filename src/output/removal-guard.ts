/**
 * The removal guard. Argo CD and Flux prune what disappears from git, so a build that drops an
 * environment's providers, its CoreProvider, a CRD (pruning a CRD deletes every object of its kind)
 * or a whole environment would uninstall Cluster API from a management cluster on the next sync.
 * Such a build fails, naming what would go, unless the removal is deliberate (`--allow-removal`, or
 * an environment retired by deleting its overlay and its output folder together).
 *
 * What changed is read from the lock comparison `check` and `--frozen` use (lockChanges), and a CRD
 * removal is described by the diff report's own finding, so the guard and the report agree.
 */
import { error, type Diagnostic } from '../errors.js';
import { findRemovalFindings } from '../diff/findings/removal-findings.js';
import { lockChanges } from '../lock/next-lock.js';
import type { LockFile, LockedEnvironment } from '../lock/lock-types.js';
import { isLeftBehind, pruneProtection } from '../diff/findings/prune-protection.js';
import type { KubeObject } from '../manifest/object.js';

export interface RemovalGuardInput {
  /** The lock before the build. */
  previous: LockFile;
  /** The lock the build would leave. */
  next: LockFile;
  /** Environments rendered by this build. */
  rendered: readonly string[];
  /** Environments whose output this build would delete (they no longer exist). */
  retired: readonly string[];
  /** The folder each environment's output is in, for messages (e.g. `rendered/dev`). */
  outputOf: (env: string) => string;
  /** For environments the previous lock lists without CRDs (older capi-render): the CRDs on disk. */
  crdsOnDisk?: (env: string) => string[] | undefined;
  /** The CRD as the previous build rendered it, when it is on disk: its annotations say whether Argo CD / Flux would prune it. */
  previousCrd?: (env: string, name: string) => KubeObject | undefined;
}

const HINT = 'if this is what you want, run again with --allow-removal (and review what Argo CD / Flux will prune); otherwise fix the inputs';

/** Every removal that needs the user's say-so; empty when the build removes nothing that matters. */
export function removalProblems(input: RemovalGuardInput): Diagnostic[] {
  const { previous, next } = input;
  const out: Diagnostic[] = [];
  const rendered = new Set(input.rendered);
  for (const env of input.retired) {
    out.push(
      error('removal', `environment ${env} no longer exists, but its output ${input.outputOf(env)} would be deleted: Argo CD / Flux would then uninstall everything it applied to that cluster`, {
        hint: `to retire the environment, delete ${input.outputOf(env)} together with its overlay (or pass --allow-removal); if the overlay was renamed or removed by mistake, restore it`,
      }),
    );
  }
  const emptied = new Set<string>();
  for (const env of next.environments.filter((e) => rendered.has(e.name))) {
    const before = previous.environments.find((e) => e.name === env.name);
    if (providerCount(env) === 0 && (!before || providerCount(before) > 0)) {
      emptied.add(env.name);
      out.push(
        error('removal', `environment ${env.name} has no providers: its output (${input.outputOf(env.name)}) would be empty${before ? ', and Argo CD / Flux would uninstall Cluster API from that cluster' : ''}`, {
          hint: `check the resources and patches of its overlay and providers/; ${HINT}`,
        }),
      );
    }
  }
  const crdsGone = new Map<string, string[]>();
  for (const change of lockChanges(withCrdsOnDisk(previous, input), next)) {
    // An emptied environment loses everything; that one error says it.
    if (!('env' in change) || !rendered.has(change.env) || emptied.has(change.env)) continue;
    if (change.kind === 'provider-removed' && change.provider.startsWith('CoreProvider/')) {
      out.push(error('removal', `the build would remove ${change.provider} (${change.version}) from environment ${change.env}: without the core provider nothing of Cluster API keeps running there`, { hint: HINT }));
    }
    if (change.kind === 'crd-removed') crdsGone.set(change.env, [...(crdsGone.get(change.env) ?? []), change.crd]);
  }
  for (const [env, crds] of crdsGone) out.push(crdRemoval(env, crds.map((name) => input.previousCrd?.(env, name) ?? crdStub(name))));
  return out;
}

/**
 * One CRD: the diff report's own finding (which knows prune protection); several: one line listing
 * them. A protected CRD still needs the say-so: left behind, nothing updates it any more, and its
 * conversion webhook may point at a service that is gone.
 */
function crdRemoval(env: string, crds: readonly KubeObject[]): Diagnostic {
  const names = crds.map((c) => String((c.metadata as { name?: unknown } | undefined)?.name));
  if (crds.length === 1) {
    const [finding] = findRemovalFindings({ env, component: '', id: `CustomResourceDefinition/${names[0]}`, before: crds[0]! }, undefined);
    return error('removal', `environment ${env}: ${finding!.message}`, { object: `CustomResourceDefinition/${names[0]}`, hint: `${finding!.details?.at(-1) ?? ''}; ${HINT}` });
  }
  const shown = names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
  const protections = crds.map(pruneProtection);
  const appliers = [protections.every((p) => p.argocd) ? 'Argo CD' : '', protections.every((p) => p.flux) ? 'Flux' : ''].filter(Boolean).join(' and ');
  const consequence = protections.every(isLeftBehind)
    ? `they carry prune protection, so ${appliers || 'Argo CD / Flux'} leave${appliers.includes(' and ') || !appliers ? '' : 's'} them and their objects in the cluster, unmanaged from then on`
    : 'pruning a CRD deletes every object of its kind in the cluster';
  return error('removal', `environment ${env}: ${names.length} CRDs are no longer rendered (${shown}): ${consequence}`, {
    hint: `count the objects with \`kubectl get <crd> -A --no-headers | wc -l\` for each; ${HINT}`,
  });
}

/** Provider CRs in a locked environment (cert-manager is not a provider). */
function providerCount(env: LockedEnvironment): number {
  return env.providers.filter((p) => p.provider.includes('/')).length;
}

/** The previous lock with CRDs filled in from disk where it did not record them. */
function withCrdsOnDisk(previous: LockFile, input: RemovalGuardInput): LockFile {
  if (!input.crdsOnDisk) return previous;
  return {
    ...previous,
    environments: previous.environments.map((e) => {
      if (e.crds) return e;
      const crds = input.crdsOnDisk!(e.name);
      return crds ? { ...e, crds } : e;
    }),
  };
}

function crdStub(name: string) {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } };
}
