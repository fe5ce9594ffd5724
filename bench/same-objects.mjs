/**
 * Did capi-render and kustomize produce the same objects? The bench asks this of every case it
 * times against kustomize, before it compares the times: a faster build of different objects
 * proves nothing. Formatting and order do not count — both outputs are parsed (js-yaml, the core
 * schema), each object is written as canonical JSON (keys sorted at every level), and the objects
 * are compared sorted by apiVersion, kind, namespace and name.
 *
 * Both sides repeat most documents across environments (the same CRDs, the same RBAC), so each
 * distinct document text is parsed once: comparing 100 environments costs a little more than one.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';

/** Sorted-key JSON: the same object gives the same text whatever order its keys came in. */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The sort key of an object: apiVersion, kind, namespace, name. */
const idOf = (o) =>
  [o?.apiVersion ?? '', o?.kind ?? '', o?.metadata?.namespace ?? '', o?.metadata?.name ?? ''].join('/');

/** One parse per distinct document text, shared by every environment of a comparison. */
function documentCache() {
  const byHash = new Map();
  return (text) => {
    const key = createHash('sha256').update(text).digest('hex');
    let entries = byHash.get(key);
    if (!entries) {
      entries = jsYaml
        .loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA })
        .filter((o) => o !== null && o !== undefined)
        .map((o) => ({ id: idOf(o), json: canonicalJson(o) }));
      byHash.set(key, entries);
    }
    return entries;
  };
}

/** A multi-document stream cut into its documents (a `---` line separates them). */
const documentsOf = (text) => text.split(/^---[ \t]*$/m).filter((d) => d.trim() !== '');

/** Every YAML file under `dir` but the kustomization.yaml files: the objects capi-render wrote. */
function objectFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...objectFiles(p));
    else if (e.name.endsWith('.yaml') && e.name !== 'kustomization.yaml') out.push(p);
  }
  return out;
}

/**
 * Compares each pair `[capiRenderFolder, kustomizeOutputFile]`: the objects of every file in the
 * rendered environment folder against those of one `kubectl kustomize -o` stream. Returns undefined
 * when every pair holds the same objects, else a one-line account of the first difference (the
 * environment, and the object missing on one side or differing).
 */
export function differenceBetween(pairs) {
  const parse = documentCache();
  for (const [rendered, kustomized] of pairs) {
    const ours = objectFiles(rendered).flatMap((f) => parse(readFileSync(f, 'utf8')));
    const theirs = documentsOf(readFileSync(kustomized, 'utf8')).flatMap(parse);
    const sorted = (list) =>
      [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.json < b.json ? -1 : a.json > b.json ? 1 : 0));
    const [a, b] = [sorted(ours), sorted(theirs)];
    const where = `${path.basename(rendered)} (capi-render ${a.length} objects, kustomize ${b.length})`;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i]?.json === b[i]?.json) continue;
      if (a[i]?.id !== b[i]?.id) {
        const only = !b.some((x) => x.id === a[i]?.id)
          ? `${a[i]?.id} only in capi-render's`
          : `${b[i]?.id} only in kustomize's`;
        return `${where}: ${only} output`;
      }
      return `${where}: ${a[i].id} differs at ${firstDifference(JSON.parse(a[i].json), JSON.parse(b[i].json))}`;
    }
  }
  return undefined;
}

/** The path of the first field where two objects differ, with both values (shortened). */
function firstDifference(a, b, at = '') {
  if (
    a !== null &&
    b !== null &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    Array.isArray(a) === Array.isArray(b)
  ) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (canonicalJson(a[k]) !== canonicalJson(b[k])) return firstDifference(a[k], b[k], `${at}.${k}`);
    }
  }
  const show = (v) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 80));
  return `${at || '.'}: capi-render ${show(a)}, kustomize ${show(b)}`;
}
