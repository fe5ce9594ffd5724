/**
 * `spec.manager` → manager-container flags, following cluster-api-operator
 * `customizeManagerContainer` (internal/controller/component_customizer.go) field by field and in
 * its code order. Where the operator ranges over a Go map (random order) the keys are sorted.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../manifest/object.js';
import type { LeaderElectionConfiguration, ManagerSpec } from '../declarations/provider-spec.js';
import { compareCodeUnits, formatFeatureGates, hasArg, parseFeatureGates, setArg } from './container-args.js';
import { failCustomize, type CustomizeContext } from './customize-context.js';
import { parseGoDuration, roundToWholeSeconds } from './go-duration.js';

/** The CRD default of `verbosity`; the operator writes `--v` only for other values. */
const DEFAULT_VERBOSITY = 1;

/**
 * The container `spec.manager` applies to: the one named `manager`, else the first (the
 * operator's fallback for providers that name it otherwise, cluster-api-operator#787). Returns
 * its index, or -1 when the pod has no containers.
 */
export function findManagerContainer(containers: readonly JsonValue[]): number {
  const named = containers.findIndex((c) => isJsonObject(c) && c.name === 'manager');
  return named >= 0 ? named : containers.length > 0 ? 0 : -1;
}

/**
 * Returns a new container with `spec` applied. Flags, in order: `--<kind>-concurrency`,
 * `--max-concurrent-reconciles`, `--namespace`, `--health-addr`, `--metrics-bind-addr`,
 * `--diagnostics-address`, `--webhook-host`, `--webhook-cert-dir`, `--profiler-address`, then the
 * probe paths, `--leader-elect…`, `--insecure-diagnostics=true`, `--webhook-port`,
 * `--sync-period`, `--v`, `--feature-gates` (merged with the manifest's, sorted) and finally
 * `additionalArgs` (sorted by key). Each flag replaces the first `<flag>=` argument or is appended.
 * Assumes {@link checkManagerSpec} passed. Throws SpecError `customize` when an additionalArgs key
 * already has an argument, or an endpoint name is given for a probe the container lacks.
 */
export function applyManagerSpec(container: JsonObject, spec: ManagerSpec, ctx: CustomizeContext): JsonObject {
  const field = `${ctx.base}.manager`;
  let args: JsonValue[] = Array.isArray(container.args) ? [...container.args] : [];
  const set = (name: string, value: string): void => {
    args = setArg(args, name, value);
  };

  const concurrency = spec.controller?.groupKindConcurrency ?? {};
  for (const kind of Object.keys(concurrency).sort(compareCodeUnits))
    set(`--${kind.toLowerCase()}-concurrency`, String(concurrency[kind]));

  if (spec.maxConcurrentReconciles !== undefined && spec.maxConcurrentReconciles !== 0)
    set('--max-concurrent-reconciles', String(spec.maxConcurrentReconciles));

  const stringFlags: [string, string | undefined][] = [
    ['--namespace', spec.cacheNamespace],
    ['--health-addr', spec.health?.healthProbeBindAddress],
    ['--metrics-bind-addr', spec.metrics?.bindAddress],
    ['--diagnostics-address', spec.metrics?.diagnosticsAddress],
    ['--webhook-host', spec.webhook?.host],
    ['--webhook-cert-dir', spec.webhook?.certDir],
    ['--profiler-address', spec.profilerAddress],
  ];
  for (const [flag, value] of stringFlags) if (value !== undefined && value !== '') set(flag, value);

  let result: JsonObject = { ...container };
  result = withProbePath(
    result,
    'livenessProbe',
    spec.health?.livenessEndpointName,
    `${field}.health.livenessEndpointName`,
    ctx,
  );
  result = withProbePath(
    result,
    'readinessProbe',
    spec.health?.readinessEndpointName,
    `${field}.health.readinessEndpointName`,
    ctx,
  );

  if (spec.leaderElection?.leaderElect !== undefined)
    args = withLeaderElection(args, spec.leaderElection, spec.leaderElection.leaderElect);

  // Only true is written: some providers (e.g. CAPO) do not register the flag at all.
  if (spec.metrics?.insecureDiagnostics === true) set('--insecure-diagnostics', 'true');

  if (spec.webhook?.port !== undefined) set('--webhook-port', String(spec.webhook.port));

  if (spec.syncPeriod !== undefined) {
    const seconds = wholeSeconds(spec.syncPeriod);
    if (seconds > 0n) set('--sync-period', `${seconds}s`);
  }

  const verbosity = spec.verbosity ?? DEFAULT_VERBOSITY;
  if (verbosity !== DEFAULT_VERBOSITY) set('--v', String(verbosity));

  const gates = spec.featureGates ?? {};
  if (Object.keys(gates).length > 0) {
    const merged = parseFeatureGates(args);
    for (const [name, on] of Object.entries(gates)) merged.set(name, on);
    set('--feature-gates', formatFeatureGates(merged));
  }

  const extra = spec.additionalArgs ?? {};
  for (const key of Object.keys(extra).sort(compareCodeUnits)) {
    // additionalArgs can add flags but never override one, whether from the manifest or a field above.
    if (hasArg(args, key)) {
      failCustomize(
        ctx,
        `${field}.additionalArgs.${key}`,
        `argument ${JSON.stringify(key)} already exists in the manager container`,
        `set it through its ${field} field or ${ctx.base}.deployment.containers[].args, which replace it`,
        `failed to customize manager container: arg ${JSON.stringify(key)} already exists`,
      );
    }
    set(key, extra[key] ?? '');
  }

  if (Array.isArray(container.args) || args.length > 0) result.args = args;
  return result;
}

/** The `--leader-elect…` flags, in the operator's order. */
function withLeaderElection(args: JsonValue[], election: LeaderElectionConfiguration, elect: boolean): JsonValue[] {
  let next = setArg(args, '--leader-elect', String(elect));
  if (!elect) return next;
  if ((election.resourceName ?? '') !== '' && (election.resourceNamespace ?? '') !== '') {
    next = setArg(next, '--leader-election-id', `${election.resourceNamespace}/${election.resourceName}`);
  }
  const durations: [string, string | undefined][] = [
    ['--leader-elect-lease-duration', election.leaseDuration],
    ['--leader-elect-renew-deadline', election.renewDeadline],
    ['--leader-elect-retry-period', election.retryPeriod],
  ];
  for (const [flag, text] of durations) {
    // A zero duration (the only way to say "provider default" in a field the CRD requires) writes nothing.
    const seconds = text === undefined ? 0n : wholeSeconds(text);
    if (seconds > 0n) next = setArg(next, flag, `${seconds}s`);
  }
  return next;
}

/** Replaces `<probe>.httpGet.path` by `/<endpoint>`; a named endpoint without such a probe is an error. */
function withProbePath(
  container: JsonObject,
  probe: 'livenessProbe' | 'readinessProbe',
  endpoint: string | undefined,
  field: string,
  ctx: CustomizeContext,
): JsonObject {
  if (endpoint === undefined || endpoint === '') return container;
  const current = container[probe];
  if (!isJsonObject(current) || !isJsonObject(current.httpGet)) {
    // The operator skips this silently; capi-render refuses to drop a field it cannot render.
    failCustomize(
      ctx,
      field,
      `the manager container has no ${probe}.httpGet to point at /${endpoint}`,
      `remove the field, or add the probe with a patch`,
    );
  }
  return { ...container, [probe]: { ...current, httpGet: { ...current.httpGet, path: `/${endpoint}` } } };
}

/** A checked duration as whole seconds (Go's Round(time.Second)). */
function wholeSeconds(text: string): bigint {
  const parsed = parseGoDuration(text);
  return parsed.ok ? roundToWholeSeconds(parsed.nanos) : 0n;
}
