/**
 * `capi-render rbac`: the least-privilege role the GitOps applier needs for exactly this output, and
 * what each provider's own RBAC grants its controllers.
 */
import { UsageError } from '../../errors.js';
import { joinDocuments, serializeObject } from '../../manifest/serialize.js';
import { computeApplierRbac } from '../../rbac/compute-applier-rbac.js';
import { verifyApplierRbac } from '../../rbac/verify-applier-rbac.js';
import { formatGrants } from '../../rbac/format-grants.js';
import type { ApplierRbacOptions } from '../../rbac/rbac-types.js';
import { render } from '../../render/render.js';
import { defineCommand } from '../command.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const rbacCommand = defineCommand({
  name: 'rbac',
  summary:
    "print the least-privilege role the GitOps applier needs for an environment's output, and what each provider grants",
  synopsis:
    '[--env NAME] [--applier argocd|flux|NAMESPACE/SERVICEACCOUNT] [--client-side-apply] [--no-prune] [--no-health-checks] [--grants]',
  options: {
    env: { ...RENDER_OPTIONS.env, help: 'the environment (required when there are several)' },
    applier: {
      type: 'string',
      value: 'A',
      help: 'who applies: argocd (default: argocd-application-controller in argocd), flux (kustomize-controller in flux-system), or NAMESPACE/NAME of a ServiceAccount',
    },
    'client-side-apply': {
      type: 'boolean',
      help: 'the applier uses client-side apply (needs create on any name, update)',
    },
    'no-prune': { type: 'boolean', help: 'the applier never deletes (no delete permission)' },
    'no-health-checks': {
      type: 'boolean',
      help: "Flux: the Kustomizations do not wait (no list/watch for kstatus health checks; capi-render's own set wait: true)",
    },
    grants: {
      type: 'boolean',
      help: "print what each provider's own RBAC grants its controllers (cluster-scoped first) instead of the role",
    },
    offline: RENDER_OPTIONS.offline,
    'cache-dir': RENDER_OPTIONS['cache-dir'],
  },
  async run(ctx) {
    const { io, values } = ctx;
    const prepared = await prepareRender(ctx);
    const result = await render(prepared.options).finally(() => prepared.settleCache());
    if (result.environments.length !== 1)
      throw new UsageError(`choose one environment with --env (${result.allEnvironments.join(', ')})`);
    const components = result.environments[0]!.environment.components.map((c) => ({
      name: c.name,
      objects: [...c.objects],
    }));
    const options: ApplierRbacOptions = {
      applier: parseApplier(values.applier),
      serverSideApply: !values['client-side-apply'],
      prune: !values['no-prune'],
      ...(values['no-health-checks'] ? { healthChecks: false } : {}),
    };
    const rbac = computeApplierRbac(components, options);
    if (values.grants) {
      io.stdout.write(formatGrants(rbac.grants));
      return 0;
    }
    const check = verifyApplierRbac(components, rbac, options);
    io.stdout.write(joinDocuments(rbac.objects.map((o) => serializeObject(o))));
    for (const note of rbac.notes) io.stderr.write(`note: ${note}\n`);
    io.stderr.write(
      `verified: every rendered object can be applied${options.prune ? ' and pruned' : ''}; ${check.missing.length} missing, ${check.extra.length} beyond what is needed\n`,
    );
    return check.missing.length === 0 && check.extra.length === 0 ? 0 : 1;
  },
});

function parseApplier(value: string | undefined): ApplierRbacOptions['applier'] {
  if (value === undefined || value === 'argocd' || value === 'flux') return value ?? 'argocd';
  const m = /^([^/]+)\/([^/]+)$/.exec(value);
  if (!m) throw new UsageError('--applier is argocd, flux or NAMESPACE/SERVICEACCOUNT');
  return { serviceAccount: { namespace: m[1]!, name: m[2]! } };
}
