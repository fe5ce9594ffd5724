/**
 * A fuzz target per parser the CLI exposes to outside data: the lock, overlays, the live dump
 * reader, the variable syntax, label selectors, image references, OCI references, the GitHub /
 * GitLab URL parsers, and an image folder's index.json and oci-archive tar (mirror --images --from). Each
 * property: the parser returns or throws a RenderError whose diagnostics
 * have a code and a message (and the file, where the parser knows it) — never another exception —
 * in time linear enough (see {@link SLOW_RATIO}), and what it accepts survives a round trip through
 * its formatter.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import jsYaml from 'js-yaml';
import { loadDocuments } from '../../src/manifest/fast-load.js';
import { measureExpansion } from '../../src/manifest/alias-expansion.js';
import { RenderError } from '../../src/errors.js';
import { parseLock, serializeLock } from '../../src/lock/lock-file.js';
import { loadOverlay } from '../../src/overlay/load-overlay.js';
import { parseLiveDump } from '../../src/adopt/live-dump.js';
import { inspectVariables, substituteVariables, MissingVariablesError } from '../../src/process/variables/index.js';
import { parseLabelSelector } from '../../src/customize/patches/label-selector.js';
import { formatImageReference, parseImageReference } from '../../src/process/image-reference.js';
import { formatOciReference, parseOciReference } from '../../src/source/oci/oci-reference.js';
import { parseGitHubReleaseUrl } from '../../src/source/github/github-url.js';
import { parseGitLabPackageUrl } from '../../src/source/gitlab/gitlab-url.js';
import { parseSopsRules } from '../../src/secrets/sops/sops-rules.js';
import { decryptSopsDocument, readSopsDocument } from '../../src/secrets/sops/sops-document.js';
import { identitiesIn } from '../../src/secrets/sops/age-keys.js';
import { layoutIndexBytes, manifestChildren, parseLayoutIndex } from '../../src/images/layout/layout-format.js';
import { TAR_END, readTarIndex, tarHeader, tarPadding } from '../../src/images/layout/tar-archive.js';
import {
  blockFormWithoutLocations,
  parsedWithoutLocations,
  withoutRepositoryLocations,
} from '../../src/config/location-free-config.js';
import type { FuzzTarget } from './campaign.js';
import { PropertyViolation } from './repo-case.js';
import { mutatedText, parserInput } from './text-mutation.js';
import { FIXTURES_REPOSITORY, REPO_ROOT } from './fuzz-paths.js';
import { describeTimes, timeSideBySide } from '../helpers/timing.js';

/**
 * Quadratic and exponential paths: a case whose property takes {@link SUSPECT_MS} or more is timed
 * again side by side with the same property on a seed input of the same length (the target's first
 * seed, repeated; medians of {@link SLOW_ROUNDS} alternating runs), and is a violation when it takes
 * SLOW_RATIO times as long. The verdict is a ratio of medians measured together, which a loaded
 * machine changes little (it slows both alike, and one preempted run is not a median); the floor of
 * SUSPECT_MS on the input's own median only keeps microsecond noise from counting, so a slower
 * machine can never fail a case. A path worth finding is thousands of times slower at these sizes.
 */
const SLOW_RATIO = 50;
const SUSPECT_MS = 50;
const SLOW_ROUNDS = 7;

/** Calls fn; a throw must be a RenderError with well-formed diagnostics (and `file`, when given). */
function parsed<T>(name: string, input: string, fn: () => T, file?: string): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof RenderError))
      throw new PropertyViolation(
        `${name}(${JSON.stringify(input).slice(0, 200)}) threw ${(e as Error)?.stack ?? String(e)}`,
      );
    if (e.diagnostics.length === 0) throw new PropertyViolation(`${name}: a RenderError without diagnostics`);
    for (const d of e.diagnostics) {
      if (typeof d.code !== 'string' || typeof d.message !== 'string' || d.message === '')
        throw new PropertyViolation(`${name}: a diagnostic without code or message: ${JSON.stringify(d)}`);
      if (file !== undefined && d.file !== file)
        throw new PropertyViolation(`${name}: an error that does not name ${file}: ${d.message}`);
    }
    return undefined;
  }
}

const literal = (value: string) => JSON.stringify(value);

function target(
  name: string,
  seed: string,
  arbitrary: fc.Arbitrary<string>,
  property: (input: string) => void | Promise<void>,
): FuzzTarget<string> {
  return {
    name,
    level: 'parser',
    arbitrary,
    property: linearTime(name, seed, property),
    regression: (input) =>
      [
        `import { parserTargets } from './parser-targets.js';`,
        `await parserTargets().find((t) => t.name === ${literal(name)})!.property(${literal(input)});`,
      ].join('\n'),
  };
}

/** `property`, failing also on a case that takes {@link SLOW_RATIO} times as long as `seed` repeated to its length. */
export function linearTime(
  name: string,
  seed: string,
  property: (input: string) => void | Promise<void>,
): (input: string) => Promise<void> {
  return async (input) => {
    const started = performance.now();
    await property(input);
    if (performance.now() - started >= SUSPECT_MS)
      await notSlow(name, input, property, seed.repeat(Math.ceil(input.length / seed.length)).slice(0, input.length));
  };
}

/** The {@link SLOW_RATIO} verdict on a suspect case. */
async function notSlow(
  name: string,
  input: string,
  property: (input: string) => void | Promise<void>,
  seed: string,
): Promise<void> {
  const quietly = async (text: string) => {
    try {
      await property(text);
    } catch {
      // Timing only: the input's verdict was given by its first run.
    }
  };
  const times = await timeSideBySide({ input: () => quietly(input), seed: () => quietly(seed) }, SLOW_ROUNDS);
  if (times.input.median >= SUSPECT_MS && times.input.median >= SLOW_RATIO * times.seed.median) {
    throw new PropertyViolation(
      `${name}: an input of ${input.length} characters takes ${SLOW_RATIO}× or more the time of a seed input as long (${describeTimes(times)})`,
    );
  }
}

// Seeds: the repository's own lock and overlays, small live dumps, and typical values of each field.
const LOCK = readFileSync(path.join(REPO_ROOT, 'capi-render.lock'), 'utf8');
const OVERLAYS = ['overlays/dev/overlay.yaml', 'overlays/prod/overlay.yaml'].map((f) =>
  readFileSync(path.join(REPO_ROOT, f), 'utf8'),
);
const YAML_WORDS = [
  ': ',
  '- ',
  '---\n',
  '...\n',
  '&a ',
  '*a',
  '!!str ',
  '!!binary ',
  '<<: ',
  '? ',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '|\n',
  '>-\n',
  '#',
  '\n  ',
  'null',
  '~',
  'true',
  '0x1F',
  '1e9',
  '.inf',
  'apiVersion',
  'kind',
  'name',
  'providers',
  'environments',
  'sha256',
  'version',
  'v1.12.0',
];
const DUMPS = [
  'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: capi-system\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n    namespace: capi-system\n  data:\n    token: c2VjcmV0\n',
  'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capi-controller-manager\n  namespace: capi-system\n  managedFields:\n  - manager: kubectl\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: capi-system\ndata: {a: b}\n',
  '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa","namespace":"capi-system"}}]}',
];
const TEMPLATES = [
  'image: ${REG:=registry.k8s.io}/capi:${TAG}',
  'a: ${A:=${B:=x}}',
  '${A:-d} ${B=e} ${C:+f} $D $$E ${#F} ${G:1:2} ${H/x/y} ${I^^} ${J,} ${K%%.*} ${L##*/}',
  'args: ["--v=${V:=2}"]\n---\nkind: ${KIND}',
];
const TEMPLATE_WORDS = [
  '${',
  '}',
  '$',
  '$$',
  ':=',
  ':-',
  '=',
  '-',
  ':+',
  '+',
  ':',
  '#',
  '##',
  '%',
  '%%',
  '/',
  '//',
  '^',
  '^^',
  ',',
  ',,',
  'A',
  'B_1',
  '0',
  '1',
  '-1',
  '\n---\n',
  '\\',
  '"',
];
const SELECTORS = [
  'a=b,c!=d',
  'env in (prod, dev),!legacy',
  'tier notin (a,),x',
  'x.io/y-z==v',
  'n>3,m<10',
  'a,b,c',
  '',
];
const SELECTOR_WORDS = [
  '=',
  '==',
  '!=',
  'in',
  'notin',
  '(',
  ')',
  ',',
  '!',
  '>',
  '<',
  ' ',
  'a',
  'b.io/c',
  '-',
  '_',
  '.',
  '0',
  'x'.repeat(64),
];
const IMAGES = [
  'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
  'docker.io/library/nginx:1.0@sha256:' + 'a'.repeat(64),
  'localhost:5000/x/y',
  'nginx',
  '[::1]:5000/a/b:c',
  'gcr.io/a_b/c__d/e--f:t.1-2',
];
const REF_WORDS = [
  ':',
  '/',
  '@',
  'sha256:',
  'a'.repeat(64),
  '[',
  ']',
  '::1',
  'localhost',
  '5000',
  '.',
  '_',
  '__',
  '-',
  '--',
  'A',
  'latest',
  'http://',
  'https://',
  'oci://',
];
const OCI = [
  'ghcr.io/kubernetes-sigs/cluster-api:v1.12.0',
  'http://localhost:5000/capi/core',
  'https://registry.example.com:8443/a/b/c:tag',
  'oci://ghcr.io/x/y:z',
  'reg/x@sha256:' + 'b'.repeat(64),
];
const GITHUB = [
  'https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/core-components.yaml',
  'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
  'https://github.com/o/r/releases/download/v1.0.0/a/b.yaml',
  'https://github.com/o/r/releases/tag/v2.0.0',
  'https://github.com/o/r/releases',
  'https://ghe.example.com/o/r/releases/v1/x.yaml',
];
const GITLAB = [
  'https://gitlab.example.com/api/v4/projects/group%2Fproject/packages/generic/cluster-api/v1.12.0/core-components.yaml',
  'https://gitlab.com/api/v4/projects/123/packages/generic/p/latest/f.yaml',
];
const URL_WORDS = [
  '/',
  '//',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '?',
  '#',
  '@',
  ':',
  ':443',
  'user:pass@',
  'http://',
  'https://',
  'releases',
  'download',
  'tag',
  'latest',
  'v1.0.0',
  'api',
  'v4',
  'projects',
  'packages',
  'generic',
  '\\',
  ' ',
  '%',
  '%zz',
];

// SOPS: Flux's own .sops.yaml and two files written by sops, with their published test identities.
const SOPS_FIXTURES = path.join(REPO_ROOT, 'test/fixtures/sops/kustomize-controller');
const sopsFixture = (f: string) => readFileSync(path.join(SOPS_FIXTURES, f), 'utf8');
const SOPS_RULES = [
  sopsFixture('.sops.yaml'),
  'creation_rules:\n  - path_regex: ^rendered/prod/\n    encrypted_regex: ^(data|stringData)$\n    age: age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29\n  - encrypted_regex: ^data$\n    key_groups:\n      - age: [age1henwn645drkd3fa34t27t2w2x0nsgw3w4h62gmg5x5xflyjpy38s5cncph]\n',
];
const SOPS_FILES = [sopsFixture('algorithms-age.yaml'), sopsFixture('global-secret.yaml')];
const SOPS_IDENTITIES = [
  ...identitiesIn(sopsFixture('keys-age.txt')).keys,
  ...identitiesIn(sopsFixture('keys-age-global.txt')).keys,
];
const SOPS_WORDS = [
  'creation_rules',
  'path_regex',
  'encrypted_regex',
  'unencrypted_suffix',
  'key_groups',
  'age',
  'pgp',
  'sops',
  'mac',
  'lastmodified',
  'enc',
  'recipient',
  'ENC[AES256_GCM,data:',
  ',iv:',
  ',tag:',
  ',type:str]',
  'type:int]',
  '-----BEGIN AGE ENCRYPTED FILE-----',
  '-----END AGE ENCRYPTED FILE-----',
  'age1',
  '^(data|stringData)$',
  '.*',
  '(',
  ')',
  '\\',
  ',',
  '2024-11-12T13:33:42Z',
];

// An image folder's index.json and manifests (what mirror --images --from reads), and an oci-archive of one, byte for byte as latin1 text.
const CONFIG_TEXTS = [
  'apiVersion: capi-render/v1alpha1\nkind: Config\nrepositories:\n  - path: test/fixtures/repository # mirror\n  - name: b\n    path: "vendor/x y"\nvariables:\n  X: "1"\n',
  "repositories: [{path: a}, {path: 'b c'}]\ncertManager: {install: false}\n",
];
const CONFIG_WORDS = [
  'repositories:',
  '\n',
  '  - ',
  '- ',
  'path: ',
  'path:',
  '    ',
  '#',
  ' # c',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a ',
  '*a',
  '|',
  '>',
  '---\n',
  '\t',
  ':',
  'name: ',
  'kind: Config\n',
  '\\',
  'ü',
];

/** Whether `short` is `long` with some characters deleted (and none changed or added). */
function isDeletionOf(short: string, long: string): boolean {
  let at = 0;
  for (const c of short) {
    at = long.indexOf(c, at);
    if (at < 0) return false;
    at += c.length;
  }
  return true;
}

const LAYOUT_INDEXES = [
  '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":"sha256:1af2596f8ee74eb0e1fc9885103a222f837556ca2934a973cd177626e1fa22dc","size":501,"annotations":{"org.opencontainers.image.ref.name":"registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0"}},{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:0b5e1c3e4a8f7d2c6b9a1e0f3d5c7b9a2e4f6d8c0b1a3e5f7d9c2b4a6e8f0d1c","size":600,"artifactType":"application/vnd.dev.sigstore.bundle.v0.3+json","annotations":{"dev.capi-render.referrer-of":"registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0"}}]}',
  '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","size":0,"urls":["https://example.com/l"]}]}',
];
const LAYOUT_WORDS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  'null',
  '-1',
  '1e400',
  '"schemaVersion"',
  '2',
  '"manifests"',
  '"mediaType"',
  '"digest"',
  '"size"',
  '"annotations"',
  '"artifactType"',
  '"layers"',
  '"config"',
  '"urls"',
  'sha256:',
  'sha512:',
  '"org.opencontainers.image.ref.name"',
  '"dev.capi-render.referrer-of"',
  'application/vnd.oci.image.index.v1+json',
  '.foreign.',
  '..',
  '/',
  '\\u0000',
];
const ARCHIVES = [
  archiveText([
    ['oci-layout', '{"imageLayoutVersion":"1.0.0"}\n'],
    ['blobs/', ''],
    [`blobs/sha256/${'a'.repeat(64)}`, '{}'],
    ['index.json', LAYOUT_INDEXES[0]!],
  ]),
];
const ARCHIVE_WORDS = [
  '\0',
  '\0'.repeat(100),
  'ustar\x0000',
  'ustar  \0',
  '0000644\0',
  '00000000000\0',
  '77777777777\0',
  '2',
  '1',
  '5',
  'x',
  '../',
  '/etc/passwd',
  'blobs/',
  'index.json',
  '30 path=blobs/sha256/aaaa\n',
  ' '.repeat(8),
];

/** A tar (as mirror --images writes one) of name → text, as latin1 text. */
function archiveText(files: [string, string][]): string {
  const parts: Uint8Array[] = [];
  for (const [name, text] of files) {
    const bytes = Buffer.from(text, 'latin1');
    parts.push(tarHeader({ name, size: bytes.length }), bytes, tarPadding(bytes.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts).toString('latin1');
}

let overlayDir: string | undefined;

/**
 * What loadDocuments gets wrong on `text`, or undefined: its documents must be js-yaml's (key order,
 * prototypes, Object.is-equal scalars), it must throw js-yaml's error when js-yaml throws, and a
 * document it read itself must hold as many values as measureExpansion counts.
 */
export function yamlReaderProblem(text: string): string | undefined {
  let expected: unknown[] | undefined;
  let expectedError: string | undefined;
  try {
    expected = jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA });
  } catch (e) {
    expectedError = (e as Error).message;
  }
  let read: ReturnType<typeof loadDocuments>;
  try {
    read = loadDocuments(text);
  } catch (e) {
    if (expectedError === undefined) return `loadDocuments threw ${(e as Error).message}, js-yaml did not`;
    const message = (e as Error).message;
    return message === expectedError ? undefined : `loadDocuments threw ${message}, js-yaml ${expectedError}`;
  }
  if (expected === undefined) return `js-yaml threw ${expectedError}, loadDocuments returned`;
  if (read.documents.length !== expected.length || read.values.length !== expected.length)
    return `${read.documents.length} documents (${read.values.length} counts), js-yaml ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    const difference = valueDifference(read.documents[i], expected[i], `document ${i}`);
    if (difference) return difference;
    const values = read.values[i]!;
    if (values < -1) return `document ${i}: value count ${values}`;
    if (values >= 0) {
      const budget = { remaining: Number.MAX_SAFE_INTEGER };
      measureExpansion(expected[i], budget);
      const counted = Number.MAX_SAFE_INTEGER - budget.remaining;
      if (counted !== values) return `document ${i}: ${values} values, measureExpansion counts ${counted}`;
    }
  }
  return undefined;
}

/**
 * Where `ours` differs from `theirs` (key order and prototypes included), or undefined. `seen` pairs
 * objects already compared: aliases make shared and even cyclic values.
 */
function valueDifference(
  ours: unknown,
  theirs: unknown,
  where: string,
  seen = new Map<object, object>(),
): string | undefined {
  if (typeof ours !== 'object' || ours === null || typeof theirs !== 'object' || theirs === null) {
    return Object.is(ours, theirs) ? undefined : `${where}: ${describeValue(ours)}, js-yaml ${describeValue(theirs)}`;
  }
  const paired = seen.get(ours);
  if (paired !== undefined) return paired === theirs ? undefined : `${where}: shared differently`;
  seen.set(ours, theirs);
  if (Object.getPrototypeOf(ours) !== Object.getPrototypeOf(theirs)) return `${where}: another prototype`;
  const keys = Reflect.ownKeys(ours);
  const theirKeys = Reflect.ownKeys(theirs);
  if (keys.length !== theirKeys.length || keys.some((k, i) => k !== theirKeys[i]))
    return `${where}: keys ${describeValue(keys.map(String))}, js-yaml ${describeValue(theirKeys.map(String))}`;
  for (const key of keys) {
    const difference = valueDifference(
      (ours as Record<string | symbol, unknown>)[key],
      (theirs as Record<string | symbol, unknown>)[key],
      `${where}.${String(key)}`,
      seen,
    );
    if (difference) return difference;
  }
  return undefined;
}

function describeValue(value: unknown): string {
  if (typeof value === 'number' && Object.is(value, -0)) return '-0';
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 80)}`;
}

/**
 * A seed of a few KB from a release artifact: the first `bytes` (to a line end) of the documents
 * that follow each offset in `from`, as one multi-document text. Whole documents would be too large:
 * a CRD alone is hundreds of KB.
 */
function artifactSnippet(file: string, from: number[], bytes: number): string {
  const text = gunzipSync(readFileSync(path.join(FIXTURES_REPOSITORY, file))).toString('utf8');
  return from
    .map((offset) => {
      const start = offset === 0 ? 0 : text.indexOf('\n---\n', offset) + 5;
      return text.slice(start, text.lastIndexOf('\n', start + bytes) + 1);
    })
    .join('---\n');
}

const YAML_READER_SEEDS = [
  artifactSnippet('cluster-api/v1.12.0/core-components.yaml.gz', [0, 600_000, 1_300_000], 1000),
  artifactSnippet('cluster-api/v1.12.0/core-components.yaml.gz', [100_000], 3000),
  artifactSnippet('cert-manager/v1.19.4/cert-manager.yaml.gz', [0, 800_000, 900_000, 950_000], 700),
  artifactSnippet('cert-manager/v1.19.4/cert-manager.yaml.gz', [300_000], 4000),
  artifactSnippet(
    'infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz',
    [200_000, 330_000],
    1500,
  ),
  'a: 1\nb:\n  c: [x, "y", \'z\']\n  d:\n  - e: true\n    f: ~\n  -\n    g: 0x1F\n  - - 1e3\n---\nh: -0\n',
  'k: |\n  line\n\n    deeper\n  last\nl: |-\n  x\nm: |+\n  y\n\nn: >\n  folded\n',
  "s: 'it''s\n  two'\nd: \"t\\tab \\x41\\u00e9\\\n  joined\"\np: plain\n  continued\n\n  again\n",
  '# comment\n---   \n--- \nx: 1\n...\n%YAML 1.2\n---\ny: [a, b]\nz: {}\nw: { }\n',
  'true: 1\nnull: 2\n1e3: 3\n0x10: 4\nf:metadata: 5\n"quoted": 6\n__proto__: 7\n',
];

const YAML_READER_WORDS = [
  ': ',
  '- ',
  '|',
  '|-',
  '|+',
  '>',
  "'",
  "''",
  '"',
  '\\',
  '\n',
  '\n  ',
  '  ',
  '#',
  ' #',
  '---',
  '---\n',
  '...',
  '[',
  ']',
  '{',
  '}',
  ', ',
  '&a ',
  '*a',
  '!!str ',
  '~',
  'null',
  'Null',
  'true',
  'FALSE',
  '0x1F',
  '0o17',
  '0b101',
  '1_000',
  '1e3',
  '.inf',
  '-.INF',
  '.nan',
  '-0',
  '+12',
  '-',
  '?',
  '\t',
  '\r\n',
  '\\x41',
  '\\u00e9',
  '\\q',
  '__proto__',
  '%YAML 1.2\n',
];

/** A scalar for the structured YAML generator, in one of the styles the reader handles (and some it leaves). */
const yamlScalar: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'null',
    '~',
    'Null',
    'true',
    'False',
    '0',
    '-0',
    '+7',
    '0x1f',
    '0o17',
    '0b11',
    '1_000',
    '1.5',
    '1e3',
    '-.inf',
    '.NaN',
    'v1.2',
    'a b',
    'x:y',
    'http://h/p',
    "'q'",
    "'it''s'",
    '"d"',
    '"\\t\\x41"',
    '[]',
    '{}',
    '[a, 1, "b"]',
    '>-',
  ),
  fc.stringMatching(/^[a-z][a-z0-9 .:_-]{0,8}[a-z0-9]$/).filter((t) => !t.includes(': ')),
);
const yamlKey: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9._-]{0,6}$/),
  fc.constantFrom(
    'true',
    'True',
    'null',
    'NULL',
    '~',
    '1e3',
    '1000',
    '0x10',
    '0o20',
    '16',
    '1_6',
    '"16"',
    '.5',
    '0.5',
    '"q"',
    "'s'",
    '"a b"',
    'f:m',
    '__proto__',
  ),
);

/** A scalar over several lines: a block scalar, or a plain or quoted one folded over lines. */
interface MultiLine {
  style: '|' | '|-' | '|+' | '>' | 'plain' | "'" | '"';
  lines: string[];
  /** Extra indentation per line (cycled), 0 for most. */
  shifts: number[];
}
type YamlNode = string | MultiLine | { map: [string, YamlNode][] } | { seq: YamlNode[] };

const multiLine: fc.Arbitrary<MultiLine> = fc.record({
  style: fc.constantFrom(
    '|' as const,
    '|-' as const,
    '|+' as const,
    '>' as const,
    'plain' as const,
    "'" as const,
    '"' as const,
  ),
  lines: fc.array(
    fc.oneof(
      fc.stringMatching(/^[a-z][a-z0-9 .-]{0,6}$/),
      fc.constantFrom('', ' ', '   ', 'x\\', 'x #y', '# c', '- a', 'k: v', "it''s", '\\t'),
    ),
    { minLength: 1, maxLength: 5 },
  ),
  shifts: fc.array(fc.constantFrom(0, 0, 0, 0, 1, 2, -1), { minLength: 1, maxLength: 4 }),
});

const yamlNode: fc.Arbitrary<YamlNode> = fc.letrec<{ node: YamlNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    yamlScalar,
    multiLine,
    fc.record({
      map: fc.uniqueArray(fc.tuple(yamlKey, tie('node')), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
    }),
    fc.record({ seq: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
  ),
})).node;

/** Block YAML for a generated document, each nested level (and scalar text) indented by `step()` more. */
function writeDocument(
  entries: [string, YamlNode][],
  step: () => number,
  compact: boolean,
  comment: boolean,
): string[] {
  const lines: string[] = [];
  const write = (node: YamlNode, indent: number, lead: string): void => {
    if (typeof node === 'string') {
      lines.push(`${lead} ${node}`);
    } else if ('style' in node) {
      const column = indent + step();
      const quote = node.style === "'" || node.style === '"' ? node.style : '';
      const header = quote === '' && node.style !== 'plain' ? node.style : '';
      const body = node.lines.map((l, i) => {
        const at = Math.max(0, column + node.shifts[i % node.shifts.length]!);
        return l === '' ? '' : ' '.repeat(at) + l;
      });
      if (header) {
        lines.push(`${lead} ${header}`, ...body);
      } else {
        // The first line goes on the entry's own line; an empty one keeps the text on the next.
        const [first, ...rest] = body;
        const text = [`${lead} ${quote}${first!.trimStart()}`, ...rest];
        text[text.length - 1] += quote;
        lines.push(...text);
      }
    } else if ('map' in node) {
      if (lead.endsWith('-') && compact) {
        node.map.forEach(([k, v], i) => {
          const prefixText = i === 0 ? `${lead} ` : ' '.repeat(lead.length + 1);
          write(v, lead.length + 1, `${prefixText}${k}:`);
        });
        return;
      }
      const inner = indent + step();
      lines.push(lead);
      for (const [k, v] of node.map) write(v, inner, `${' '.repeat(inner)}${k}:`);
    } else {
      const inner = lead.endsWith(':') && compact ? indent : indent + step();
      lines.push(lead);
      for (const v of node.seq) write(v, inner, `${' '.repeat(inner)}-`);
    }
    if (comment && lines.length % 5 === 0) lines.push(`${' '.repeat(step())}# comment`);
  };
  for (const [k, v] of entries) write(v, 0, `${k}:`);
  return lines;
}

/** Generated mappings written as block YAML documents, in random (mostly valid) layouts. */
const structuredYaml: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.uniqueArray(fc.tuple(yamlKey, yamlNode), { minLength: 1, maxLength: 5, selector: ([k]) => k }), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 64, maxLength: 64 }),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom('', '---\n', '# c\n---\n'),
    fc.boolean(),
  )
  .map(([documents, steps, compact, comment, prefix, finalNewline]) => {
    let next = 0;
    const step = () => steps[next++ % steps.length]!;
    const text = documents
      .map((entries) =>
        writeDocument(entries, step, compact, comment)
          .map((l) => l.replace(/ +$/, ''))
          .join('\n'),
      )
      .join('\n---\n');
    return prefix + text + (finalNewline ? '\n' : '');
  });

/** The parser-level targets. */
export function parserTargets(): FuzzTarget<string>[] {
  return [
    target(
      'yaml-reader',
      YAML_READER_SEEDS[0]!,
      fc.oneof(
        { weight: 3, arbitrary: parserInput(YAML_READER_SEEDS, YAML_READER_WORDS, 400) },
        { weight: 1, arbitrary: structuredYaml },
        { weight: 1, arbitrary: structuredYaml.chain((t) => mutatedText([t], YAML_READER_WORDS)) },
      ),
      (text) => {
        const problem = yamlReaderProblem(text);
        if (problem) throw new PropertyViolation(`loadDocuments(${JSON.stringify(text).slice(0, 300)}): ${problem}`);
      },
    ),
    target(
      'lock',
      LOCK,
      parserInput([LOCK, LOCK.slice(0, 2000), 'apiVersion: capi-render/v1alpha1\nkind: Lock\n'], YAML_WORDS, 400),
      (text) => {
        const lock = parsed('parseLock', text, () => parseLock(text), 'capi-render.lock');
        if (!lock) return;
        const once = serializeLock(lock);
        const again = parsed('parseLock', once, () => parseLock(once), 'capi-render.lock');
        if (!again)
          throw new PropertyViolation(
            `a lock that parses serializes to one that does not: ${JSON.stringify(text).slice(0, 300)}`,
          );
        if (serializeLock(again) !== once) throw new PropertyViolation('serializeLock(parseLock(x)) is not stable');
      },
    ),
    target('overlay', OVERLAYS[0]!, parserInput(OVERLAYS, YAML_WORDS, 400), async (text) => {
      overlayDir ??= mkdtempSync(path.join(os.tmpdir(), 'capi-render-fuzz-overlay-'));
      writeFileSync(path.join(overlayDir, 'overlay.yaml'), text);
      try {
        await loadOverlay(overlayDir, 'overlay.yaml');
      } catch (e) {
        parsed(
          'loadOverlay',
          text,
          () => {
            throw e;
          },
          'overlay.yaml',
        );
      }
    }),
    target('live-dump', DUMPS[0]!, parserInput(DUMPS, YAML_WORDS, 400), (text) => {
      // The selective path (chunked block YAML) must agree with the whole parse.
      const whole = parsed('parseLiveDump', text, () => parseLiveDump(text, 'dump.yaml'), 'dump.yaml');
      const some = parsed(
        'parseLiveDump(select)',
        text,
        () => parseLiveDump(text, 'dump.yaml', () => true),
        'dump.yaml',
      );
      if (
        whole &&
        some &&
        !isDeepStrictEqual(
          whole.objects.map((o) => o.object),
          some.objects.map((o) => o.object),
        )
      ) {
        throw new PropertyViolation(
          'parseLiveDump with a selector that keeps everything read other objects than without',
        );
      }
    }),
    target('variables', TEMPLATES[0]!, parserInput(TEMPLATES, TEMPLATE_WORDS), (text) => {
      const vars = parsed('inspectVariables', text, () => inspectVariables(text, 'components.yaml'), 'components.yaml');
      let missing: string[] | undefined;
      const out = parsed(
        'substituteVariables',
        text,
        () => {
          try {
            return substituteVariables(text, () => undefined, 'components.yaml');
          } catch (e) {
            if (e instanceof MissingVariablesError) missing = [...e.missing].sort();
            throw e;
          }
        },
        'components.yaml',
      );
      // A template inspect rejects cannot substitute; the converse may fail at evaluation only (a
      // negative substring length, on which envsubst itself crashes).
      if (vars === undefined && out !== undefined)
        throw new PropertyViolation('substituteVariables accepts a template inspectVariables rejects');
      if (vars && missing) {
        const required = vars
          .filter((v) => !v.hasDefault)
          .map((v) => v.name)
          .sort();
        if (!isDeepStrictEqual(required, missing))
          throw new PropertyViolation(`missing ${missing.join(',')} but inspect says required ${required.join(',')}`);
      }
      if (vars && out && vars.some((v) => !v.hasDefault))
        throw new PropertyViolation('a template with a required variable substituted with no values');
    }),
    target('label-selector', SELECTORS[0]!, parserInput(SELECTORS, SELECTOR_WORDS), (text) => {
      const m = parsed('parseLabelSelector', text, () => parseLabelSelector(text));
      if (!m) return;
      const again = parsed('parseLabelSelector', m.text, () => parseLabelSelector(m.text));
      if (!again || !isDeepStrictEqual(again.requirements, m.requirements))
        throw new PropertyViolation(
          `selector ${JSON.stringify(text)} prints as ${JSON.stringify(m.text)}, which parses otherwise`,
        );
    }),
    target('image-reference', IMAGES[0]!, parserInput(IMAGES, REF_WORDS), (text) => {
      let r;
      try {
        r = parseImageReference(text);
      } catch (e) {
        throw new PropertyViolation(`parseImageReference threw ${(e as Error)?.stack}`);
      }
      if (r.kind === 'ok' && formatImageReference(r.image) !== text)
        throw new PropertyViolation(`image ${text} formats as ${formatImageReference(r.image)}`);
      if (r.kind === 'not-canonical') {
        const n = parseImageReference(r.normalized);
        if (n.kind !== 'ok')
          throw new PropertyViolation(`the canonical form ${r.normalized} of ${text} does not parse (${n.kind})`);
      }
    }),
    target('oci-reference', OCI[0]!, parserInput(OCI, REF_WORDS), (text) => {
      const ref = parsed('parseOciReference', text, () => parseOciReference(text));
      if (!ref) return;
      const again = parsed('parseOciReference', formatOciReference(ref), () =>
        parseOciReference(formatOciReference(ref)),
      );
      if (!again || !isDeepStrictEqual(again, ref))
        throw new PropertyViolation(
          `OCI reference ${text} formats as ${formatOciReference(ref)}, which parses otherwise`,
        );
    }),
    target('github-url', GITHUB[0]!, parserInput(GITHUB, URL_WORDS), (text) => {
      const u = parsed('parseGitHubReleaseUrl', text, () =>
        parseGitHubReleaseUrl(text, { kind: 'CoreProvider', enterpriseHosts: [{ origin: 'https://ghe.example.com' }] }),
      );
      if (!u) return;
      for (const [k, v] of Object.entries({ owner: u.owner, repo: u.repo, componentsFile: u.componentsFile })) {
        if (v === '' || v.includes('/') || v === '.' || v === '..')
          throw new PropertyViolation(`${text}: ${k} ${JSON.stringify(v)} is not one path segment`);
      }
    }),
    target('sops-rules', SOPS_RULES[1]!, parserInput(SOPS_RULES, [...YAML_WORDS, ...SOPS_WORDS], 400), (text) => {
      const rules = parsed('parseSopsRules', text, () => parseSopsRules(text, '.sops.yaml'), '.sops.yaml');
      if (!rules) return;
      for (const file of ['rendered/prod/infrastructure-aws/secret-a.yaml', 'algorithms/age.yaml', '']) {
        const rule = parsed('ruleFor', text, () => rules.ruleFor(file), '.sops.yaml');
        if (!rule) continue;
        if (rule.recipients.length === 0 || rule.recipients.some((r) => !/^age1[a-z0-9]{58}$/.test(r)))
          throw new PropertyViolation(
            `a rule resolved to recipients that are not age keys: ${JSON.stringify(rule.recipients)}`,
          );
        if (!rule.encryptedRegex && !rule.unencryptedRegex && !rule.encryptedSuffix && !rule.unencryptedSuffix)
          throw new PropertyViolation('a rule resolved without a selection');
      }
    }),
    target(
      'sops-document',
      SOPS_FILES[0]!,
      parserInput(SOPS_FILES, [...YAML_WORDS, ...SOPS_WORDS], 400),
      async (text) => {
        // Reading the structure never throws: every problem is a line and a message.
        let record;
        try {
          record = readSopsDocument(text, 'secret.yaml');
        } catch (e) {
          throw new PropertyViolation(
            `readSopsDocument(${JSON.stringify(text).slice(0, 200)}) threw ${(e as Error)?.stack ?? String(e)}`,
          );
        }
        for (const p of record.problems)
          if (!(p.line >= 1) || p.message === '')
            throw new PropertyViolation(`a problem without a line or message: ${JSON.stringify(p)}`);
        if (record.problems.length > 0) return;
        // Decrypting returns the plaintext, or nothing when no identity opens it, or a RenderError naming the file.
        try {
          await decryptSopsDocument(record, SOPS_IDENTITIES);
        } catch (e) {
          parsed(
            'decryptSopsDocument',
            text,
            () => {
              throw e;
            },
            'secret.yaml',
          );
        }
      },
    ),
    target('oci-layout-index', LAYOUT_INDEXES[0]!, parserInput(LAYOUT_INDEXES, LAYOUT_WORDS, 400), (text) => {
      const bytes = new TextEncoder().encode(text);
      const entries = parsed('parseLayoutIndex', text, () => parseLayoutIndex(bytes, 'index.json'));
      parsed('manifestChildren', text, () => manifestChildren(bytes, '', 'manifest'));
      if (!entries) return;
      // What it accepts, written again, reads back to the same index.
      const once = layoutIndexBytes(entries);
      const again = parsed('parseLayoutIndex', text, () => parseLayoutIndex(once, 'index.json'));
      if (!again || !isDeepStrictEqual(layoutIndexBytes(again), once))
        throw new PropertyViolation(`index ${JSON.stringify(text).slice(0, 200)} does not survive being written again`);
    }),
    target('config-locations', CONFIG_TEXTS[0]!, parserInput(CONFIG_TEXTS, CONFIG_WORDS, 600), async (text) => {
      const out = await withoutRepositoryLocations(text);
      if (!isDeletionOf(out, text))
        throw new PropertyViolation(`the record of ${JSON.stringify(text).slice(0, 200)} changes or adds characters`);
      if ((await withoutRepositoryLocations(out)) !== out)
        throw new PropertyViolation(
          `the record of ${JSON.stringify(text).slice(0, 200)} is not stable when read again`,
        );
      // Where the line reader and the library both read the text, they leave out the same bytes.
      const byLine = blockFormWithoutLocations(text);
      const parsed = await parsedWithoutLocations(text);
      if (byLine !== undefined && parsed !== text && byLine !== parsed)
        throw new PropertyViolation(`line reader and YAML library differ on ${JSON.stringify(text).slice(0, 200)}`);
    }),
    target('oci-archive', ARCHIVES[0]!, parserInput(ARCHIVES, ARCHIVE_WORDS, 4096), async (text) => {
      const bytes = Buffer.from(text, 'latin1');
      const read = async (offset: number, length: number) => bytes.subarray(offset, offset + length);
      let files;
      try {
        files = await readTarIndex(read, bytes.length, 'images.tar');
      } catch (e) {
        parsed('readTarIndex', text, () => {
          throw e;
        });
        return;
      }
      const names = new Set<string>();
      for (const f of files) {
        if (f.offset < 0 || f.offset + f.size > bytes.length)
          throw new PropertyViolation(`entry ${f.name} lies outside the archive`);
        if (f.name.startsWith('/') || f.name.split('/').includes('..') || names.has(f.name))
          throw new PropertyViolation(`entry name ${JSON.stringify(f.name)} escapes or repeats`);
        names.add(f.name);
      }
    }),
    target('gitlab-url', GITLAB[0]!, parserInput(GITLAB, URL_WORDS), (text) => {
      const u = parsed('parseGitLabPackageUrl', text, () => parseGitLabPackageUrl(text));
      if (!u) return;
      for (const [k, v] of Object.entries({
        projectSlug: u.projectSlug,
        packageName: u.packageName,
        version: u.version,
        componentsFile: u.componentsFile,
      })) {
        if (v === '' || v.includes('/'))
          throw new PropertyViolation(`${text}: ${k} ${JSON.stringify(v)} is not one path segment`);
      }
    }),
  ];
}
