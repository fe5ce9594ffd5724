/**
 * Kubernetes `metav1.LabelSelector` matching (matchLabels AND every matchExpression), as the
 * operator's ConfigMap lookup uses it. An empty selector matches everything, like the API server.
 */
import type { LabelSelector } from '../declarations/provider-spec.js';

export function matchesLabelSelector(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const expr of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, expr.key);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
        if (!has || !values.includes(labels[expr.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[expr.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The selector in `key=value,key in (a,b)` form, for messages. */
export function formatLabelSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(',') || '<everything>';
}
