/**
 * The whole-repository generator: a fast-check arbitrary of a valid-looking capi-render repository
 * (capi-render.yaml, providers/, overlays/ with bases and patches, variables, secret modes, image
 * overrides, a local repository of synthetic releases, sometimes the real fixtures) as plain data,
 * and the function that turns it into files. Most generated repositories build; the rest fail on
 * purpose (a missing variable, a version with no release, a patch that matches nothing).
 */
import fc from 'fast-check';
import type { ProviderKind } from 'capi-render';
import { manifestLabel } from '../../src/declarations/provider-kinds.js';
import { certManagerFiles, releaseFiles, variableStem, type SyntheticRelease } from './synthetic-release.js';
import { SECRET_FILE } from './mutations.js';

/** Repository-relative local repository of the synthetic releases. */
export const RELEASES = 'releases';

const KINDS: ProviderKind[] = [
  'CoreProvider',
  'BootstrapProvider',
  'ControlPlaneProvider',
  'InfrastructureProvider',
  'IPAMProvider',
  'RuntimeExtensionProvider',
  'AddonProvider',
];
// Not docker: the built-in provider list gives infrastructure-docker another asset name.
const NAMES = ['alpha', 'beta', 'kubeadm', 'gamma', 'in-cluster'];
const VERSIONS = ['v0.1.0', 'v0.2.0', 'v1.0.0', 'v1.0.1', 'v1.1.0'];
const MODES = ['fail', 'omit', 'external-secrets', 'plaintext'] as const;

export interface ProviderModel {
  kind: ProviderKind;
  name: string;
  /** Index into the release's versions; the spec names that version (or a range over them). */
  versionAt: number;
  range: boolean;
  versions: string[];
  crd: boolean;
  /** The release needs FZ_REQ_<n> set (from config, an overlay, the configSecret or nowhere). */
  required: number;
  /** A configSecret holding its secret variable (and maybe a required one). */
  configSecret: boolean;
  replicas: number | undefined;
  verbosity: number | undefined;
}

export interface OverlayModel {
  name: string;
  /** Builds on the abstract base overlay instead of providers/ directly. */
  useBase: boolean;
  versionPatch: { provider: number; versionAt: number } | undefined;
  /** `inFile`: written to overlays/<name>/patches/replicas.yaml and named by `path:`, else inline. */
  mergePatch: { provider: number; replicas: number; inFile: boolean } | undefined;
  deletePatch: number | undefined;
  variables: Record<string, string>;
  imageTag: string | undefined;
  flavour: 'kustomize' | 'flux' | 'argocd' | undefined;
}

export interface RepoModel {
  providers: ProviderModel[];
  /** Set FZ_REQ_0 and FZ_REQ_1 in capi-render.yaml (else a release that needs them fails). */
  setRequired: boolean;
  overlays: OverlayModel[];
  base: boolean;
  certManager: 'none' | 'synthetic' | 'real';
  /** Also point at test/fixtures/repository and declare a real core provider from it. */
  realCore: boolean;
  mode: (typeof MODES)[number];
  providerModes: Record<string, (typeof MODES)[number]>;
  notSecret: boolean;
  configVariables: Record<string, string>;
  fromEnv: boolean;
  /**
   * How the configSecrets give their secret variable: a literal, or by reference (`{fromEnv}`,
   * `{fromFile}` of a file outside the repository), with the value set or not.
   */
  secretReference: 'literal' | 'fromEnv' | 'fromFile' | 'fromEnv-unset' | 'fromFile-unset';
  images: { all?: string; component?: string; image?: string };
  flavour: 'kustomize' | 'flux' | 'argocd' | undefined;
  /** Secret marker, random per case so a leak is unambiguous. */
  secret: string;
}

const variableName = fc.constantFrom('FZ_REQ_0', 'FZ_REQ_1', 'FZ_OUTER', 'FZ_INNER', 'EXP_MACHINE_POOL', 'FZ_UNUSED');
const variableValue = fc.oneof(
  fc.constantFrom('true', 'false', '1', 'x', '', 'a b', "it's", '${FZ_INNER}', '$(x)'),
  fc.string({ maxLength: 8 }),
);

// Index 4 names a version with no release (an error case), one time in twelve.
const versionAt = fc.oneof({ weight: 11, arbitrary: fc.nat(3) }, { weight: 1, arbitrary: fc.constant(4) });

const providerOf = (kinds: ProviderKind[]): fc.Arbitrary<ProviderModel> =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    name: fc.constantFrom(...NAMES),
    versionAt,
    range: fc.boolean(),
    versions: fc.uniqueArray(fc.constantFrom(...VERSIONS), { minLength: 1, maxLength: 3 }).map((v) => [...v].sort()),
    crd: fc.boolean(),
    required: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(2) }),
    configSecret: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    replicas: fc.option(fc.nat(3), { nil: undefined }),
    verbosity: fc.option(fc.nat(5), { nil: undefined }),
  });

const flavourArb = fc.option(fc.constantFrom('kustomize' as const, 'flux' as const, 'argocd' as const), {
  nil: undefined,
  freq: 2,
});

const overlayArb: fc.Arbitrary<OverlayModel> = fc.record({
  name: fc.constantFrom('dev', 'prod', 'staging', 'eu-1'),
  useBase: fc.boolean(),
  versionPatch: fc.option(fc.record({ provider: fc.nat(5), versionAt }), { nil: undefined }),
  mergePatch: fc.option(fc.record({ provider: fc.nat(5), replicas: fc.nat(4), inFile: fc.boolean() }), {
    nil: undefined,
  }),
  deletePatch: fc.option(fc.nat(5), { nil: undefined, freq: 4 }),
  variables: fc.dictionary(variableName, variableValue, { maxKeys: 3 }),
  imageTag: fc.option(fc.constantFrom('v9.9.9', 'latest', 'sha-1'), { nil: undefined, freq: 3 }),
  flavour: flavourArb,
});

/**
 * A repository model; `real` is the weight of cases that also use the real fixtures (0 = never),
 * `minOverlays` the fewest overlays (environments) it has: partial builds need two to leave one alone.
 */
export function repoModel(real = 1, minOverlays = 0): fc.Arbitrary<RepoModel> {
  return fc.record({
    // One core provider (as the operator requires) in eleven cases of twelve, then up to five others.
    providers: fc
      .tuple(
        fc.oneof(
          { weight: 11, arbitrary: providerOf(['CoreProvider']).map((p) => [p]) },
          { weight: 1, arbitrary: fc.constant([]) },
        ),
        fc.uniqueArray(providerOf(KINDS.slice(1)), { maxLength: 5, selector: (p) => `${p.kind}/${p.name}` }),
      )
      .map(([core, others]) => [...core, ...others])
      .filter((list) => list.length > 0),
    setRequired: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    overlays: fc.uniqueArray(overlayArb, { minLength: minOverlays, maxLength: 3, selector: (o) => o.name }),
    base: fc.boolean(),
    certManager: fc.constantFrom('none' as const, 'synthetic' as const, 'none' as const),
    realCore:
      real > 0
        ? fc.oneof(
            { weight: 100 - real, arbitrary: fc.constant(false) },
            { weight: real, arbitrary: fc.constant(true) },
          )
        : fc.constant(false),
    mode: fc.constantFrom(...MODES),
    providerModes: fc.dictionary(
      fc.constantFrom('bootstrap-alpha', 'infrastructure-docker', 'cluster-api', 'addon-beta'),
      fc.constantFrom(...MODES),
      { maxKeys: 2 },
    ),
    notSecret: fc.boolean(),
    configVariables: fc.dictionary(variableName, variableValue, { maxKeys: 4 }),
    fromEnv: fc.boolean(),
    secretReference: fc.oneof(
      { weight: 4, arbitrary: fc.constant('literal' as const) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'fromEnv' as const,
          'fromFile' as const,
          'fromEnv-unset' as const,
          'fromFile-unset' as const,
        ),
      },
    ),
    images: fc.record(
      {
        all: fc.constantFrom('registry.internal.example.com/mirror', 'localhost:5000', 'x/y/z'),
        component: fc.constantFrom('v2.0.0', 'edge'),
        image: fc.constantFrom('other-name', 'manager'),
      },
      { requiredKeys: [] },
    ),
    flavour: flavourArb,
    secret: fc.stringMatching(/^[0-9a-f]{16}$/).map((hex) => `fzSecret${hex}`),
  });
}

/** Core providers must be named cluster-api; a second core provider is kept (the operator allows one: an error case). */
function providerName(p: ProviderModel): string {
  return p.kind === 'CoreProvider' ? 'cluster-api' : p.name;
}

function providerNamespace(p: ProviderModel): string {
  return `${manifestLabel(p.kind, providerName(p))}-system`;
}

function specVersion(p: ProviderModel, at = p.versionAt): string {
  const v = p.versions[at % p.versions.length]!;
  // A version beyond the release list (no such release: an error case) one time in five.
  if (at === 4) return 'v3.0.0';
  return p.range ? `>=${v}` : v;
}

function providerYaml(p: ProviderModel): string {
  const name = providerName(p);
  const lines = [
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2`,
    `kind: ${p.kind}`,
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${providerNamespace(p)}`,
    'spec:',
    `  version: "${specVersion(p)}"`,
  ];
  if (p.configSecret) lines.push('  configSecret:', `    name: ${manifestLabel(p.kind, name)}-vars`);
  if (p.replicas !== undefined) lines.push('  deployment:', `    replicas: ${p.replicas}`);
  if (p.verbosity !== undefined) lines.push('  manager:', `    verbosity: ${p.verbosity}`);
  return `${lines.join('\n')}\n`;
}

/** The secret variable of a provider: FZ_TOKEN_<STEM>. */
export function secretVariable(p: ProviderModel): string {
  return `FZ_TOKEN_${variableStem(manifestLabel(p.kind, providerName(p)))}`;
}

function secretYaml(p: ProviderModel, m: RepoModel): string {
  const label = manifestLabel(p.kind, providerName(p));
  const value =
    m.secretReference === 'literal'
      ? `"${m.secret}"`
      : m.secretReference.startsWith('fromEnv')
        ? '{fromEnv: FZ_CS_SECRET}'
        : `{fromFile: ../outside/${SECRET_FILE}}`;
  const data = [`  ${secretVariable(p)}: ${value}`, ...(p.required > 0 ? ['  FZ_REQ_0: "from-secret"'] : [])];
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${label}-vars\n  namespace: ${providerNamespace(p)}\nstringData:\n${data.join('\n')}\n`;
}

/** The gitops block; an overlay names its Argo CD destination (each environment is a cluster). */
function gitopsYaml(flavour: RepoModel['flavour'], destination?: string): string {
  const lines = ['gitops:'];
  if (flavour) lines.push(`  flavour: ${flavour}`);
  if (flavour === 'flux')
    lines.push(
      '  flux:',
      '    sourceRef:',
      '      kind: GitRepository',
      '      name: fleet',
      '      namespace: flux-system',
    );
  if (flavour === 'argocd' || destination) lines.push('  argocd:');
  if (flavour === 'argocd')
    lines.push(
      '    application: true',
      '    repoURL: https://github.com/example/fleet.git',
      '    targetRevision: main',
    );
  if (destination) lines.push('    destination:', `      name: ${destination}`);
  return lines.length > 1 ? `${lines.join('\n')}\n` : '';
}

function quote(value: string): string {
  return JSON.stringify(value);
}

function configYaml(m: RepoModel, fixturesRepository: string): string {
  const out = ['apiVersion: capi-render/v1alpha1', 'kind: Config', 'repositories:', `  - path: ${RELEASES}`];
  if (m.realCore || m.certManager === 'real') out.push(`  - path: ${fixturesRepository}`);
  if (m.certManager === 'none') out.push('certManager:', '  install: false');
  else out.push('certManager:', `  version: ${m.certManager === 'real' ? 'v1.19.4' : 'v1.0.0'}`);
  const values = { ...(m.setRequired ? { FZ_REQ_0: 'zero', FZ_REQ_1: 'one' } : {}), ...m.configVariables };
  const vars = Object.entries(values).map(([k, v]) => `  ${k}: ${quote(v)}`);
  if (m.fromEnv) vars.push('  FZ_ENV_TOKEN: {fromEnv: FZ_ENV_SECRET}');
  if (vars.length > 0) out.push('variables:', ...vars);
  const images = [
    ...(m.images.all ? ['  all:', `    repository: ${m.images.all}`] : []),
    ...(m.images.component ? ['  cluster-api:', `    tag: ${m.images.component}`] : []),
    ...(m.images.image ? ['  bootstrap-alpha/manager:', `    name: ${m.images.image}`] : []),
  ];
  if (images.length > 0) out.push('images:', ...images);
  out.push('secrets:', `  mode: ${m.mode}`);
  const modes = Object.entries(m.providerModes);
  if (modes.length > 0) out.push('  providers:', ...modes.map(([k, v]) => `    ${k}: ${v}`));
  if (m.notSecret) out.push('  notSecret: [FZ_REQ_0]');
  if (m.mode === 'external-secrets' || modes.some(([, v]) => v === 'external-secrets'))
    out.push('  externalSecrets:', '    storeRef: {name: vault}', '    keyPrefix: capi/');
  return `${out.join('\n')}\n${gitopsYaml(m.flavour)}`;
}

function overlayYaml(o: OverlayModel, m: RepoModel): string {
  const out = [
    'apiVersion: capi-render/v1alpha1',
    'kind: Overlay',
    'resources:',
    `  - ${o.useBase && m.base ? '../base' : '../../providers'}`,
  ];
  const patches: string[] = [];
  const at = (i: number) => m.providers[i % m.providers.length]!;
  if (o.versionPatch) {
    const p = at(o.versionPatch.provider);
    patches.push(
      `  - target:\n      group: operator.cluster.x-k8s.io\n      kind: ${p.kind}\n      name: ${providerName(p)}\n    patch: |-\n      - op: replace\n        path: /spec/version\n        value: "${specVersion(p, o.versionPatch.versionAt)}"`,
    );
  }
  if (o.mergePatch)
    patches.push(
      o.mergePatch.inFile
        ? `  - path: ${MERGE_PATCH_FILE}`
        : `  - patch: |-\n${mergePatchYaml(o, m).replace(/^/gm, '      ').trimEnd()}`,
    );
  const deletable = m.providers.filter((p) => p.kind !== 'CoreProvider');
  if (o.deletePatch !== undefined && deletable.length > 0) {
    const p = deletable[o.deletePatch % deletable.length]!;
    patches.push(
      `  - patch: |-\n      apiVersion: operator.cluster.x-k8s.io/v1alpha2\n      kind: ${p.kind}\n      metadata:\n        name: ${providerName(p)}\n        namespace: ${providerNamespace(p)}\n      $patch: delete`,
    );
  }
  if (patches.length > 0) out.push('patches:', ...patches);
  const vars = Object.entries(o.variables);
  if (vars.length > 0) out.push('variables:', ...vars.map(([k, v]) => `  ${k}: ${quote(v)}`));
  if (o.imageTag) out.push('images:', '  all:', `    tag: ${o.imageTag}`);
  out.push('labels:', `  cluster: mgmt-${o.name}`);
  return `${out.join('\n')}\n${gitopsYaml(o.flavour, `mgmt-${o.name}`)}`;
}

/** Where an overlay's merge patch is written when it is a file (relative to the overlay folder). */
const MERGE_PATCH_FILE = 'patches/replicas.yaml';

/** An overlay's strategic-merge patch of one provider's replicas. */
function mergePatchYaml(o: OverlayModel, m: RepoModel): string {
  const p = m.providers[o.mergePatch!.provider % m.providers.length]!;
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${p.kind}\nmetadata:\n  name: ${providerName(p)}\n  namespace: ${providerNamespace(p)}\nspec:\n  deployment:\n    replicas: ${o.mergePatch!.replicas}\n`;
}

/** The repository's files (relative path → text) for a model. */
export function repoFiles(m: RepoModel, fixturesRepository: string): Record<string, string> {
  const files: Record<string, string> = { 'capi-render.yaml': configYaml(m, fixturesRepository) };
  for (const p of m.providers) {
    const label = manifestLabel(p.kind, providerName(p));
    files[`providers/${label}.yaml`] = providerYaml(p);
    if (p.configSecret) files[`providers/${label}-vars.yaml`] = secretYaml(p, m);
    for (const version of p.versions) {
      const required = Array.from({ length: p.required }, (_, i) => `FZ_REQ_${i}`);
      if (m.fromEnv && p.kind === 'InfrastructureProvider') required.push('FZ_ENV_TOKEN');
      const release: SyntheticRelease = {
        kind: p.kind,
        name: providerName(p),
        version,
        required,
        secretVariable: p.configSecret ? secretVariable(p) : undefined,
        crd: p.crd,
        contract: 'v1beta1',
      };
      Object.assign(files, releaseFiles(RELEASES, release));
    }
  }
  if (m.realCore) {
    files['providers/real-core.yaml'] =
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n';
    // The real core provider replaces a synthetic one (one core provider per environment).
    for (const p of m.providers) if (p.kind === 'CoreProvider') delete files['providers/cluster-api.yaml'];
  }
  if (m.certManager === 'synthetic') Object.assign(files, certManagerFiles(RELEASES, 'v1.0.0'));
  if (m.base && m.overlays.some((o) => o.useBase)) {
    files['overlays/base/overlay.yaml'] =
      'apiVersion: capi-render/v1alpha1\nkind: Overlay\nabstract: true\nresources:\n  - ../../providers\nvariables:\n  FZ_OUTER: "from-base"\n';
  }
  for (const o of m.overlays) {
    files[`overlays/${o.name}/overlay.yaml`] = overlayYaml(o, m);
    if (o.mergePatch?.inFile) files[`overlays/${o.name}/${MERGE_PATCH_FILE}`] = mergePatchYaml(o, m);
  }
  return files;
}

/** Environment variables for the CLI (the fromEnv secret). */
export function repoEnv(m: RepoModel): Record<string, string> {
  return {
    ...(m.fromEnv ? { FZ_ENV_SECRET: `${m.secret}env` } : {}),
    ...(m.secretReference === 'fromEnv' ? { FZ_CS_SECRET: m.secret } : {}),
  };
}

/** Files beside the repository (in its `outside` sibling folder): the `{fromFile}` secret. */
export function outsideFiles(m: RepoModel): Record<string, string> {
  return m.secretReference === 'fromFile' ? { [SECRET_FILE]: m.secret } : {};
}

/** Whether any secret mode of the model lets secret values into rendered/ (plaintext). */
export function plaintextAllowed(m: RepoModel): boolean {
  return m.mode === 'plaintext' || Object.values(m.providerModes).includes('plaintext');
}
