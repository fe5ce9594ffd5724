/**
 * Findings for objects that disappear from a component. Argo CD and Flux prune what is no longer
 * in git, so a removed object is deleted from the cluster; for a CRD that deletes every object of
 * that type, for a Namespace everything in it.
 */
import { nameOf, type KubeObject } from '../../manifest/object.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { makeFinding } from './make-finding.js';

const KEEP = [
  'To keep it, exclude it from pruning: Argo CD annotation `argocd.argoproj.io/sync-options: Prune=false`, Flux annotation `kustomize.toolkit.fluxcd.io/prune: disabled`.',
];

/**
 * The finding for a pair that exists only before. `movedTo` is the component of the same
 * environment that has the object after, when there is one.
 */
export function findRemovalFindings(pair: ObjectPair, movedTo: string | undefined): Finding[] {
  const { before, after } = pair;
  if (before === undefined || after !== undefined) return [];
  if (movedTo !== undefined) {
    const severity = before.kind === 'CustomResourceDefinition' || before.kind === 'Namespace' ? 'danger' : 'warning';
    return [
      makeFinding(severity, 'object-moved', pair, `${pair.id} moves from component ${pair.component} to ${movedTo}`, {
        details: [
          `If ${pair.component} and ${movedTo} are synced separately, the first may prune the object before the second adopts it${severity === 'danger' ? ', which deletes what it contains' : ''}.`,
          'Sync the component that adds it first, or exclude the object from pruning for this change.',
        ],
        before: pair.component,
        after: movedTo,
      }),
    ];
  }
  if (before.kind === 'CustomResourceDefinition') return [crdRemoved(pair, before)];
  if (before.kind === 'Namespace') {
    return [
      makeFinding('danger', 'namespace-removed', pair, `Namespace ${nameOf(before)} will be pruned, deleting everything in it, including objects not rendered here (Secrets, certificates)`, {
        details: [`Check what lives there first: \`kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get -n ${nameOf(before)} --ignore-not-found --show-kind\``, ...KEEP],
      }),
    ];
  }
  return [makeFinding('warning', 'object-removed', pair, `${pair.id} is no longer rendered and will be pruned by Argo CD / Flux`)];
}

function crdRemoved(pair: ObjectPair, crd: KubeObject): Finding {
  const name = nameOf(crd);
  return makeFinding('danger', 'crd-removed', pair, `CRD ${name} is no longer rendered: pruning it deletes every ${name} object in the cluster`, {
    details: [
      `Count what would be deleted: \`kubectl get ${name} -A --no-headers | wc -l\``,
      `If the objects must survive, back them up (\`kubectl get ${name} -A -o yaml\`) and keep the CRD installed.`,
      ...KEEP,
    ],
  });
}
