/**
 * Reading a dump of a cluster: what `kubectl get … -o yaml` (or `-o json`) prints. Accepted shapes:
 * one object; kubectl's client-side `v1 List`; a typed `<Kind>List` from
 * `kubectl get --raw` (items may omit apiVersion/kind); and a `---`-separated stream of any of these,
 * empty documents and empty Lists included. Secret values never leave this module: each is replaced
 * by its sha256 as soon as the text is parsed, and a Secret's last-applied annotation (which would
 * repeat them) is dropped.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { SpecError, error } from '../errors.js';
import { countNodes, DEFAULT_PARSE_LIMITS } from '../manifest/parse.js';
import { isJsonObject, type JsonObject, type JsonValue, type KubeObject } from '../manifest/object.js';
import { chunkDump } from './dump-chunks.js';
import { LAST_APPLIED } from './live-object.js';

/** One object of the dump, with where it was (for messages). */
export interface LiveObject {
  object: KubeObject;
  /** 1-based document number in the stream, and the 1-based item number inside a List. */
  document: number;
  item?: number;
}

export interface LiveDump {
  /** The file as given on the command line (for messages). */
  file: string;
  objects: LiveObject[];
  /** Whether any object carries `metadata.managedFields` (the dump was made with `--show-managed-fields`). */
  hasManagedFields: boolean;
}

/** Largest dump accepted; a whole management cluster with managedFields is tens of MB. */
const MAX_DUMP_BYTES = 512 * 1024 * 1024;

/** Prefix of a Secret value replaced by its digest: equal digests mean equal values, and nothing else is learnt. */
export const SECRET_DIGEST_PREFIX = 'sha256:';

/** Reads and parses the dump at `file` (relative to `cwd`). */
export async function readLiveDump(
  file: string,
  cwd: string,
  select?: (head: DumpItemHead) => boolean,
): Promise<LiveDump> {
  const absolute = path.resolve(cwd, file);
  let text: string;
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    if (stat.size > MAX_DUMP_BYTES) {
      throw new SpecError(
        error('yaml-limit', `${file} is ${stat.size} bytes, over the ${MAX_DUMP_BYTES}-byte limit for a dump`, {
          file,
        }),
      );
    }
    text = await fs.readFile(absolute, 'utf8');
  } catch (e) {
    if (e instanceof SpecError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    throw new SpecError(
      error(
        'live-dump',
        `cannot read the dump ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code}`,
        {
          file,
          hint: 'write the dump with kubectl first (docs/adoption.md "1. Dump the cluster (read-only)"), then pass its path',
        },
      ),
    );
  }
  return parseLiveDump(text, file, select);
}

/** What a reader that needs only some objects is told about each, before it is parsed. */
export interface DumpItemHead {
  apiVersion?: string;
  kind?: string;
  /** The item's YAML text, for a cheap text test. */
  text: string;
}

/**
 * Parses dump text (YAML or JSON) into objects; `file` names it in messages. With `select`, a large
 * block-YAML dump is cut into items first and only the selected ones are parsed (see dump-chunks.ts);
 * a dump of another shape is parsed whole (`select` only saves time; it never hides an object the
 * caller would otherwise see).
 */
export function parseLiveDump(text: string, file: string, select?: (head: DumpItemHead) => boolean): LiveDump {
  const clean = text.replace(/^\uFEFF/, '');
  const budget = { remaining: DEFAULT_PARSE_LIMITS.maxNodes };
  if (select) {
    const fast = parseSelected(clean, file, select, budget);
    if (fast) return fast;
  }
  const objects: LiveObject[] = [];
  const whole = { remaining: DEFAULT_PARSE_LIMITS.maxNodes };
  parseDocuments(clean, file).forEach((doc, index) => {
    if (doc === null || doc === undefined) return;
    countNodes(doc as JsonValue, whole, file);
    const document = index + 1;
    if (!isJsonObject(doc)) throw notAnObject(file, `document ${document}`);
    for (const [item, object] of expandList(doc, file, document)) {
      objects.push({ object, document, ...(item !== undefined ? { item } : {}) });
    }
  });
  return {
    file,
    objects,
    hasManagedFields: objects.some((o) => Array.isArray((o.object.metadata as JsonObject | undefined)?.managedFields)),
  };
}

function parseSelected(
  text: string,
  file: string,
  select: (head: DumpItemHead) => boolean,
  budget: { remaining: number },
): LiveDump | undefined {
  const docs = chunkDump(text);
  if (!docs) return undefined;
  const objects: LiveObject[] = [];
  for (const doc of docs) {
    const itemKind = doc.kind && doc.kind !== 'List' ? doc.kind.slice(0, -'List'.length) : undefined;
    const chunks = doc.items ?? [doc.single!];
    for (const chunk of chunks) {
      const head = {
        apiVersion: chunk.apiVersion ?? (doc.items ? doc.apiVersion : undefined),
        kind: chunk.kind ?? itemKind,
        text: chunk.text,
      };
      if (!select(head)) continue;
      let value: unknown;
      try {
        value = jsYaml.load(chunk.text, { schema: jsYaml.CORE_SCHEMA, filename: file });
      } catch {
        return undefined;
      }
      if (doc.items) {
        if (!Array.isArray(value) || value.length !== 1) return undefined;
        value = value[0];
      }
      countNodes(value as JsonValue, budget, file);
      const where = chunk.item ? `item ${chunk.item} of document ${chunk.document}` : `document ${chunk.document}`;
      if (!isJsonObject(value)) throw notAnObject(file, where);
      const object = doc.items
        ? listItem(value, doc.kind, doc.apiVersion, file, where)
        : checkObject(value, file, where);
      objects.push({ object, document: chunk.document, ...(chunk.item ? { item: chunk.item } : {}) });
    }
  }
  return { file, objects, hasManagedFields: /^\s+managedFields:/m.test(text) };
}

function parseDocuments(text: string, file: string): unknown[] {
  // `kubectl get -o json` prints one JSON value; JSON.parse reads it several times faster.
  if (/^\s*[{[]/.test(text)) {
    try {
      return [JSON.parse(text)];
    } catch {
      // Not a single JSON value (e.g. several, from a loop): YAML reads JSON documents too.
    }
  }
  try {
    return jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA, filename: file });
  } catch (e) {
    const ex = e as { reason?: string; mark?: { line: number; column: number }; message: string };
    throw new SpecError(
      error('yaml-syntax', `${file} is not valid YAML or JSON: ${ex.reason ?? ex.message}`, {
        file,
        ...(ex.mark ? { line: ex.mark.line + 1, col: ex.mark.column + 1 } : {}),
        hint: 'pass the output of kubectl get … -o yaml (or -o json) unchanged',
      }),
    );
  }
}

/** The objects of one document: the document itself, or the items of a List. */
function expandList(doc: JsonObject, file: string, document: number): [number | undefined, KubeObject][] {
  const kind = typeof doc.kind === 'string' ? doc.kind : undefined;
  const isList = Array.isArray(doc.items) && (kind === undefined || kind.endsWith('List'));
  if (!isList) return [[undefined, checkObject(doc, file, `document ${document}`)]];
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : undefined;
  return (doc.items as JsonValue[]).map((value, i): [number, KubeObject] => {
    const where = `item ${i + 1} of document ${document}`;
    if (!isJsonObject(value)) throw notAnObject(file, where);
    return [i + 1, listItem(value, kind, apiVersion, file, where)];
  });
}

/** An item of a List: a typed list (`DeploymentList` from --raw) may omit each item's apiVersion and kind. */
function listItem(
  value: JsonObject,
  listKind: string | undefined,
  listApiVersion: string | undefined,
  file: string,
  where: string,
): KubeObject {
  const itemKind = listKind && listKind !== 'List' ? listKind.slice(0, -'List'.length) : undefined;
  const itemApiVersion = itemKind ? listApiVersion : undefined;
  const filled = {
    ...(itemApiVersion && value.apiVersion === undefined ? { apiVersion: itemApiVersion } : {}),
    ...(itemKind && value.kind === undefined ? { kind: itemKind } : {}),
    ...value,
  };
  return checkObject(filled, file, where);
}

function checkObject(value: JsonObject, file: string, where: string): KubeObject {
  const meta = value.metadata;
  if (
    typeof value.apiVersion !== 'string' ||
    typeof value.kind !== 'string' ||
    !isJsonObject(meta) ||
    typeof meta.name !== 'string' ||
    meta.name === ''
  ) {
    throw new SpecError(
      error(
        'live-dump',
        `${where} of ${file} is not a Kubernetes object (it needs apiVersion, kind and metadata.name)`,
        {
          file,
          hint: 'pass the output of kubectl get … -o yaml unchanged; a List, a single object or a --- separated stream of them',
        },
      ),
    );
  }
  const object = value as KubeObject;
  return object.kind === 'Secret' && object.apiVersion === 'v1' ? withSecretDigests(object) : object;
}

function notAnObject(file: string, where: string): SpecError {
  return new SpecError(
    error('live-dump', `${where} of ${file} is not a mapping`, {
      file,
      hint: 'pass the output of kubectl get … -o yaml unchanged',
    }),
  );
}

/** The Secret with every value replaced by its digest and the last-applied copy dropped. */
function withSecretDigests(secret: KubeObject): KubeObject {
  const out: KubeObject = { ...secret };
  for (const field of ['data', 'stringData'] as const) {
    const values = secret[field];
    if (!isJsonObject(values)) continue;
    out[field] = Object.fromEntries(
      Object.entries(values).map(([key, value]) => {
        // data is base64; stringData plain: digest the decoded bytes, so both forms of a value agree.
        const bytes =
          field === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.from(String(value));
        return [key, `${SECRET_DIGEST_PREFIX}${createHash('sha256').update(bytes).digest('hex')}`];
      }),
    );
  }
  const meta = secret.metadata as JsonObject;
  if (isJsonObject(meta.annotations) && LAST_APPLIED in meta.annotations) {
    const { [LAST_APPLIED]: _dropped, ...annotations } = meta.annotations;
    out.metadata = { ...meta, annotations };
  }
  return out;
}
