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
import type { Command } from '../command.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

export const rbacCommand: Command = {
  name: 'rbac',
  summary:
    "print the least-privilege role the GitOps applier needs for an environment's output, and what each provider grants",
  usage:
    '[--env NAME] [--applier argocd|flux|NAMESPACE/SERVICEACCOUNT] [--client-side-apply] [--no-prune] [--no-health-checks] [--grants]',
  help: [
    ['--env NAME', 'the environment (required when there are several)'],
    [
      '--applier A',
      'who applies: argocd (default: argocd-application-controller in argocd), flux (kustomize-controller in flux-system), or NAMESPACE/NAME of a ServiceAccount',
    ],
    ['--client-side-apply', 'the applier uses client-side apply (needs create on any name, update)'],
    ['--no-prune', 'the applier never deletes (no delete permission)'],
    [
      '--no-health-checks',
      "Flux: the Kustomizations do not wait (no list/watch for kstatus health checks; capi-render's own set wait: true)",
    ],
    [
      '--grants',
      "print what each provider's own RBAC grants its controllers (cluster-scoped first) instead of the role",
    ],
    ['--offline', RENDER_FLAG_HELP.find(([f]) => f === '--offline')![1]],
    ['--cache-dir DIR', RENDER_FLAG_HELP.find(([f]) => f.startsWith('--cache-dir'))![1]],
  ],
  options: {
    env: RENDER_FLAGS.env!,
    offline: RENDER_FLAGS.offline!,
    'cache-dir': RENDER_FLAGS['cache-dir']!,
    applier: { type: 'string' },
    'client-side-apply': { type: 'boolean' },
    'no-prune': { type: 'boolean' },
    'no-health-checks': { type: 'boolean' },
    grants: { type: 'boolean' },
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
      applier: parseApplier(values.applier as string | undefined),
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
};

function parseApplier(value: string | undefined): ApplierRbacOptions['applier'] {
  if (value === undefined || value === 'argocd' || value === 'flux') return value ?? 'argocd';
  const m = /^([^/]+)\/([^/]+)$/.exec(value);
  if (!m) throw new UsageError('--applier is argocd, flux or NAMESPACE/SERVICEACCOUNT');
  return { serviceAccount: { namespace: m[1]!, name: m[2]! } };
}
