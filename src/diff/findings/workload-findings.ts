/**
 * Safety findings for controller workloads (Deployment, DaemonSet, StatefulSet) present on both
 * sides: image changes per container, argument changes and feature gates gate by gate. An image
 * pulled from another registry host is a warning: a site that mirrors images or allows only some
 * registries must take the new host in before the sync, or the pod cannot pull it.
 */
import { getIn, isJsonObject, type JsonObject, type KubeObject } from '../../manifest/object.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { diffArgs, diffFeatureGates } from './container-args.js';
import { registryHost } from './image-host.js';
import { makeFinding } from './make-finding.js';

const WORKLOADS = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

/** Image, argument and feature-gate findings of one object pair, per container in pod-spec order. */
export function findWorkloadFindings(pair: ObjectPair): Finding[] {
  const { before, after } = pair;
  if (before === undefined || after === undefined || !WORKLOADS.has(after.kind)) return [];
  const old = containersOf(before);
  const out: Finding[] = [];
  for (const [name, container] of containersOf(after)) {
    const was = old.get(name);
    const image = typeof container.image === 'string' ? container.image : '(none)';
    if (was === undefined) {
      out.push(
        makeFinding('info', 'image-changed', pair, `new container ${name}: ${image}`, {
          subjects: [name],
          after: image,
        }),
      );
      continue;
    }
    const previous = typeof was.image === 'string' ? was.image : '(none)';
    if (previous !== image) out.push(imageChanged(pair, name, previous, image));
    const args = diffArgs(stringsOf(was.args), stringsOf(container.args));
    if (args.length > 0)
      out.push(
        makeFinding('info', 'args-changed', pair, `container ${name}: arguments changed`, {
          details: args,
          subjects: [name],
        }),
      );
    const gates = diffFeatureGates(stringsOf(was.args), stringsOf(container.args));
    if (gates.length > 0) {
      const severity = gates.some((g) => g.significant) ? 'warning' : 'info';
      out.push(
        makeFinding(severity, 'feature-gates-changed', pair, `container ${name}: feature gates changed`, {
          details: gates.map((g) => g.line),
          subjects: [name],
        }),
      );
    }
  }
  return out;
}

/** `info` for a new tag or digest; `warning` with what to do when the registry host changes. */
function imageChanged(pair: ObjectPair, container: string, previous: string, image: string): Finding {
  const facts = { subjects: [container], before: previous, after: image };
  const message = `container ${container}: ${previous} → ${image}`;
  const from = registryHost(previous);
  const to = registryHost(image);
  if (from === undefined || to === undefined || from === to)
    return makeFinding('info', 'image-changed', pair, message, facts);
  return makeFinding('warning', 'image-changed', pair, message, {
    ...facts,
    details: [
      `The image moves from registry ${from} to ${to}: the cluster's nodes pull from ${to} after the sync.`,
      `An air-gapped site must mirror it from ${to} first (\`capi-render mirror --images\`, then an \`images:\` override that points the environment at the mirror); a site that allows only some registries (firewall, proxy, an admission policy) must allow ${to}, or the new pod cannot pull it and the rollout of ${pair.component} does not complete.`,
    ],
  });
}

/** Init containers then containers, by name (names are unique within a pod). */
function containersOf(workload: KubeObject): Map<string, JsonObject> {
  const spec = getIn(workload, ['spec', 'template', 'spec']);
  const out = new Map<string, JsonObject>();
  for (const key of ['initContainers', 'containers']) {
    const list = isJsonObject(spec) && Array.isArray(spec[key]) ? spec[key] : [];
    for (const c of list) if (isJsonObject(c) && typeof c.name === 'string') out.set(c.name, c);
  }
  return out;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
