/**
 * The one table a review opens with: per environment and provider, the version and contract it moves
 * from and to and how many findings of each severity it has. `diff`, the upgrade pull request's body
 * and the HTML report all build their table from {@link buildSummaryRows}, so the three say the same.
 * Pure.
 */
import type { Finding, FindingSeverity } from './types.js';
import { compareText } from './util-compare.js';
import { SEVERITIES } from './util-format.js';

/**
 * A provider (or cert-manager) in one environment, its version before and after (equal when it does
 * not move). Shaped like the lock comparison's version changes, so a caller passes those as they are.
 */
export interface VersionMove {
  env: string;
  /** Manifest label (`cluster-api`) or `cert-manager`: the component folder its findings name. */
  component: string;
  /** Undefined when the provider is new in the environment. */
  from?: string;
  /** Undefined when it is gone. */
  to?: string;
  fromContract?: string;
  toContract?: string;
}

/** One row of the summary table. */
export interface SummaryRow {
  environment: string;
  provider: string;
  /**
   * `v1.11.0 → v1.12.0`, `(none) → v1.12.0`, `v1.11.0 → (removed)`; `v1.12.0 (unchanged)` for a
   * provider that has findings but does not move, `unchanged` when its version is not known.
   */
  version: string;
  /** `v1beta1 → v1beta2` when it moves, else the contract; `-` when unknown (cert-manager). */
  contract: string;
  /** True when the contract moves. */
  contractMoves: boolean;
  danger: number;
  warning: number;
  info: number;
}

/**
 * One row per environment and provider that moves or has findings, sorted by environment, then
 * provider. Findings count under their component. `moves` may include providers that do not move
 * (`from` equal to `to`): they get a row only when they have findings (an overlay change), which then
 * names their version; a component with findings that `moves` does not name gets `unchanged`.
 */
export function buildSummaryRows(findings: readonly Finding[], moves: readonly VersionMove[]): SummaryRow[] {
  const rows = new Map<string, SummaryRow>();
  const keyOf = (env: string, component: string) => `${env}\n${component}`;
  const staying = new Map<string, VersionMove>();
  for (const move of moves) {
    if (move.from !== undefined && move.from === move.to) {
      staying.set(keyOf(move.env, move.component), move);
      continue;
    }
    const fromContract = move.fromContract ?? '-';
    const toContract = move.toContract ?? '-';
    const contractMoves = move.from !== undefined && move.to !== undefined && fromContract !== toContract;
    rows.set(keyOf(move.env, move.component), {
      environment: move.env,
      provider: move.component,
      version: `${move.from ?? '(none)'} → ${move.to ?? '(removed)'}`,
      contract: contractMoves ? `${fromContract} → ${toContract}` : move.to === undefined ? fromContract : toContract,
      contractMoves,
      danger: 0,
      warning: 0,
      info: 0,
    });
  }
  for (const finding of findings) {
    const key = keyOf(finding.env, finding.component);
    const row = rows.get(key) ?? unmovedRow(finding.env, finding.component, staying.get(key));
    rows.set(key, row);
    row[finding.severity] += 1;
  }
  return [...rows.values()].sort(
    (a, b) => compareText(a.environment, b.environment) || compareText(a.provider, b.provider),
  );
}

function unmovedRow(environment: string, provider: string, move: VersionMove | undefined): SummaryRow {
  const version = move?.to === undefined ? 'unchanged' : `${move.to} (unchanged)`;
  return {
    environment,
    provider,
    version,
    contract: move?.toContract ?? '-',
    contractMoves: false,
    danger: 0,
    warning: 0,
    info: 0,
  };
}

const HEADERS = ['ENVIRONMENT', 'PROVIDER', 'VERSION', 'CONTRACT', 'DANGER', 'WARNING', 'INFO'] as const;

function cells(row: SummaryRow): string[] {
  return [
    row.environment,
    row.provider,
    row.version,
    row.contract,
    ...SEVERITIES.map((s: FindingSeverity) => String(row[s])),
  ];
}

/**
 * The table as terminal lines: upper-case headers, columns padded to their widest cell and two spaces
 * apart (as `plan` prints its tables), no trailing spaces. Empty for no rows.
 */
export function summaryTableText(rows: readonly SummaryRow[]): string[] {
  if (rows.length === 0) return [];
  const table = [[...HEADERS], ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  return table.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * The table as CommonMark/GFM lines. `extra` adds a last column (the pull request's `Set in`): its
 * title and each row's cell, already markdown. A moving contract is bold, a non-zero danger count too.
 * Cells are plain names and versions; a `|` in one is escaped so it cannot split the row.
 */
export function summaryTableMarkdown(
  rows: readonly SummaryRow[],
  extra?: { title: string; cell: (row: SummaryRow) => string },
): string[] {
  if (rows.length === 0) return [];
  const titles = [
    'Environment',
    'Provider',
    'Version',
    'Contract',
    'Danger',
    'Warning',
    'Info',
    ...(extra ? [extra.title] : []),
  ];
  const line = (parts: readonly string[]) => `| ${parts.join(' | ')} |`;
  return [
    line(titles),
    line(titles.map(() => '---')),
    ...rows.map((row) =>
      line([
        pipe(row.environment),
        `\`${pipe(row.provider)}\``,
        pipe(row.version),
        row.contractMoves ? `**${pipe(row.contract)}**` : pipe(row.contract),
        row.danger > 0 ? `**${row.danger}**` : String(row.danger),
        String(row.warning),
        String(row.info),
        ...(extra ? [extra.cell(row)] : []),
      ]),
    ),
  ];
}

function pipe(text: string): string {
  return text.replace(/\|/g, '\\|');
}
