/**
 * Plans a repository: render the current state (which validates the inputs and resolves the locked
 * versions and their sources), read the sources' versions and newest metadata, and plan every
 * rendered environment. Nothing is written.
 */
import { throwIfErrors, type Diagnostic } from '../errors.js';
import { render } from '../render/render.js';
import type { RenderOptions, RenderResult } from '../render/render-options.js';
import { CLUSTERCTL_CONTRACT } from '../resolve/select-version.js';
import { compatibleContracts } from '../source/metadata.js';
import { collectPlanProviders, type EnvironmentProviders } from './collect-versions.js';
import { planCertManager } from './cert-manager-plan.js';
import { planEnvironmentUpgrade, type EnvironmentUpgradePlan } from './plan.js';
import { checkMovedTags } from '../images/moved-tags.js';
import { registryForPolicy } from '../images/registry-policy.js';

/** The contracts a build renders: clusterctl's own (v1beta2) and those compatible with it (v1beta1). */
export const SUPPORTED_CONTRACTS: readonly string[] = compatibleContracts(CLUSTERCTL_CONTRACT);

/** The current render and the plans made from it. */
export interface RepositoryPlan {
  /** The render of the current inputs. */
  current: RenderResult;
  /** Per environment, the planner's view of each provider. */
  providers: EnvironmentProviders[];
  plans: EnvironmentUpgradePlan[];
}

/** Renders `options` in memory and plans each rendered environment; throws SpecError with every planning problem. */
export async function planRepository(options: RenderOptions): Promise<RepositoryPlan> {
  const current = await render(options);
  const providers = await collectPlanProviders(current.environments);
  const tags = await checkMovedTags(
    current.environments.map((e) => ({
      name: e.environment.name,
      pinnedImages: e.pinnedImages,
      ...(e.imageRegistries ? { imageRegistries: e.imageRegistries } : {}),
    })),
    {
      offline: options.offline ?? false,
      registry: (policy) =>
        registryForPolicy(policy, { env: options.env ?? {}, fetch: options.fetch as typeof fetch | undefined }),
    },
  );
  const problems: Diagnostic[] = [];
  const plans: EnvironmentUpgradePlan[] = [];
  for (const e of providers) {
    const planned = planEnvironmentUpgrade(e.environment, e.providers, SUPPORTED_CONTRACTS);
    problems.push(...planned.problems);
    if (planned.plan)
      plans.push({
        ...planned.plan,
        certManager: e.certManager ? planCertManager(e.certManager) : null,
        images: tags.get(e.environment) ?? [],
      });
  }
  throwIfErrors(problems);
  return { current, providers, plans };
}
