/**
 * The live report as terminal text, in `check`'s format (`file: error[drift]: message`, indented
 * field lines, a hint): objects the sync would leave unmanaged or prune come first and are red in a
 * terminal, then objects it would create, then field changes. Values are summarised; Secret values
 * are never shown.
 */
import { error, warning, type Diagnostic } from '../errors.js';
import { formatDiagnostic } from './format.js';
import type { LiveReport, ObjectReport, ReportedField } from '../adopt/live/live-report.js';

const RED = '\u001b[31m';

/** Said once: what "owned by" means for the apply. */
const CONFLICT_HINT =
  'a field owned by another manager (clusterctl or the operator wrote it) is a conflict for server-side apply: Argo CD (ServerSideApply=true) and Flux apply with force and take it over; kubectl apply --server-side needs --force-conflicts';
const RESET = '\u001b[0m';

/** The whole report as terminal text, ending with the one-line verdict. */
export function formatLiveReport(report: LiveReport, options: { color: boolean }): string {
  // Formatted without colour, then painted whole: the label's own colour would end the red mid-line.
  const paintRed = (text: string) => (options.color ? `${RED}${text.replace(/\n$/, '')}${RESET}\n` : text);
  const parts: string[] = [];
  report.notRendered.forEach((o, i) => {
    const d = error(
      'drift',
      `${o.object} is live with clusterctl's labels but not rendered: a prune by those labels would delete it, and after adoption nothing manages it`,
      {
        file: report.dump,
        ...(i === 0
          ? {
              hint: 'declare the provider it belongs to (capi-render import), or delete the leftover from the cluster before adopting',
            }
          : {}),
      },
    );
    parts.push(paintRed(formatDiagnostic(d, { color: false })));
  });
  for (const o of report.missingFromDump) {
    const d = warning(
      'live-dump',
      `${o.object} is not in the dump, but objects of its group are: it exists in the cluster, and the dump is incomplete`,
      {
        file: report.dump,
        hint: 'dump the CRDs too (kubectl get crd -l cluster.x-k8s.io/provider, and providers.clusterctl.cluster.x-k8s.io by name; docs/adoption.md "1. Dump the cluster (read-only)")',
      },
    );
    parts.push(formatDiagnostic(d, options));
  }
  for (const o of report.created)
    parts.push(
      formatDiagnostic(
        objectDiagnostic(o, `${o.object} is rendered but not live: the first sync would create it`),
        options,
      ),
    );
  report.changed.forEach((o, i) => {
    const d = objectDiagnostic(
      o,
      `${o.object}: the first sync would change ${o.fields.length} field${o.fields.length === 1 ? '' : 's'}:\n    ${o.fields.flatMap(fieldLines).join('\n    ')}`,
    );
    parts.push(
      formatDiagnostic(
        i === report.changed.length - 1 && report.changed.some((c) => c.fields.some((f) => f.owners))
          ? { ...d, hint: CONFLICT_HINT }
          : d,
        options,
      ),
    );
  });
  parts.push(`${summary(report)}\n`);
  return parts.join('');
}

/** The one-line verdict. */
export function summary(report: LiveReport): string {
  const own = report.ownMetadataOnly.length;
  const ownKeys = [
    ...new Set(
      report.ownMetadataOnly.flatMap((o) =>
        o.fields.map((f) => f.path.replace(/^metadata\.annotations\["(.*)"\]$/, '$1')),
      ),
    ),
  ].sort();
  const ownText = own > 0 ? `; ${own} get only capi-render's own annotations (${ownKeys.join(', ')})` : '';
  const head = `check --live ${report.environment} against ${report.dump}`;
  if (report.clean)
    return `${head}: the first sync changes nothing${own > 0 ? " but capi-render's own annotations" : ''} (${report.unchanged} objects equal the live ones${ownText})`;
  const counts = [
    report.notRendered.length > 0
      ? `${report.notRendered.length} live object${report.notRendered.length === 1 ? '' : 's'} not rendered`
      : '',
    report.created.length > 0 ? `${report.created.length} to create` : '',
    report.changed.length > 0 ? `${report.changed.length} to change` : '',
    `${report.unchanged} unchanged`,
  ].filter(Boolean);
  return `${head}: the first sync is not a no-op: ${counts.join(', ')}${ownText}`;
}

function objectDiagnostic(o: ObjectReport, message: string): Diagnostic {
  return error('drift', message, o.file ? { file: o.file } : {});
}

function fieldLines(f: ReportedField): string[] {
  const show = (v: unknown) => truncate(JSON.stringify(v));
  const value = f.secret
    ? f.change === 'added'
      ? 'not live, the apply sets it (a Secret value, not shown)'
      : 'a different Secret value (not shown)'
    : f.change === 'added'
      ? `not live, the apply sets ${show(f.rendered)}`
      : f.change === 'removed'
        ? `live ${show(f.live)}, removed by the apply (only the applier set it, in an earlier apply)`
        : `live ${show(f.live)}, rendered ${show(f.rendered)}`;
  const owners = f.owners ? ` (owned by ${f.owners.map((o) => o.replace(/ \(\w+\)$/, '')).join(', ')})` : '';
  // Where the details say what differs (arguments, feature gates, list items), the whole values are noise.
  const head = f.details && f.change === 'changed' ? `${f.path}${owners}:` : `${f.path}: ${value}${owners}`;
  return [head, ...(f.details ?? []).map((d) => `  ${d}`), ...(f.hint ? [`  hint: ${f.hint}`] : [])];
}

function truncate(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
