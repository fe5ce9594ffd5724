/**
 * The applier's identity and behaviour with every default filled in, and the per-object opt-outs
 * from deletion each applier honours.
 */
import { SpecError, error } from '../errors.js';
import { annotationsOf, type KubeObject } from '../manifest/object.js';
import type { ApplierRbacOptions, ServiceAccountRef } from './rbac-types.js';

/** {@link ApplierRbacOptions} with defaults applied. */
export interface ResolvedApplier {
  kind: 'argocd' | 'flux' | 'serviceAccount';
  serviceAccount: ServiceAccountRef;
  prune: boolean;
  serverSideApply: boolean;
  watch: boolean;
  healthChecks: boolean;
  roleName: string;
}

export const DEFAULT_ROLE_NAME = 'capi-render-applier';

/** The ServiceAccounts of a default install: argo-cd `manifests/install.yaml`, flux2 `manifests/rbac`. */
const KNOWN_APPLIERS: Record<'argocd' | 'flux', ServiceAccountRef> = {
  argocd: { name: 'argocd-application-controller', namespace: 'argocd' },
  flux: { name: 'kustomize-controller', namespace: 'flux-system' },
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Fills in the defaults; throws a SpecError (code `rbac`) for an unusable name. */
export function resolveApplierOptions(options: ApplierRbacOptions): ResolvedApplier {
  const kind = typeof options.applier === 'string' ? options.applier : 'serviceAccount';
  const serviceAccount =
    typeof options.applier === 'string' ? KNOWN_APPLIERS[options.applier] : options.applier.serviceAccount;
  if (serviceAccount === undefined)
    throw new SpecError(
      error('rbac', `unknown applier ${JSON.stringify(options.applier)}`, {
        hint: "use 'argocd', 'flux' or { serviceAccount: { name, namespace } }",
      }),
    );
  const roleName = options.roleName ?? DEFAULT_ROLE_NAME;
  if (!DNS_SUBDOMAIN.test(serviceAccount.name) || !DNS_LABEL.test(serviceAccount.namespace)) {
    throw new SpecError(
      error('rbac', `applier ServiceAccount ${serviceAccount.namespace}/${serviceAccount.name} is not a valid name`, {
        field: 'applier.serviceAccount',
      }),
    );
  }
  if (!DNS_SUBDOMAIN.test(roleName)) {
    throw new SpecError(
      error('rbac', `role name ${JSON.stringify(roleName)} is not a valid Kubernetes object name`, {
        field: 'roleName',
      }),
    );
  }
  return {
    kind,
    serviceAccount: { name: serviceAccount.name, namespace: serviceAccount.namespace },
    prune: options.prune ?? true,
    serverSideApply: options.serverSideApply ?? true,
    // Flux reads each applied object by name (fluxcd/pkg ssa, and kstatus with its direct cluster
    // reader, the default since kustomize-controller v1.2); Argo CD's cluster cache lists and
    // watches every kind cluster-wide. For an unknown applier we grant what a caching one needs.
    watch: options.watch ?? kind !== 'flux',
    healthChecks: options.healthChecks ?? kind === 'flux',
    roleName,
  };
}

/**
 * True when the applier never deletes `object`, so it needs no delete permission on it: Argo CD with
 * both `Prune=false` and `Delete=false` in `argocd.argoproj.io/sync-options` (Prune alone still
 * deletes on Application deletion), Flux with `kustomize.toolkit.fluxcd.io/prune: disabled` (which
 * covers both garbage collection and Kustomization deletion). An explicit ServiceAccount's applier
 * is unknown, so neither annotation is trusted for it.
 */
export function isNeverDeleted(applier: ResolvedApplier, object: KubeObject): boolean {
  const annotations = annotationsOf(object);
  if (applier.kind === 'argocd') {
    const options = (annotations['argocd.argoproj.io/sync-options'] ?? '').split(',').map((o) => o.trim());
    return options.includes('Prune=false') && options.includes('Delete=false');
  }
  if (applier.kind === 'flux') return annotations['kustomize.toolkit.fluxcd.io/prune'] === 'disabled';
  return false;
}
