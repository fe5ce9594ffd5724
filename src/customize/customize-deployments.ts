/**
 * The provider CR's `deployment`, `manager` and `additionalDeployments` applied to a provider's
 * Deployments, as cluster-api-operator `customizeObjectsFn` does (internal/controller/
 * component_customizer.go). Dropping Namespaces and adding ownerReferences, the operator's other
 * per-object steps, are not done here.
 *
 * Image precedence: `containers[].imageUrl` is applied here; the operator's second, operator-wide
 * `images` pass (see process/image-overrides.ts, mode `tolerant`) runs after customisation and
 * patches, so an `images.all.repository` in the operator's clusterctl.yaml overrides even imageUrl.
 */
import { isDeepStrictEqual } from 'node:util';
import { throwIfErrors, type Diagnostic } from '../errors.js';
import { describeObject, getIn, isJsonObject, nameOf, setIn, type KubeObject } from '../manifest/object.js';
import type { AdditionalDeployment, DeploymentSpec, ManagerSpec } from '../declarations/provider-spec.js';
import { applyDeploymentSpec, isDeployment, POD_SPEC_PATH } from './apply-deployment-spec.js';
import { applyManagerSpec, findManagerContainer } from './apply-manager-spec.js';
import { checkManagerSpec } from './check-manager-spec.js';
import { customizeDiagnostic, deploymentName, failCustomize, type CustomizeContext } from './customize-context.js';

/** The customisation fields of one provider CR. */
export interface ProviderCustomization {
  /** e.g. `InfrastructureProvider/capd-system/docker`, for messages. */
  providerRef: string;
  deployment?: DeploymentSpec;
  manager?: ManagerSpec;
  additionalDeployments?: Record<string, AdditionalDeployment>;
}

/**
 * Applies `deployment` then `manager` (so manager flags win) to the provider's Deployments, and
 * `additionalDeployments[name]` to the others. With one Deployment it gets `deployment`/`manager`
 * whatever its name; with several, only those named `ca*-controller-manager` do, and any other is
 * customised only through `additionalDeployments[<its name>]`.
 *
 * Returns a new array: unchanged objects are the same references, changed Deployments are new
 * objects; inputs are never mutated. Throws SpecError `customize` naming the CR field and the
 * Deployment: for fields capi-render cannot render (all collected first), an unknown container,
 * a pod without containers under `manager`, an additionalArgs key that already has an argument,
 * and — stricter than the operator, which silently skips them — an `additionalDeployments` key
 * that names no Deployment or one that already takes `deployment`/`manager`, and a non-empty
 * `deployment`/`manager` that no Deployment would receive.
 */
export function customizeDeployments(objects: readonly KubeObject[], provider: ProviderCustomization): KubeObject[] {
  const customizer = deploymentCustomizer(objects, provider);
  return objects.map((object) => customizer.customize(object));
}

/** {@link customizeDeployments} in two halves: the checks over all objects, then one object at a time. */
export interface DeploymentCustomizer {
  customize(object: KubeObject): KubeObject;
}

/** Runs the checks of {@link customizeDeployments} (throwing as it does) and returns the per-object half. */
export function deploymentCustomizer(
  objects: readonly KubeObject[],
  provider: ProviderCustomization,
): DeploymentCustomizer {
  const names = objects.filter(isDeployment).map(nameOf);
  const several = names.length > 1;
  // The operator's stop-gap until CAPI has a contract for "the provider's manager Deployment".
  const takesMain = (name: string): boolean => !several || isManagerDeploymentName(name);
  const additional = provider.additionalDeployments ?? {};

  throwIfErrors([...checkBlocks(provider), ...checkTargets(provider, names, takesMain)]);

  return {
    customize(object) {
      if (!isDeployment(object)) return object;
      const name = nameOf(object);
      const entry = takesMain(name) ? { deployment: provider.deployment, manager: provider.manager } : additional[name];
      if (entry === undefined) return object;
      const base = takesMain(name) ? 'spec' : `spec.additionalDeployments.${name}`;
      const ctx: CustomizeContext = { providerRef: provider.providerRef, base, deployment: describeObject(object) };
      const customized = customizeDeployment(object, entry.deployment, entry.manager, ctx);
      return isDeepStrictEqual(customized, object) ? object : customized;
    },
  };
}

/** `ca*-controller-manager`, the operator's test for a provider's own manager Deployment. */
export function isManagerDeploymentName(name: string): boolean {
  return name.startsWith('ca') && name.endsWith('-controller-manager');
}

function customizeDeployment(
  deployment: KubeObject,
  spec: DeploymentSpec | undefined,
  manager: ManagerSpec | undefined,
  ctx: CustomizeContext,
): KubeObject {
  let result = spec === undefined ? deployment : applyDeploymentSpec(deployment, spec, ctx);
  if (manager === undefined) return result;
  const containersPath = [...POD_SPEC_PATH, 'containers'];
  const raw = getIn(result, containersPath);
  const containers = Array.isArray(raw) ? raw : [];
  const index = findManagerContainer(containers);
  const target = containers[index];
  if (!isJsonObject(target)) {
    failCustomize(
      ctx,
      `${ctx.base}.manager`,
      'the Deployment has no containers, so there is no manager container',
      'remove the manager block for this Deployment',
      `cannot find "manager" container in deployment ${JSON.stringify(deploymentName(ctx))}`,
    );
  }
  result = setIn(result, [...containersPath, index], applyManagerSpec(target, manager, ctx));
  return result;
}

/** Static checks of every manager block, collected. */
function checkBlocks(provider: ProviderCustomization): Diagnostic[] {
  const problems: Diagnostic[] = [];
  if (provider.manager !== undefined)
    problems.push(...checkManagerSpec(provider.providerRef, 'spec.manager', provider.manager));
  for (const [name, entry] of Object.entries(provider.additionalDeployments ?? {})) {
    if (entry.manager !== undefined)
      problems.push(
        ...checkManagerSpec(provider.providerRef, `spec.additionalDeployments.${name}.manager`, entry.manager),
      );
  }
  return problems;
}

/** Customisations that would reach no Deployment: the operator drops them silently, capi-render refuses. */
function checkTargets(
  provider: ProviderCustomization,
  names: readonly string[],
  takesMain: (name: string) => boolean,
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const ref = provider.providerRef;
  for (const key of Object.keys(provider.additionalDeployments ?? {}).sort()) {
    const field = `spec.additionalDeployments.${key}`;
    if (!names.includes(key)) {
      const known =
        names.length > 0
          ? `the provider's Deployments are ${names.map((n) => JSON.stringify(n)).join(', ')}`
          : 'the provider has no Deployments';
      problems.push(
        customizeDiagnostic(
          ref,
          field,
          `${field} names no Deployment of the provider`,
          `key it by a Deployment name; ${known}`,
        ),
      );
    } else if (takesMain(key)) {
      problems.push(
        customizeDiagnostic(
          ref,
          field,
          `${field}: Deployment ${JSON.stringify(key)} is the provider's manager and takes spec.deployment/spec.manager, so this entry would be ignored`,
          'move these settings to spec.deployment / spec.manager',
        ),
      );
    }
  }
  if (!names.some(takesMain)) {
    const why =
      names.length === 0
        ? 'the provider has no Deployments'
        : `none of the Deployments ${names.map((n) => JSON.stringify(n)).join(', ')} is named ca*-controller-manager`;
    for (const key of ['deployment', 'manager'] as const) {
      const block = provider[key];
      if (block !== undefined && Object.keys(block).length > 0) {
        problems.push(
          customizeDiagnostic(
            ref,
            `spec.${key}`,
            `spec.${key} would reach no Deployment: ${why}`,
            'customise them through spec.additionalDeployments.<deployment name>',
          ),
        );
      }
    }
  }
  return problems;
}
