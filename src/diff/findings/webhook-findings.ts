/**
 * Safety findings for admission webhook configurations, per configuration and webhook name:
 * webhooks added (info), removed (warning: objects are no longer defaulted or validated by it) and
 * webhooks whose behaviour changed (failure policy, rules, selectors…), grouped per configuration.
 */
import { isJsonObject, type JsonObject, type KubeObject } from '../../manifest/object.js';
import { diffFields } from '../diff-fields.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { compareText } from '../util-compare.js';
import { makeFinding } from './make-finding.js';

const KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/**
 * Fields that change what a webhook does. The rest (clientConfig: service path, injected
 * caBundle) moves with every API version bump and is visible in the object diff.
 */
const BEHAVIOUR = [
  'admissionReviewVersions',
  'failurePolicy',
  'matchConditions',
  'matchPolicy',
  'namespaceSelector',
  'objectSelector',
  'reinvocationPolicy',
  'rules',
  'sideEffects',
  'timeoutSeconds',
];

/** The webhook findings of one object pair; none for other kinds. */
export function findWebhookFindings(pair: ObjectPair): Finding[] {
  const object = pair.after ?? pair.before;
  if (object === undefined || !KINDS.has(object.kind)) return [];
  const config = `${object.kind} ${String(isJsonObject(object.metadata) ? object.metadata.name : '')}`;
  const old = webhooksOf(pair.before);
  const now = webhooksOf(pair.after);
  const out: Finding[] = [];
  const changed: string[] = [];
  const changedNames: string[] = [];
  for (const name of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    const was = old.get(name);
    const is = now.get(name);
    if (was === undefined)
      out.push(
        makeFinding('info', 'webhook-added', pair, `webhook ${name} added to ${config}`, {
          details: describeRules(is),
          subjects: [name],
        }),
      );
    else if (is === undefined) {
      const message = `webhook ${name} removed from ${config}: the objects it matched are no longer ${verbOf(object.kind)} by it`;
      out.push(
        makeFinding('warning', 'webhook-removed', pair, message, { details: describeRules(was), subjects: [name] }),
      );
    } else {
      const fields = diffFields(pick(was), pick(is));
      if (fields.length > 0) changedNames.push(name);
      for (const field of fields)
        changed.push(`${name}: \`${field.path}\` \`${show(field.before)}\` → \`${show(field.after)}\``);
    }
  }
  if (changed.length > 0)
    out.push(
      makeFinding('info', 'webhook-changed', pair, `${config}: behaviour of existing webhooks changed`, {
        details: changed,
        subjects: changedNames,
      }),
    );
  return out;
}

function webhooksOf(object: KubeObject | undefined): Map<string, JsonObject> {
  const list = object !== undefined && Array.isArray(object.webhooks) ? object.webhooks : [];
  return new Map(list.filter(isJsonObject).flatMap((w) => (typeof w.name === 'string' ? [[w.name, w] as const] : [])));
}

function pick(webhook: JsonObject): JsonObject {
  return Object.fromEntries(BEHAVIOUR.filter((k) => k in webhook).map((k) => [k, webhook[k]!]));
}

/** `rules: CREATE,UPDATE clusters.cluster.x-k8s.io/v1beta2` lines, one per rule. */
function describeRules(webhook: JsonObject | undefined): string[] {
  const rules = webhook !== undefined && Array.isArray(webhook.rules) ? webhook.rules.filter(isJsonObject) : [];
  return rules.map((rule) => {
    const list = (key: string): string => (Array.isArray(rule[key]) ? (rule[key] as unknown[]).join(',') : '');
    const groups = list('apiGroups');
    return `rule: \`${list('operations')} ${list('resources')}${groups ? `.${groups}` : ''}/${list('apiVersions')}\``;
  });
}

function verbOf(kind: string): string {
  return kind === 'MutatingWebhookConfiguration' ? 'defaulted' : 'validated';
}

function show(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}
