/**
 * Findings for objects that disappear from a component. Argo CD and Flux prune what is no longer
 * in git, so a removed object is deleted from the cluster — for a CRD every object of that type,
 * for a Namespace everything in it — unless the object carries the applier's prune protection
 * (see prune-protection.ts), which capi-render puts on CRDs and Namespaces by default: then it is
 * left behind, and the finding says so instead of predicting a deletion that will not happen.
 */
import { nameOf, type KubeObject } from '../../manifest/object.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { makeFinding } from './make-finding.js';
import { describeProtection, isLeftBehind, pruneProtection, type PruneProtection } from './prune-protection.js';

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
  const protection = pruneProtection(before);
  if (movedTo !== undefined) return [moved(pair, before, movedTo, protection)];
  if (before.kind === 'CustomResourceDefinition')
    return [isLeftBehind(protection) ? crdLeftBehind(pair, before, protection) : crdRemoved(pair, before)];
  if (before.kind === 'Namespace') return [namespaceRemoved(pair, before, protection)];
  if (isLeftBehind(protection)) {
    return [
      makeFinding(
        'info',
        'object-removed',
        pair,
        `${pair.id} is no longer rendered, but it is left behind: ${describeProtection(protection)}`,
        { details: appDeletionNote(protection, 'it') },
      ),
    ];
  }
  return [
    makeFinding(
      'warning',
      'object-removed',
      pair,
      `${pair.id} is no longer rendered and will be pruned by Argo CD / Flux`,
    ),
  ];
}

function moved(pair: ObjectPair, before: KubeObject, movedTo: string, protection: PruneProtection): Finding {
  const facts = { before: pair.component, after: movedTo };
  if (isLeftBehind(protection)) {
    return makeFinding(
      'info',
      'object-moved',
      pair,
      `${pair.id} moves from component ${pair.component} to ${movedTo}`,
      {
        ...facts,
        details: [
          `${pair.component} does not prune it (${describeProtection(protection)}), so ${movedTo} takes it over when it syncs.`,
        ],
      },
    );
  }
  const severity = before.kind === 'CustomResourceDefinition' || before.kind === 'Namespace' ? 'danger' : 'warning';
  return makeFinding(
    severity,
    'object-moved',
    pair,
    `${pair.id} moves from component ${pair.component} to ${movedTo}`,
    {
      ...facts,
      details: [
        `If ${pair.component} and ${movedTo} are synced separately, the first may prune the object before the second adopts it${severity === 'danger' ? ', which deletes what it contains' : ''}.`,
        'Sync the component that adds it first, or exclude the object from pruning for this change.',
      ],
    },
  );
}

function crdRemoved(pair: ObjectPair, crd: KubeObject): Finding {
  const name = nameOf(crd);
  return makeFinding(
    'danger',
    'crd-removed',
    pair,
    `CRD ${name} is no longer rendered: pruning it deletes every ${name} object in the cluster`,
    {
      details: [
        `Count what would be deleted: \`kubectl get ${name} -A --no-headers | wc -l\``,
        `If the objects must survive, back them up (\`kubectl get ${name} -A -o yaml\`) and keep the CRD installed.`,
        ...KEEP,
      ],
    },
  );
}

/** A protected CRD stays, with its objects, but nothing updates it any more. */
function crdLeftBehind(pair: ObjectPair, crd: KubeObject, protection: PruneProtection): Finding {
  const name = nameOf(crd);
  return makeFinding(
    'warning',
    'crd-removed',
    pair,
    `CRD ${name} is no longer rendered, but it is left behind, not deleted: ${describeProtection(protection)}, and its objects survive`,
    {
      details: [
        'Nothing manages it from now on: later upgrades do not update its schema, versions or conversion webhook.',
        ...(protection.argocd
          ? ['Argo CD shows the Application OutOfSync (the CRD requires pruning) until the CRD is deleted by hand.']
          : []),
        ...appDeletionNote(protection, `the CRD and every ${name} object`),
        `When its objects are no longer needed: count them (\`kubectl get ${name} -A --no-headers | wc -l\`), then \`kubectl delete crd ${name}\` deletes the CRD and all of them.`,
      ],
    },
  );
}

function namespaceRemoved(pair: ObjectPair, ns: KubeObject, protection: PruneProtection): Finding {
  const name = nameOf(ns);
  const inspect = (when: string) =>
    `Check what lives there${when}: \`kubectl api-resources --verbs=list --namespaced -o name | xargs -n1 kubectl get -n ${name} --ignore-not-found --show-kind\``;
  if (isLeftBehind(protection)) {
    return makeFinding(
      'warning',
      'namespace-removed',
      pair,
      `Namespace ${name} is no longer rendered, but it is left behind with everything in it: ${describeProtection(protection)}`,
      {
        details: [
          ...appDeletionNote(protection, 'the Namespace and everything in it'),
          inspect(''),
          `Delete it by hand when it is no longer needed: \`kubectl delete namespace ${name}\`.`,
        ],
      },
    );
  }
  return makeFinding(
    'danger',
    'namespace-removed',
    pair,
    `Namespace ${name} will be pruned, deleting everything in it, including objects not rendered here (Secrets, certificates)`,
    {
      details: [inspect(' first'), ...KEEP],
    },
  );
}

/** Argo CD with Prune=false but without Delete=false still deletes the object with the Application. */
function appDeletionNote(protection: PruneProtection, what: string): string[] {
  return protection.argocd === 'kept-until-app-deleted'
    ? [`\`Delete=false\` is not set: deleting the Argo CD Application still deletes ${what}.`]
    : [];
}
