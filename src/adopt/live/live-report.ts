/**
 * What the first sync of an environment would do to a running cluster, from its rendered objects and
 * a dump: objects live with clusterctl's labels that are not rendered (a
 * prune by those labels deletes them; otherwise nothing manages them), objects it would create,
 * and per object the fields an apply would change — each with the managers that own the field now
 * (a conflict a forced apply takes over), the install-time variable or image override that would
 * reproduce the live value, and whether it is only one of capi-render's own GitOps annotations.
 */
import { apiGroup, isJsonObject, labelsOf, type KubeObject } from '../../manifest/object.js';
import { summarizeValue } from '../../diff/summarize-value.js';
import type { LiveDump } from '../live-dump.js';
import { describeLive, isGenerated, liveKey } from '../live-object.js';
import { CLUSTERCTL_LABEL, PROVIDER_LABEL } from '../../process/common-labels.js';
import { compareWithLive, type FieldDifference } from './compare-object.js';
import { ownersOf, readFieldOwners } from './managed-fields.js';
import { isOwnMetadataPath } from './own-metadata.js';
import { removalsByManager } from './removals.js';
import { explainArgs, imageOverride, templateArgs } from './variable-hints.js';
import { inputHint, type HintFiles, type ProviderInput } from './input-hints.js';

/** One rendered component (folder) of the environment, with the release text its objects came from. */
export interface LiveCheckComponent {
  name: string;
  objects: readonly KubeObject[];
  /** The objects' files, relative to the repository (same order as `objects`). */
  files: readonly string[];
  /** The provider's unsubstituted components text (for variable hints); absent for cert-manager. */
  components?: string;
  /** The provider CR the component is rendered from, with its locators (for input hints); absent for cert-manager. */
  input?: ProviderInput;
  /** cert-manager's component (its objects are its release's). */
  certManager?: boolean;
}

export interface ReportedField extends Omit<FieldDifference, 'fields' | 'live' | 'rendered'> {
  live?: unknown;
  rendered?: unknown;
  /** Managers that own the field now: the apply conflicts with them and must force. */
  owners?: string[];
  /** One of capi-render's own GitOps annotations. */
  own?: boolean;
  details?: string[];
  hint?: string;
}

export interface ObjectReport {
  object: string;
  component: string;
  file?: string;
  /** What the sync changes; for an object in `ownMetadataOnly`, capi-render's own keys. */
  fields: ReportedField[];
  /** For a changed object: capi-render's own keys it also gets (not counted as changes). */
  ownFields?: ReportedField[];
}

export interface LiveReport {
  environment: string;
  dump: string;
  /** Whether the dump has managedFields (kubectl get --show-managed-fields). */
  ownershipKnown: boolean;
  /** Managers whose earlier applies make removals possible (see removals.ts). */
  fieldManagers: string[];
  /** Live, labelled by clusterctl, not rendered. */
  notRendered: ObjectReport[];
  /** Rendered, not live: the first sync creates them. */
  created: ObjectReport[];
  /**
   * Rendered CRDs the dump lacks although it holds objects of their group: they exist in the
   * cluster, the dump is incomplete (not a change).
   */
  missingFromDump: ObjectReport[];
  changed: ObjectReport[];
  /** Objects whose only differences are capi-render's own annotations. */
  ownMetadataOnly: ObjectReport[];
  unchanged: number;
  /** True when the first sync changes nothing but capi-render's own annotations. */
  clean: boolean;
}

export interface LiveReportOptions {
  environment: string;
  fieldManagers: readonly string[];
  /** Where a variable hint tells the user to set variables (the overlay, or capi-render.yaml). */
  variablesFile: string;
  /** Where input hints point besides the provider CRs; without it, only variable and image hints are given. */
  hintFiles?: HintFiles;
}

/** The report for one environment's rendered components against a dump of its cluster. Pure. */
export function buildLiveReport(
  components: readonly LiveCheckComponent[],
  dump: LiveDump,
  options: LiveReportOptions,
): LiveReport {
  const live = new Map<string, KubeObject>();
  for (const { object } of dump.objects) if (!live.has(liveKey(object))) live.set(liveKey(object), object);
  const report: LiveReport = {
    environment: options.environment,
    dump: dump.file,
    ownershipKnown: dump.hasManagedFields,
    fieldManagers: [...options.fieldManagers],
    notRendered: [],
    created: [],
    missingFromDump: [],
    changed: [],
    ownMetadataOnly: [],
    unchanged: 0,
    clean: false,
  };
  const liveGroups = new Set(dump.objects.map(({ object }) => apiGroup(object.apiVersion)));
  const rendered = new Set<string>();
  for (const component of components) {
    component.objects.forEach((object, i) => {
      const key = liveKey(object);
      rendered.add(key);
      const base = { object: describeLive(object), component: component.name, file: component.files[i] };
      const current = live.get(key);
      if (!current) {
        (object.kind === 'CustomResourceDefinition' && liveGroups.has(crdGroup(object))
          ? report.missingFromDump
          : report.created
        ).push({ ...base, fields: [] });
        return;
      }
      const fields = reportFields(object, current, component, options);
      if (fields.length === 0) report.unchanged++;
      else if (fields.every((f) => f.own)) report.ownMetadataOnly.push({ ...base, fields });
      else {
        // capi-render's own keys are listed apart, so a count of changes counts only real ones.
        const own = fields.filter((f) => f.own);
        report.changed.push({
          ...base,
          fields: fields.filter((f) => !f.own),
          ...(own.length > 0 ? { ownFields: own } : {}),
        });
      }
    });
  }
  for (const { object } of dump.objects) {
    const key = liveKey(object);
    if (rendered.has(key) || !(CLUSTERCTL_LABEL in labelsOf(object)) || isGenerated(object)) continue;
    // The endpoints controller copies a Service's labels onto its Endpoints (same name, no owner).
    if (object.kind === 'Endpoints' && rendered.has(key.replace(/^Endpoints\./, 'Service.'))) continue;
    if (report.notRendered.some((o) => o.object === describeLive(object))) continue;
    report.notRendered.push({
      object: describeLive(object),
      component: labelsOf(object)[PROVIDER_LABEL] ?? '',
      fields: [],
    });
  }
  report.clean = report.notRendered.length === 0 && report.created.length === 0 && report.changed.length === 0;
  return report;
}

function crdGroup(crd: KubeObject): string {
  return isJsonObject(crd.spec) && typeof crd.spec.group === 'string' ? crd.spec.group : '';
}

function reportFields(
  object: KubeObject,
  live: KubeObject,
  component: LiveCheckComponent,
  options: LiveReportOptions,
): ReportedField[] {
  const owners = readFieldOwners(live);
  const differences: FieldDifference[] = [
    ...compareWithLive(object, live),
    ...(owners ? removalsByManager(object, live, owners, options.fieldManagers) : []),
  ];
  return differences.map((d) => {
    const { fields, live: l, rendered: r, details, ...rest } = d;
    const out: ReportedField = {
      ...rest,
      ...(d.secret ? {} : { live: summarizeValue(l), rendered: summarizeValue(r) }),
      ...(details ? { details } : {}),
    };
    const others = owners && d.change !== 'removed' ? ownersOf(owners, fields) : [];
    if (others.length > 0) out.owners = others;
    if (isOwnMetadataPath(d.path)) out.own = true;
    explain(out, d, object, component, options);
    // Otherwise: the input that decides the field, so keeping the live value is one edit away.
    if (!out.hint && !out.own && d.change === 'changed' && options.hintFiles) {
      const deployments = component.objects
        .filter((o) => o.kind === 'Deployment')
        .map((o) => String((o.metadata as { name?: unknown }).name));
      const hint = inputHint(
        object,
        d,
        component.input,
        deployments,
        options.hintFiles,
        Boolean(component.certManager),
      );
      if (hint) out.hint = hint;
    }
    return out;
  });
}

/** Adds the variable or image override that would reproduce the live value of a Deployment field. */
function explain(
  out: ReportedField,
  d: FieldDifference,
  object: KubeObject,
  component: LiveCheckComponent,
  options: LiveReportOptions,
): void {
  const m = /^spec\.template\.spec\.(containers|initContainers)\[name=([^\]]+)\]\.(args|image)$/.exec(d.path);
  if (object.kind !== 'Deployment' || !m || d.change !== 'changed') return;
  if (m[3] === 'image' && typeof d.rendered === 'string' && typeof d.live === 'string') {
    const override = imageOverride(d.rendered, d.live);
    if (override)
      out.hint = `images: {${component.name}: ${JSON.stringify(override).replace(/"(\w+)":/g, '$1: ')}} in ${options.variablesFile} reproduces the live image`;
    return;
  }
  if (!Array.isArray(d.rendered) || !Array.isArray(d.live)) return;
  const name = isJsonObject(object.metadata) ? String(object.metadata.name) : '';
  const explanation = explainArgs(
    templateArgs(component.components, name, m[2]!),
    d.rendered.map(String),
    d.live.map(String),
  );
  if (explanation.details.length > 0) out.details = explanation.details;
  const vars = Object.entries(explanation.variables);
  if (vars.length > 0) {
    out.hint = `the install-time variable${vars.length > 1 ? 's' : ''} ${vars.map(([k, v]) => `${k}=${v}`).join(', ')} reproduce${vars.length > 1 ? '' : 's'} the live value: set ${vars.length > 1 ? 'them' : 'it'} under variables: in ${options.variablesFile}`;
  }
}
