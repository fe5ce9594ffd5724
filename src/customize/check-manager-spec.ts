/**
 * Checks a `manager` block for what capi-render cannot honour before anything is applied, and
 * collects every problem. The operator maps some ManagerSpec fields to nothing; capi-render's rule
 * is that a field set in a provider CR is either rendered or rejected, never silently dropped.
 */
import type { Diagnostic } from '../errors.js';
import type { ManagerSpec } from '../declarations/provider-spec.js';
import { customizeDiagnostic } from './customize-context.js';
import { parseGoDuration, roundToWholeSeconds } from './go-duration.js';

/**
 * The lock kinds a `leaderElection.resourceLock` may name. The CRD requires the field, but the
 * operator passes it to no flag: the managers always lock with controller-runtime's default,
 * Leases, so only that value (or an empty string) describes what actually runs.
 */
const HONOURED_RESOURCE_LOCKS: ReadonlySet<string> = new Set(['', 'leases']);

/**
 * Returns one `customize` diagnostic per field of `spec` (found at `field`, e.g. `spec.manager`)
 * that cannot be rendered: fields the operator ignores (`gracefulShutDown`,
 * `controller.cacheSyncTimeout`, `controller.recoverPanic`, a non-Leases `leaderElection.resourceLock`),
 * durations Go would not parse, a `syncPeriod` that rounds to no flag, and a leader-election id
 * given by only one of `resourceName`/`resourceNamespace`. Pure.
 */
export function checkManagerSpec(providerRef: string, field: string, spec: ManagerSpec): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const ignoredByOperator = (path: string, what: string): void => {
    problems.push(
      customizeDiagnostic(
        providerRef,
        `${field}.${path}`,
        `${field}.${path} is not supported: ${what}`,
        'remove the field; the cluster-api-operator ignores it too, so it never reached the provider',
      ),
    );
  };

  if (spec.gracefulShutDown !== undefined)
    ignoredByOperator('gracefulShutDown', 'no provider flag takes a graceful-shutdown timeout');
  if (spec.controller?.cacheSyncTimeout !== undefined)
    ignoredByOperator('controller.cacheSyncTimeout', 'no provider flag takes a cache-sync timeout');
  if (spec.controller?.recoverPanic !== undefined)
    ignoredByOperator('controller.recoverPanic', 'no provider flag takes a recover-panic switch');

  if (spec.syncPeriod !== undefined) {
    const problem = checkDuration(spec.syncPeriod);
    if (problem !== undefined) {
      problems.push(
        customizeDiagnostic(
          providerRef,
          `${field}.syncPeriod`,
          `${field}.syncPeriod: ${problem}`,
          'write a Go duration such as 10m or 1h30m',
        ),
      );
    } else if (positiveSeconds(spec.syncPeriod) === false) {
      // The operator writes --sync-period only for a period of at least one (rounded) second.
      problems.push(
        customizeDiagnostic(
          providerRef,
          `${field}.syncPeriod`,
          `${field}.syncPeriod ${JSON.stringify(spec.syncPeriod)} rounds to no --sync-period flag`,
          'use at least 1s, or remove the field to keep the provider default',
        ),
      );
    }
  }

  const election = spec.leaderElection;
  if (election !== undefined) {
    const at = `${field}.leaderElection`;
    for (const key of ['leaseDuration', 'renewDeadline', 'retryPeriod'] as const) {
      const value = election[key];
      const problem = value === undefined ? undefined : checkDuration(value);
      if (problem !== undefined) {
        problems.push(
          customizeDiagnostic(
            providerRef,
            `${at}.${key}`,
            `${at}.${key}: ${problem}`,
            'write a Go duration such as 15s; 0s keeps the provider default',
          ),
        );
      }
    }
    if (election.resourceLock !== undefined && !HONOURED_RESOURCE_LOCKS.has(election.resourceLock)) {
      ignoredByOperator(
        'leaderElection.resourceLock',
        `the providers always lock with Leases, not ${JSON.stringify(election.resourceLock)}`,
      );
    }
    const hasName = (election.resourceName ?? '') !== '';
    const hasNamespace = (election.resourceNamespace ?? '') !== '';
    if (election.leaderElect === true && hasName !== hasNamespace) {
      const missing = hasName ? 'resourceNamespace' : 'resourceName';
      problems.push(
        customizeDiagnostic(
          providerRef,
          `${at}.${missing}`,
          `${at}: --leader-election-id needs both resourceNamespace and resourceName; ${missing} is empty`,
          `set ${missing} too, or clear both to keep the provider's default lock name`,
        ),
      );
    }
  }
  return problems;
}

/** Go's parse error for a duration, or undefined when it parses. */
function checkDuration(text: unknown): string | undefined {
  if (typeof text !== 'string') return `expected a duration string, got ${JSON.stringify(text)}`;
  const parsed = parseGoDuration(text);
  return parsed.ok ? undefined : parsed.message;
}

/** Whether a (valid) duration rounds to at least one second. */
function positiveSeconds(text: string): boolean {
  const parsed = parseGoDuration(text);
  return parsed.ok && roundToWholeSeconds(parsed.nanos) > 0n;
}
