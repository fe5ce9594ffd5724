/**
 * `spec.deployment` → Deployment fields, following cluster-api-operator `customizeDeploymentSpec`
 * and `customizeContainer` (internal/controller/component_customizer.go).
 *
 * List- and map-valued fields the operator assigns and then serialises with `omitempty`
 * (tolerations, imagePullSecrets, nodeSelector, command) disappear when given empty, which is how
 * an explicit `tolerations: []` clears the manifest's tolerations.
 */
import {
  cloneObject,
  getIn,
  isJsonObject,
  setIn,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '../manifest/object.js';
import type { ContainerSpec, DeploymentSpec } from '../declarations/provider-spec.js';
import { compareCodeUnits, setArg } from './container-args.js';
import { deploymentName, failCustomize, type CustomizeContext } from './customize-context.js';

/** Path of the pod spec inside a Deployment. */
export const POD_SPEC_PATH = ['spec', 'template', 'spec'] as const;

/**
 * Returns a new Deployment with `spec` applied (never mutates `deployment`): replicas and
 * affinity replace; nodeSelector, tolerations and imagePullSecrets replace (empty clears);
 * serviceAccountName replaces when non-empty; each `containers[i]` edits the container of that
 * name. Throws SpecError `customize` naming `<base>.deployment.containers[i].name` when no
 * container has that name.
 */
export function applyDeploymentSpec(deployment: KubeObject, spec: DeploymentSpec, ctx: CustomizeContext): KubeObject {
  const withReplicas =
    spec.replicas === undefined ? deployment : setIn(deployment, ['spec', 'replicas'], spec.replicas);
  const current = getIn(withReplicas, POD_SPEC_PATH);
  return setIn(withReplicas, POD_SPEC_PATH, applyToPodSpec(isJsonObject(current) ? current : {}, spec, ctx));
}

function applyToPodSpec(podSpec: JsonObject, spec: DeploymentSpec, ctx: CustomizeContext): JsonObject {
  const result: JsonObject = { ...podSpec };
  if (spec.affinity !== undefined) result.affinity = cloneObject(spec.affinity);
  replaceOrClear(result, 'nodeSelector', spec.nodeSelector);
  replaceOrClear(result, 'tolerations', spec.tolerations);
  if (spec.serviceAccountName !== undefined && spec.serviceAccountName !== '')
    result.serviceAccountName = spec.serviceAccountName;
  replaceOrClear(result, 'imagePullSecrets', spec.imagePullSecrets);

  const containerSpecs = spec.containers ?? [];
  if (containerSpecs.length > 0) {
    const containers: JsonValue[] = Array.isArray(podSpec.containers) ? [...podSpec.containers] : [];
    containerSpecs.forEach((containerSpec, i) => {
      const index = containers.findIndex((c) => isJsonObject(c) && c.name === containerSpec.name);
      const target = containers[index];
      if (!isJsonObject(target)) {
        failCustomize(
          ctx,
          `${ctx.base}.deployment.containers[${i}].name`,
          `no container named ${JSON.stringify(containerSpec.name)}`,
          `use one of: ${containerNames(containers).join(', ') || '(the pod has no containers)'}`,
          `cannot find container ${JSON.stringify(containerSpec.name)} in deployment ${JSON.stringify(deploymentName(ctx))}`,
        );
      }
      containers[index] = applyContainerSpec(target, containerSpec);
    });
    result.containers = containers;
  }
  return result;
}

/**
 * One container: args by the operator's setArgs (keys sorted, since the CR field is a Go map),
 * env replaces the first variable of the same name and appends the new one at the end,
 * resources/imageUrl replace, command replaces (empty clears).
 */
function applyContainerSpec(container: JsonObject, spec: ContainerSpec): JsonObject {
  const result: JsonObject = { ...container };
  const argSpec = spec.args ?? {};
  const keys = Object.keys(argSpec).sort(compareCodeUnits);
  if (keys.length > 0) {
    let args: JsonValue[] = Array.isArray(container.args) ? container.args : [];
    for (const key of keys) args = setArg(args, key, argSpec[key] ?? '');
    result.args = args;
  }
  if (spec.env !== undefined && spec.env.length > 0) {
    const env: JsonValue[] = Array.isArray(container.env) ? [...container.env] : [];
    for (const variable of spec.env) {
      const existing = env.findIndex((e) => isJsonObject(e) && e.name === variable.name);
      if (existing >= 0) env.splice(existing, 1);
      env.push(cloneObject(variable));
    }
    result.env = env;
  }
  if (spec.resources !== undefined) result.resources = cloneObject(spec.resources);
  if (spec.imageUrl !== undefined) result.image = spec.imageUrl;
  replaceOrClear(result, 'command', spec.command);
  return result;
}

/** Sets `target[key]` to a copy of `value`; an empty list or map removes the key (Go's omitempty). */
function replaceOrClear(target: JsonObject, key: string, value: JsonValue | undefined): void {
  if (value === undefined) return;
  const empty = Array.isArray(value) ? value.length === 0 : isJsonObject(value) && Object.keys(value).length === 0;
  if (empty) delete target[key];
  else target[key] = cloneObject(value);
}

function containerNames(containers: readonly JsonValue[]): string[] {
  return containers.flatMap((c) => (isJsonObject(c) && typeof c.name === 'string' ? [JSON.stringify(c.name)] : []));
}

/** `Deployment` objects, whatever their apiVersion, are what the operator customises. */
export function isDeployment(object: KubeObject): boolean {
  return object.kind === 'Deployment';
}
