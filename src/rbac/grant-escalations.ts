/**
 * Grants that are worth more than they read as. Each check names one well-known path to further
 * privilege (Kubernetes "RBAC good practices", privilege escalation risks); the text says what the
 * grant allows, with its scope.
 */
import { formatResource } from './format-grants.js';
import type { RuleSummary } from './rbac-types.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'patch', 'update'];
const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** What `impersonate` applies to (the API server's impersonation filter). */
const IMPERSONABLE: [string, string][] = [
  ['', 'users'],
  ['', 'groups'],
  ['', 'serviceaccounts'],
  ['authentication.k8s.io', 'uids'],
  ['authentication.k8s.io', 'userextras'],
];
/** Kinds whose creation runs a pod, which may mount any ServiceAccount of its namespace. */
const WORKLOADS: Record<string, string[]> = {
  '': ['pods'],
  apps: ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
  batch: ['cronjobs', 'jobs'],
};

/**
 * The escalations in `lines`, granted in `namespace` ('' = cluster-wide), in check order. A
 * wildcard counts as every verb/resource/group it covers, so `*` also triggers the specific checks.
 */
export function findEscalations(lines: readonly RuleSummary[], namespace: string): string[] {
  const scope = namespace === '' ? 'cluster-wide' : `in ${namespace}`;
  const out: string[] = [];
  for (const l of lines) {
    const what = formatResource(l);
    if (l.group === '*') out.push(`every API group: ${what} ${scope}`);
    if (l.resource === '*')
      out.push(`every resource of ${l.group === '' ? 'the core group' : l.group}: ${l.verbs.join(', ')} ${scope}`);
    if (l.verbs.includes('*')) out.push(`every verb on ${what} ${scope}`);
    for (const verb of ['escalate', 'bind'])
      if (hasVerb(l, verb) && (on(l, RBAC_GROUP, 'roles') || on(l, RBAC_GROUP, 'clusterroles')))
        out.push(`${verb} ${what} ${scope}`);
    if (hasVerb(l, 'impersonate') && IMPERSONABLE.some(([g, r]) => on(l, g, r)))
      out.push(`impersonate ${what} ${scope}`);
  }
  const unnamed = lines.filter((l) => l.resourceNames.length === 0);
  if (namespace === '') {
    const secretRead = READ.filter((v) => unnamed.some((l) => on(l, '', 'secrets') && hasVerb(l, v)));
    if (secretRead.length > 0) out.push(`read secrets cluster-wide (${secretRead.join(', ')})`);
    if (secretRead.length > 0 && unnamed.some((l) => on(l, '', 'secrets') && hasVerb(l, 'create'))) {
      out.push(
        'create and read secrets cluster-wide: a kubernetes.io/service-account-token Secret yields a token of any ServiceAccount',
      );
    }
  }
  for (const [label, group, resource, verbs] of [
    ['mint ServiceAccount tokens', '', 'serviceaccounts/token', ['create']],
    ['exec into pods', '', 'pods/exec', ['create', 'get']],
    ['attach to pods', '', 'pods/attach', ['create', 'get']],
    ['proxy to kubelets', '', 'nodes/proxy', ['create', 'get']],
  ] as const) {
    if (unnamed.some((l) => on(l, group, resource) && verbs.some((v) => hasVerb(l, v)))) out.push(`${label} ${scope}`);
  }
  for (const [group, resources] of Object.entries(WORKLOADS)) {
    for (const resource of resources) {
      if (unnamed.some((l) => on(l, group, resource) && hasVerb(l, 'create')))
        out.push(`create ${resource} ${scope}: runs pods as any ServiceAccount there`);
    }
  }
  for (const resource of ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles']) {
    const verbs = WRITE.filter((v) => lines.some((l) => on(l, RBAC_GROUP, resource) && hasVerb(l, v)));
    if (verbs.length > 0) out.push(`write ${resource} (${verbs.join(', ')}) ${scope}`);
  }
  for (const resource of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    if (unnamed.some((l) => on(l, 'admissionregistration.k8s.io', resource) && WRITE.some((v) => hasVerb(l, v)))) {
      out.push(`write any ${resource} ${scope}: can intercept API requests`);
    }
  }
  return out;
}

function on(line: RuleSummary, group: string, resource: string): boolean {
  return (line.group === group || line.group === '*') && (line.resource === resource || line.resource === '*');
}

function hasVerb(line: RuleSummary, verb: string): boolean {
  return line.verbs.includes(verb) || line.verbs.includes('*');
}
