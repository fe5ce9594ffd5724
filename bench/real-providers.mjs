/**
 * Bench rows for the largest real provider releases, one environment each: the management cluster
 * `clusterctl init --infrastructure <provider>` installs (core, kubeadm bootstrap and control plane
 * v1.12.0, cert-manager v1.19.4, the provider), with the variables the provider's corpus.json names
 * set to their example values — against `kubectl kustomize` over a base of the same release files
 * with those values already substituted, as a kustomize user runs envsubst before committing.
 *
 *  - Azure (CAPZ) v1.24.2, whose release file carries Azure Service Operator's CRDs (4.2 MiB);
 *  - AWS (CAPA) v2.11.1, whose `${AWS_CONTROLLER_IAM_ROLE/#arn/…}` is a pattern substitution.
 *
 * Secrets are rendered as plain text (`secrets.mode: plaintext`) so that both sides hold the same
 * objects, the Secrets with the made-up credentials included. Each row passes the same-objects check
 * (./same-objects.mjs) before its times are compared; its targets are the '1 environment' row's.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeKustomizeBase } from './kustomize-base.mjs';
import { differenceBetween } from './same-objects.mjs';

/** What every row installs beside the provider: [label, version, file, kind, name, namespace]. */
const SHARED = [
  ['cluster-api', 'v1.12.0', 'core-components.yaml', 'CoreProvider', 'cluster-api', 'capi-system'],
  [
    'bootstrap-kubeadm',
    'v1.12.0',
    'bootstrap-components.yaml',
    'BootstrapProvider',
    'kubeadm',
    'capi-kubeadm-bootstrap-system',
  ],
  [
    'control-plane-kubeadm',
    'v1.12.0',
    'control-plane-components.yaml',
    'ControlPlaneProvider',
    'kubeadm',
    'capi-kubeadm-control-plane-system',
  ],
];
const CERT_MANAGER = ['cert-manager', 'v1.19.4', 'cert-manager.yaml'];
const ENV = 'mgmt';

/** The rows: the case name's provider and the fixture release it builds. */
const PROVIDERS = [
  { title: 'Azure v1.24.2 with ASO CRDs', label: 'infrastructure-azure', version: 'v1.24.2' },
  { title: 'AWS v2.11.1', label: 'infrastructure-aws', version: 'v2.11.1' },
];

/**
 * envsubst of the variables `values` sets, in one pass over `text`: `$$` (the escape) and a variable
 * `values` does not set are left for the base writer (a literal `$`, the default). Only the forms
 * these releases use with a set variable are known: plain, the default operators, `/#prefix/repl`.
 */
export function substitute(text, values) {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}/g, (whole, name, rest) => {
    if (name === undefined || !Object.hasOwn(values, name)) return whole;
    const value = values[name];
    if (rest === '' || /^:?[=-]/.test(rest)) return value;
    const prefix = /^\/#([^/]*)\/(.*)$/s.exec(rest);
    if (prefix) return value.startsWith(prefix[1]) ? prefix[2] + value.slice(prefix[1].length) : value;
    throw new Error(`the bench cannot substitute \${${name}${rest}}`);
  });
}

/**
 * clusterctl's move of the components into their namespace, for the one reference kustomize's
 * namespace transformer leaves alone and these releases need moved: `cert-manager.io/inject-ca-from`
 * (`<namespace>/<certificate>`) on CRDs and webhook configurations. CAPZ's ASO CRDs name
 * `azureserviceoperator-system` there (see test/fixtures/PROVENANCE.md).
 */
export function intoNamespace(text, namespace) {
  return text.replace(/^(\s*cert-manager\.io\/inject-ca-from: )[^/\s]+\//gm, `$1${namespace}/`);
}

/**
 * clusterctl's provider label on every object of a provider's components (metadata only, as
 * clusterctl sets it): a LabelTransformer in the provider's folder of the base. The CAPI releases
 * carry it already; CAPZ's ASO CRDs do not.
 */
function addProviderLabel(folder, label) {
  writeFileSync(
    path.join(folder, 'provider-label.yaml'),
    `apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: provider-label\nlabels:\n  cluster.x-k8s.io/provider: ${label}\nfieldSpecs:\n- path: metadata/labels\n  create: true\n`,
  );
  const kustomization = path.join(folder, 'kustomization.yaml');
  writeFileSync(kustomization, `${readFileSync(kustomization, 'utf8')}transformers:\n- provider-label.yaml\n`);
}

/** The capi-render repository of one row: the providers, and one environment setting the variables. */
function writeCapiRepo(dir, fixtures, corpus, values) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'providers'), { recursive: true });
  mkdirSync(path.join(dir, 'overlays', ENV), { recursive: true });
  writeFileSync(
    path.join(dir, 'capi-render.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: ${CERT_MANAGER[1]}\nrepositories:\n  - path: ${fixtures}\nsecrets:\n  mode: plaintext\n`,
  );
  const cr = (kind, name, namespace, version) =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: ${version}\n`;
  writeFileSync(
    path.join(dir, 'providers', 'providers.yaml'),
    [
      ...SHARED.map(([, version, , kind, name, ns]) => cr(kind, name, ns, version)),
      cr(corpus.kind, corpus.name, corpus.namespace, corpus.version),
    ].join('---\n'),
  );
  // JSON strings are YAML double-quoted scalars: every value stays a string.
  const variables = Object.entries(values).map(([name, value]) => `  ${name}: ${JSON.stringify(value)}\n`);
  writeFileSync(
    path.join(dir, 'overlays', ENV, 'overlay.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n${variables.join('')}`,
  );
}

/** The clusterctl inventory a build of `repo` wrote (the Provider CRD, the Provider objects), as one stream. */
function inventoryOf(repo) {
  const env = path.join(repo, 'rendered', ENV);
  const docs = [];
  for (const component of readdirSync(env, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    for (const f of readdirSync(path.join(env, component)).sort())
      if (f.startsWith('provider-') || f === 'customresourcedefinition-providers.clusterctl.cluster.x-k8s.io.yaml')
        docs.push(readFileSync(path.join(env, component, f), 'utf8'));
  }
  return docs.map((d) => `---\n${d}`).join('');
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `runs` rounds, each a cold capi-render build (no rendered/, no lock; the row's cache warm) then the
 * kustomize build: alternating, so that load from elsewhere on the machine weighs on both sides alike.
 * Medians of the times, the largest peak of each side.
 */
function sideBySide({ timed, cli, runs, work }, repo, cacheDir, envDir) {
  const capi = [];
  const kustomize = [];
  for (let r = 0; r < runs; r++) {
    for (const p of ['rendered', 'gitops', 'capi-render.lock'])
      rmSync(path.join(repo, p), { recursive: true, force: true });
    capi.push(timed(process.execPath, [cli, 'build'], repo, cacheDir));
    kustomize.push(timed('kubectl', ['kustomize', envDir, '-o', path.join(envDir, 'out.yaml')], work));
  }
  const summary = (samples) => ({
    ms: median(samples.map((s) => s.ms)),
    rss: Math.max(...samples.map((s) => s.rss)),
  });
  return { capi: summary(capi), kustomize: summary(kustomize) };
}

/**
 * Adds one row per provider of PROVIDERS to `table`. `bench` holds run.mjs's helpers and settings:
 * `work`, `fixtures`, `cli`, `runs`, `timed`, `folderBytes`, `artifactText`, `commands` (where the
 * exact commands are listed), `table`, `atMost`, `fmt`, `mib`, `size`, `ratio`.
 */
export function realProviderRows(bench) {
  const { work, fixtures, cli, timed, folderBytes, artifactText, commands, table, atMost } = bench;
  const { fmt, mib, size, ratio } = bench;
  for (const { title, label, version } of PROVIDERS) {
    const corpus = JSON.parse(readFileSync(path.join(fixtures, label, version, 'corpus.json'), 'utf8'));
    const values = Object.fromEntries(
      Object.keys(corpus.variables)
        .sort()
        .map((name) => [name, corpus.variables[name].example]),
    );
    const releases = [
      [CERT_MANAGER[0], artifactText(...CERT_MANAGER)],
      ...SHARED.map(([l, v, f]) => [l, artifactText(l, v, f)]),
      [label, artifactText(label, version, corpus.componentsFile)],
    ];
    const artifactBytes = releases.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
    const providerBytes = Buffer.byteLength(releases.at(-1)[1]);

    const repo = path.join(work, `real-${label}`);
    writeCapiRepo(repo, fixtures, corpus, values);
    // A cache of the row's own, so its size is this build's whatever ran before; one unmeasured build
    // warms it, and the inventory it writes is what the kustomize user commits.
    const cacheDir = path.join(work, `cache-real-${label}`);
    timed(process.execPath, [cli, 'build'], repo, cacheDir);
    const envDir = path.join(work, `real-${label}-kustomize`, 'env-000');
    const base = path.join(path.dirname(envDir), 'base');
    writeKustomizeBase(
      base,
      releases.map(([l, text]) => [l, substitute(l === label ? intoNamespace(text, corpus.namespace) : text, values)]),
      inventoryOf(repo),
      CERT_MANAGER[1],
    );
    for (const [l] of releases.slice(1)) addProviderLabel(path.join(base, l), l);
    mkdirSync(envDir, { recursive: true });
    writeFileSync(path.join(envDir, 'kustomization.yaml'), 'resources:\n- ../base\n');

    const { capi: c, kustomize: k } = sideBySide(bench, repo, cacheDir, envDir);
    commands.push(
      `(cd ${repo} && rm -rf rendered gitops capi-render.lock && CAPI_RENDER_CACHE_DIR=${cacheDir} node ${cli} build)   # alternating with:`,
      `kubectl kustomize ${envDir} -o ${envDir}/out.yaml`,
    );
    const difference = differenceBetween([[path.join(repo, 'rendered', ENV), path.join(envDir, 'out.yaml')]]);
    const cache = folderBytes(cacheDir);
    table.add(
      [
        `${title} (${size(providerBytes)}), 1 environment`,
        fmt(c.ms),
        fmt(k.ms),
        ratio(c.ms, k.ms),
        '≤ 0.5×',
        mib(c.rss),
        mib(k.rss),
        size(cache),
      ],
      {
        compared: true,
        difference,
        targets: [
          atMost('ratio', c.ms / k.ms, 0.5, '×'),
          atMost('cache after', cache / 1024 / 1024, Number(((2 * artifactBytes) / 1024 / 1024).toFixed(1)), ' MiB'),
        ],
      },
    );
  }
}
