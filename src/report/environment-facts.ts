/**
 * One environment's section of the report: where it is delivered (delivery.ts), what it installs
 * (object counts by kind, CRDs with their served and storage versions, the images it pulls), the
 * least-privilege role its GitOps
 * applier needs (the `rbac` command's computation, for the flavour's applier) and what its upgrade
 * plan says can move. Pure: everything comes from the render and the plan.
 */
import { formatCount } from '../count-phrase.js';
import { compareText } from '../diff/util-compare.js';
import { crdVersions } from '../diff/findings/crd-versions.js';
import { resolveGitopsOptions } from '../gitops/options.js';
import { nameOf } from '../manifest/object.js';
import { listImages } from '../process/image-overrides.js';
import { computeApplierRbac } from '../rbac/compute-applier-rbac.js';
import type { PolicyRule } from '../rbac/rbac-types.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import type { EnvironmentUpgradePlan } from '../upgrade/plan.js';
import { DEFAULT_ENVIRONMENT } from '../overlay/discover-environments.js';
import { buildDelivery, type DeliverySettings } from './delivery.js';
import type { EnvironmentModel, RbacModel } from './report-model.js';
import { FLAVOUR_TITLES, environmentAnchor, toRichText, type Flavour } from './util-report.js';

/** The section of one rendered environment. */
export function buildEnvironmentFacts(
  result: EnvironmentResult,
  plan: EnvironmentUpgradePlan | undefined,
  delivery?: DeliverySettings,
): EnvironmentModel {
  const env = result.environment;
  const flavour: Flavour = result.gitopsFlavour ?? 'kustomize';
  const objects = env.components.flatMap((c) => c.objects);
  const kinds = new Map<string, number>();
  for (const o of objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
  const images = new Map<string, Set<string>>();
  for (const c of env.components)
    for (const image of listImages(c.objects)) images.set(image, (images.get(image) ?? new Set()).add(c.name));
  const crds = env.components.flatMap((c) =>
    c.objects
      .filter((o) => o.kind === 'CustomResourceDefinition')
      .map((o) => ({
        name: nameOf(o),
        component: c.name,
        versions: crdVersions(o).map((v) => ({
          ...v,
          flags: [
            v.served ? 'served' : 'not served',
            ...(v.storage ? ['storage'] : []),
            ...(v.deprecated ? ['deprecated'] : []),
          ].join(', '),
        })),
      })),
  );
  return {
    name: env.name,
    anchor: environmentAnchor(env.name),
    flavour,
    flavourTitle: FLAVOUR_TITLES[flavour],
    labels: Object.entries(result.labels ?? {})
      .sort(([a], [b]) => compareText(a, b))
      .map(([key, value]) => ({ key, value })),
    core: plan ? `${plan.core.provider} ${plan.core.version} (contract ${plan.core.contract})` : '',
    objectTotal: objects.length,
    objectTotalPhrase: formatCount(objects.length, 'object'),
    kinds: [...kinds].sort(([a], [b]) => compareText(a, b)).map(([kind, count]) => ({ kind, count })),
    crds: crds.sort((a, b) => compareText(a.name, b.name)),
    images: [...images]
      .sort(([a], [b]) => compareText(a, b))
      .map(([image, components]) => ({ image, components: [...components].sort(compareText).join(', ') })),
    movedTags: (plan?.images ?? [])
      .filter((i) => i.moved)
      .map((i) => ({ image: i.image, locked: i.locked, current: i.current! })),
    // Without the settings (a caller that has only the render), the flavour's defaults.
    delivery: buildDelivery(
      env.name,
      delivery ?? { options: resolveGitopsOptions({ flavour }), outputDir: 'rendered' },
    ),
    rbac: applierRbac(result, flavour),
    plans: (plan?.contracts ?? []).map((c) => ({
      contract: c.contract,
      current: c.current,
      status: c.status === 'up-to-date' ? 'up to date' : c.status,
      command:
        c.status === 'available'
          ? `capi-render upgrade${env.name === DEFAULT_ENVIRONMENT ? '' : ` --env ${env.name}`} --contract ${c.contract}`
          : '',
      blockers: c.blockers.map((b) => b.message),
      steps: c.steps.filter((s) => s.to !== null).map((s) => `${s.label} ${s.from} → ${s.to}`),
    })),
  };
}

/** The role the flavour's applier needs; plain kustomize output is shown for Argo CD's, the stricter (watching) case. */
function applierRbac(result: EnvironmentResult, flavour: Flavour): RbacModel {
  const applier = flavour === 'flux' ? 'flux' : 'argocd';
  const components = result.environment.components.map((c) => ({ name: c.name, objects: [...c.objects] }));
  const rbac = computeApplierRbac(components, { applier });
  const rules = (kind: string, namespace?: string) =>
    rbac.objects
      .filter(
        (o) =>
          o.kind === kind &&
          (namespace === undefined || (o.metadata as { namespace?: string }).namespace === namespace),
      )
      .flatMap((o) => ((o as { rules?: PolicyRule[] }).rules ?? []).map(describeRule));
  const namespaces = rbac.objects
    .filter((o) => o.kind === 'Role')
    .map((o) => String((o.metadata as { namespace?: string }).namespace ?? ''));
  return {
    applier:
      applier === 'flux'
        ? 'Flux: ServiceAccount flux-system/kustomize-controller'
        : 'Argo CD: ServiceAccount argocd/argocd-application-controller',
    applierNote: toRichText(
      flavour === 'kustomize'
        ? `The output is plain kustomize; shown for Argo CD (it also lists and watches). \`capi-render rbac --env ${result.environment.name} --applier …\` computes it for another applier.`
        : `The ${FLAVOUR_TITLES[flavour]} flavour's applier. \`capi-render rbac --env ${result.environment.name}\` prints the role to apply.`,
    ),
    clusterRules: rules('ClusterRole'),
    clusterRulesPhrase: formatCount(rules('ClusterRole').length, 'rule'),
    namespaces: namespaces.sort(compareText).map((namespace) => {
      const namespaced = rules('Role', namespace);
      return { namespace, rules: namespaced, rulesPhrase: formatCount(namespaced.length, 'rule') };
    }),
    notes: rbac.notes,
    grants: rbac.grants.map((g) => ({
      component: g.component,
      subjects: g.subjects.join(', ') || 'no subjects',
      clusterScoped: g.clusterScoped.length,
      namespaced: g.namespaced.reduce((n, x) => n + x.rules.length, 0),
      escalations: g.escalations,
    })),
  };
}

/** `get, patch: customresourcedefinitions.apiextensions.k8s.io (14 names)`. */
function describeRule(rule: PolicyRule): string {
  const targets =
    rule.nonResourceURLs ??
    (rule.resources ?? []).flatMap((r) =>
      (rule.apiGroups ?? ['']).map((g) =>
        g === '' ? r : `${r.split('/')[0]}.${g}${r.includes('/') ? r.slice(r.indexOf('/')) : ''}`,
      ),
    );
  const names = rule.resourceNames?.length
    ? ` (${rule.resourceNames.length === 1 ? `name ${rule.resourceNames[0]}` : formatCount(rule.resourceNames.length, 'name')})`
    : '';
  return `${rule.verbs.join(', ')}: ${targets.join(', ')}${names}`;
}
