/**
 * The removal guard. Argo CD and Flux prune what disappears from git, so a build that drops an
 * environment's providers, its CoreProvider, a CRD (pruning a CRD deletes every object of its kind)
 * or a whole environment would uninstall Cluster API from a management cluster on the next sync.
 * Such a build fails, naming what would go, unless the removal is deliberate (`--allow-removal`, or
 * an environment retired by deleting its overlay and its output folder together).
 *
 * Design notes: docs/internals.md "output/removal-guard.ts".
 */
import { error, type Diagnostic } from '../errors.js';
import { findRemovalFindings } from '../diff/findings/removal-findings.js';
import type { LockFile, LockedEnvironment } from '../lock/lock-types.js';
import type { CommittedEnvironment } from '../plan/committed-output.js';
import { isLeftBehind, pruneProtection } from '../diff/findings/prune-protection.js';
import type { KubeObject } from '../manifest/object.js';

export interface RemovalGuardInput {
  /** What each environment's committed output holds now; undefined when it has none. */
  committed: (env: string) => CommittedEnvironment | undefined;
  /** The lock the build would leave (what it renders, derived from the inputs). */
  next: LockFile;
  /** Environments rendered by this build. */
  rendered: readonly string[];
  /** Environments whose output this build would delete (they no longer exist). */
  retired: readonly string[];
  /** The folder each environment's output is in, for messages (e.g. `rendered/dev`). */
  outputOf: (env: string) => string;
  /** The CRD as the committed output holds it, when it is on disk: its annotations say whether Argo CD / Flux would prune it. */
  previousCrd?: (env: string, name: string) => KubeObject | undefined;
}

const HINT =
  'if this is what you want, run again with --allow-removal (and review what Argo CD / Flux will prune); otherwise fix the inputs';

/** Every removal that needs the user's say-so; empty when the build removes nothing that matters. */
export function removalProblems(input: RemovalGuardInput): Diagnostic[] {
  const out: Diagnostic[] = [];
  const rendered = new Set(input.rendered);
  for (const env of input.retired) {
    out.push(
      error(
        'removal',
        `environment ${env} no longer exists, but its output ${input.outputOf(env)} would be deleted: Argo CD / Flux would then uninstall everything it applied to that cluster`,
        {
          hint: `to retire the environment, delete ${input.outputOf(env)} together with its overlay (or pass --allow-removal); if the overlay was renamed or removed by mistake, restore it`,
        },
      ),
    );
  }
  for (const env of input.next.environments.filter((e) => rendered.has(e.name))) {
    const before = input.committed(env.name);
    if (providerCount(env) === 0) {
      // An emptied environment loses everything; this one error says it.
      if (!before || before.providers.length > 0) {
        out.push(
          error(
            'removal',
            `environment ${env.name} has no providers: its output (${input.outputOf(env.name)}) would be empty${before ? ', and Argo CD / Flux would uninstall Cluster API from that cluster' : ''}`,
            {
              hint: `check the resources and patches of its overlay and providers/; ${HINT}`,
            },
          ),
        );
      }
      continue;
    }
    if (!before) continue;
    const staying = new Set(env.providers.map((p) => p.provider));
    for (const gone of before.providers.filter(
      (p) => p.provider.startsWith('CoreProvider/') && !staying.has(p.provider),
    )) {
      out.push(
        error(
          'removal',
          `the build would remove ${gone.provider} (${gone.version}) from environment ${env.name}: without the core provider nothing of Cluster API keeps running there`,
          { hint: HINT },
        ),
      );
    }
    const kept = new Set(env.crds ?? []);
    const crdsGone = before.crds.filter((crd) => !kept.has(crd));
    if (crdsGone.length > 0)
      out.push(
        crdRemoval(
          env.name,
          crdsGone.map((name) => input.previousCrd?.(env.name, name) ?? crdStub(name)),
        ),
      );
  }
  return out;
}

/**
 * A lock's record of an environment as its committed output, for an environment that has none on
 * disk (a plugin renders it, nothing is committed): there the lock is the only record of what runs.
 */
export function committedFromLock(lock: LockFile): (env: string) => CommittedEnvironment | undefined {
  return (env) => {
    const entry = lock.environments.find((e) => e.name === env);
    if (!entry) return undefined;
    return {
      name: env,
      providers: entry.providers
        .filter((p) => p.provider.includes('/'))
        .map((p) => ({ provider: p.provider, version: p.version, file: 'capi-render.lock' })),
      crds: [...(entry.crds ?? [])],
    };
  };
}

/**
 * One CRD: the diff report's own finding (which knows prune protection); several: one line listing
 * them. A protected CRD still needs the say-so: left behind, nothing updates it any more, and its
 * conversion webhook may point at a service that is gone.
 */
function crdRemoval(env: string, crds: readonly KubeObject[]): Diagnostic {
  const names = crds.map((c) => String((c.metadata as { name?: unknown } | undefined)?.name));
  if (crds.length === 1) {
    const [finding] = findRemovalFindings(
      { env, component: '', id: `CustomResourceDefinition/${names[0]}`, before: crds[0]! },
      undefined,
    );
    return error('removal', `environment ${env}: ${finding!.message}`, {
      object: `CustomResourceDefinition/${names[0]}`,
      hint: `${finding!.details?.at(-1) ?? ''}; ${HINT}`,
    });
  }
  const shown = names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
  const protections = crds.map(pruneProtection);
  const appliers = [protections.every((p) => p.argocd) ? 'Argo CD' : '', protections.every((p) => p.flux) ? 'Flux' : '']
    .filter(Boolean)
    .join(' and ');
  const consequence = protections.every(isLeftBehind)
    ? `they carry prune protection, so ${appliers || 'Argo CD / Flux'} leave${appliers.includes(' and ') || !appliers ? '' : 's'} them and their objects in the cluster, unmanaged from then on`
    : 'pruning a CRD deletes every object of its kind in the cluster';
  return error(
    'removal',
    `environment ${env}: ${names.length} CRDs are no longer rendered (${shown}): ${consequence}`,
    {
      hint: `count the objects with \`kubectl get <crd> -A --no-headers | wc -l\` for each; ${HINT}`,
    },
  );
}

/** Provider CRs in a locked environment (cert-manager is not a provider). */
function providerCount(env: LockedEnvironment): number {
  return env.providers.filter((p) => p.provider.includes('/')).length;
}

function crdStub(name: string) {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } };
}
