/**
 * Why a live Deployment's arguments or image differ from the rendered ones, when capi-render can tell:
 * an argument built from clusterctl variables (`--feature-gates=MachinePool=${EXP_MACHINE_POOL:=true},…`)
 * is matched against the live argument, which yields the variable values the cluster was installed
 * with; an image that differs only in repository or tag is what an `images:` override reproduces.
 */
import jsYaml from 'js-yaml';
import { isJsonObject, type JsonValue } from '../../manifest/object.js';
import { parseImageReference } from '../../process/image-reference.js';

export interface ArgsExplanation {
  /** One line per differing argument (per feature gate for `--feature-gates`). */
  details: string[];
  /** Variables whose install-time value reproduces the live arguments. */
  variables: Record<string, string>;
}

const flagOf = (arg: string): string => (arg.startsWith('-') ? arg.split('=')[0]! : arg);
const valueOf = (arg: string): string => (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '');

/** Compares argument lists flag by flag; `template` is the release's unsubstituted list, when known. */
export function explainArgs(
  template: readonly string[] | undefined,
  rendered: readonly string[],
  live: readonly string[],
): ArgsExplanation {
  const out: ArgsExplanation = { details: [], variables: {} };
  const flags = [...new Set([...rendered.map(flagOf), ...live.map(flagOf)])];
  for (const flag of flags) {
    const r = rendered.find((a) => flagOf(a) === flag);
    const l = live.find((a) => flagOf(a) === flag);
    if (r === l) continue;
    if (r === undefined) out.details.push(`only live: ${l}`);
    else if (l === undefined) out.details.push(`only rendered: ${r}`);
    else if (flag === '--feature-gates') out.details.push(...gateDifferences(valueOf(r), valueOf(l)));
    else out.details.push(`${flag}: live ${JSON.stringify(valueOf(l))}, rendered ${JSON.stringify(valueOf(r))}`);
    const t = template?.find((a) => flagOf(a) === flag);
    if (r === undefined || l === undefined || t === undefined) continue;
    const liveValues = matchTemplate(t, l);
    const renderedValues = matchTemplate(t, r);
    if (!liveValues || !renderedValues) continue;
    for (const [name, value] of Object.entries(liveValues))
      if (renderedValues[name] !== value) out.variables[name] = value;
  }
  return out;
}

function gateDifferences(rendered: string, live: string): string[] {
  const parse = (text: string) =>
    new Map(
      text
        .split(',')
        .filter(Boolean)
        .map((g) => [g.split('=')[0]!, g.split('=')[1] ?? ''] as const),
    );
  const r = parse(rendered);
  const l = parse(live);
  const out: string[] = [];
  for (const gate of [...new Set([...r.keys(), ...l.keys()])]) {
    if (r.get(gate) !== l.get(gate))
      out.push(`feature gate ${gate}: live ${l.get(gate) ?? '(unset)'}, rendered ${r.get(gate) ?? '(unset)'}`);
  }
  return out;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g;

/** The variable values that turn `template` into `value`, or undefined when it does not match. */
export function matchTemplate(template: string, value: string): Record<string, string> | undefined {
  const names: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const m of template.matchAll(VARIABLE)) {
    pattern += escape(template.slice(last, m.index)) + '(.*?)';
    names.push(m[1]!);
    last = m.index + m[0].length;
  }
  if (names.length === 0) return undefined;
  pattern += `${escape(template.slice(last))}$`;
  const match = new RegExp(pattern, 's').exec(value);
  if (!match) return undefined;
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    out[name] = match[i + 1]!;
  });
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The unsubstituted args of `container` of Deployment `name` in a release's components text. */
export function templateArgs(components: string | undefined, name: string, container: string): string[] | undefined {
  if (components === undefined) return undefined;
  let docs: unknown[];
  try {
    docs = jsYaml.loadAll(components, undefined, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return undefined;
  }
  for (const doc of docs) {
    if (!isJsonObject(doc)) continue;
    const d = doc as Record<string, JsonValue>;
    if (d.kind !== 'Deployment' || !isJsonObject(d.metadata) || d.metadata.name !== name) continue;
    const spec =
      isJsonObject(d.spec) && isJsonObject(d.spec.template) && isJsonObject(d.spec.template.spec)
        ? d.spec.template.spec
        : undefined;
    const c = Array.isArray(spec?.containers)
      ? spec.containers.find((x) => isJsonObject(x) && x.name === container)
      : undefined;
    return isJsonObject(c) && Array.isArray(c.args) ? c.args.map(String) : undefined;
  }
  return undefined;
}

/** The `images:` override that turns the rendered image into the live one, when only repository and/or tag differ. */
export function imageOverride(rendered: string, live: string): { repository?: string; tag?: string } | undefined {
  const r = parseImageReference(rendered);
  const l = parseImageReference(live);
  if (!('image' in r) || !('image' in l) || r.image.name !== l.image.name || l.image.digest) return undefined;
  const out: { repository?: string; tag?: string } = {};
  if (r.image.repository !== l.image.repository) out.repository = l.image.repository;
  if (r.image.tag !== l.image.tag && l.image.tag) out.tag = l.image.tag;
  return Object.keys(out).length > 0 ? out : undefined;
}
