/**
 * Assembles the report's model from the fleet's plan, its rendered environments and (with
 * `--base`) the comparison with a revision, and words the one summary line at the top. Pure.
 */
import { chooseByCount, formatCount } from '../count-phrase.js';
import { FINDING_WHY } from '../diff/finding-why.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import type { RevisionComparison } from '../upgrade/compare-revision.js';
import type { EnvironmentUpgradePlan } from '../upgrade/plan.js';
import type { DeliverySettings } from './delivery.js';
import { buildEnvironmentFacts } from './environment-facts.js';
import type { MatrixModel, ReportModel, ReviewModel } from './report-model.js';
import { buildUpgradeReview } from './upgrade-review.js';
import type { Flavour } from './util-report.js';
import { buildVersionMatrix } from './version-matrix.js';

/** What the report is made of. */
export interface ReportInput {
  /** The rendered environments, in name order. */
  environments: readonly EnvironmentResult[];
  /** Their upgrade plans. */
  plans: readonly EnvironmentUpgradePlan[];
  /** The comparison with `--base`, when asked for. */
  comparison?: RevisionComparison;
  /** The environments the user limited the report to (empty: all). */
  selected: readonly string[];
  /** Each environment's gitops settings, for its delivery; an environment without gets its flavour's defaults. */
  delivery?: ReadonlyMap<string, DeliverySettings>;
}

/** The model the template renders. */
export function buildReportModel(input: ReportInput): ReportModel {
  const flavours = new Map(
    input.environments.map((e) => [e.environment.name, e.gitopsFlavour ?? 'kustomize'] as const),
  );
  const matrix = buildVersionMatrix(input.plans, flavours);
  const review = input.comparison ? buildUpgradeReview(input.comparison, input.selected) : null;
  return {
    title: review ? `Cluster API upgrade review against ${review.base}` : 'Cluster API fleet report',
    ...(review ? reviewSummary(review) : fleetSummary(matrix, flavours)),
    matrix,
    environments: input.environments.map((e) =>
      buildEnvironmentFacts(
        e,
        input.plans.find((p) => p.environment === e.environment.name),
        input.delivery?.get(e.environment.name),
      ),
    ),
    review,
    findingCodes: Object.entries(FINDING_WHY).map(([code, why]) => ({ code, why })),
  };
}

/** "1 environment changed; 0 dangers; 2 warnings; 20 info findings". */
function reviewSummary(review: ReviewModel): Pick<ReportModel, 'summary' | 'tone'> {
  const { danger, warning, info } = review.counts;
  const changed = review.changedEnvironments.length;
  if (changed === 0) return { summary: `No changes against ${review.base}`, tone: 'ok' };
  return {
    // "changed", not "changes": the past participle agrees with any count and reads as a verb, never as a noun.
    summary: `${formatCount(changed, 'environment')} changed; ${formatCount(danger, 'danger')}; ${formatCount(warning, 'warning')}; ${formatCount(info, 'info finding')}`,
    tone: danger > 0 ? 'danger' : warning > 0 ? 'warning' : 'ok',
  };
}

/** "2 environments (Argo CD: prod; Flux: dev); 3 providers can move within their contract (prod); none to a next contract". */
function fleetSummary(
  matrix: MatrixModel,
  flavours: ReadonlyMap<string, Flavour>,
): Pick<ReportModel, 'summary' | 'tone'> {
  const cells = matrix.rows.flatMap((r) => r.cells);
  const within = cells.filter((c) => c.marks.some((m) => m.code === 'patch' || m.code === 'minor'));
  const next = cells.filter((c) => c.marks.some((m) => m.code === 'contract'));
  const where = (list: typeof cells) =>
    list.length === 0 ? '' : ` (${[...new Set(list.map((c) => c.environment))].join(', ')})`;
  const byFlavour = matrix.groups.map(
    (g) =>
      `${g.title}: ${matrix.columns
        .filter((c) => c.flavour === g.flavour)
        .map((c) => c.environment)
        .join(', ')}`,
  );
  const envs = `${formatCount(flavours.size, 'environment')}${byFlavour.length > 0 ? ` (${byFlavour.join('; ')})` : ''}`;
  const parts = [
    envs,
    within.length === 0
      ? 'every provider is on the newest release of its contract'
      : `${formatCount(within.length, 'provider')} can move within ${chooseByCount(within.length, 'its', 'their')} contract${where(within)}`,
    next.length === 0 ? 'none to a next contract' : `${next.length} to a next contract${where(next)}`,
  ];
  return { summary: parts.join('; '), tone: 'ok' };
}
