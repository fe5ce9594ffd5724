/**
 * Turns provider CR inputs into typed ProviderCRs, collecting every schema problem (with
 * file:line:col of the offending field) before failing.
 */
import { error, peerWording, type Diagnostic } from '../errors.js';
import { isJsonObject } from '../manifest/object.js';
import type { InputObject } from './inputs.js';
import type { ProviderKind } from './provider-kinds.js';
import type { ProviderCR } from './provider-spec.js';
import { ONLY_ONE_OF_SELECTOR_AND_URL } from './preflight.js';

/** What schema validation reports for one problem (see spec/schema/). */
export interface SchemaProblem {
  path: (string | number)[];
  rule: string;
  message: string;
}

/** Validates one provider object against its kind's CRD schema. */
export interface ProviderValidator {
  validate(kind: ProviderKind, object: unknown): SchemaProblem[];
}

/** Validates every provider input; returns the valid CRs and a diagnostic per problem. */
export function validateProviders(
  inputs: readonly InputObject[],
  validator: ProviderValidator,
): { providers: ProviderCR[]; diagnostics: Diagnostic[] } {
  const providers: ProviderCR[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const input of inputs) {
    const obj = input.object;
    const kind = obj.kind as ProviderKind;
    const problems = validator.validate(kind, obj);
    const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
    const ref = `${kind}/${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
    for (const p of problems) {
      const target = p.rule === 'unknown-field' ? 'key' : 'value';
      diagnostics.push(
        error('schema', messageOf(p, obj), {
          file: input.file,
          ...input.locate(p.path, target),
          field: p.path
            .map((s) => (typeof s === 'number' ? `[${s}]` : s))
            .join('.')
            .replace(/\.\[/g, '['),
          object: ref,
          hint:
            p.rule === 'unknown-field'
              ? 'the operator CRD (v1alpha2) has no such field; check the spelling'
              : bothSources(p, obj)
                ? 'keep either spec.fetchConfig.url or spec.fetchConfig.selector'
                : undefined,
        }),
      );
    }
    if (problems.length > 0) continue;
    providers.push({
      kind,
      name: String(meta.name),
      namespace: String(meta.namespace),
      spec: isJsonObject(obj.spec) ? obj.spec : {},
      file: input.file,
      line: input.locate([]).line,
    });
  }
  return { providers, diagnostics };
}

/**
 * A problem's message. One case also carries the operator's preflight wording: its CRD rule
 * rejects a fetchConfig with both url and selector before the preflight check could say "Only one
 * of Selector and URL …" — the message users know (from older CRDs) and search for.
 */
function messageOf(problem: SchemaProblem, obj: Record<string, unknown>): string {
  return bothSources(problem, obj)
    ? peerWording('cluster-api-operator', ONLY_ONE_OF_SELECTOR_AND_URL, problem.message)
    : problem.message;
}

/** The CRD's CEL rule refusing a fetchConfig with both url and selector. */
function bothSources(problem: SchemaProblem, obj: Record<string, unknown>): boolean {
  const spec = isJsonObject(obj.spec) ? obj.spec : {};
  const fetchConfig = isJsonObject(spec.fetchConfig) ? spec.fetchConfig : {};
  const atFetchConfig = problem.path.length === 2 && problem.path[0] === 'spec' && problem.path[1] === 'fetchConfig';
  return problem.rule === 'cel' && atFetchConfig && fetchConfig.url !== undefined && fetchConfig.selector !== undefined;
}
