/**
 * `capi-render upgrade` and `capi-render diff` between consecutive real releases of the provider
 * corpus (test/fixtures/repository/<label>/<version>/, PROVENANCE.md "Real provider corpus").
 *
 * Each pair is installed as a user would (core cluster-api v1.12.0 beside it, the older release's
 * documented variables, secrets from the environment with `secrets.mode: omit`), built and committed
 * at the older release, then moved with `upgrade --to <newer> --provider <label>`. What a reviewer
 * must see is computed here from the two components files and metadata.yaml files themselves, not
 * by capi-render's code: contract changes, CRDs and CRD versions added, removed, unserved,
 * deprecated or with another storage version, images, RBAC permissions gained and lost, webhooks
 * added and removed, and variables that appear or disappear. The report must name each of them, and
 * name nothing of those kinds that the releases do not show.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseLock } from 'capi-render';
import { runCli, type CliResult } from '../helpers/cli.js';
import { CORPUS_REPOSITORY, type Corpus } from '../helpers/corpus.js';
import { gitEnv, initRepo } from '../helpers/git.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

type Obj = Record<string, any>;

const REPOSITORY = CORPUS_REPOSITORY;

/** One release of the corpus: its entry, its components text and objects, and its contract. */
interface Release {
  corpus: Corpus;
  text: string;
  objects: Obj[];
  contract: string;
}

/** clusterctl's rule: the release series of the version's major.minor, in its own metadata.yaml, gives its contract. */
function contractOf(label: string, version: string): string {
  const metadata = jsYaml.load(readFileSync(path.join(REPOSITORY, label, version, 'metadata.yaml'), 'utf8')) as {
    releaseSeries: { major: number; minor: number; contract: string }[];
  };
  const [major, minor] = version.slice(1).split('.').map(Number);
  const series = metadata.releaseSeries.find((s) => s.major === major && s.minor === minor);
  if (!series) throw new Error(`${label} ${version}: no release series in metadata.yaml`);
  return series.contract;
}

function loadRelease(label: string, version: string): Release {
  const folder = path.join(REPOSITORY, label, version);
  const corpus = JSON.parse(readFileSync(path.join(folder, 'corpus.json'), 'utf8')) as Corpus;
  const file = readdirSync(folder).find((f) => f === corpus.componentsFile || f === `${corpus.componentsFile}.gz`)!;
  const raw = readFileSync(path.join(folder, file));
  const text = file.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const objects = jsYaml
    .loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA })
    .filter((o): o is Obj => typeof o === 'object' && o !== null);
  return { corpus, text, objects, contract: contractOf(label, version) };
}

// --- what changed between two releases, computed from the releases ---------------------------

interface Expected {
  /** code → the finding messages the report must hold, exactly (sorted). */
  messages: Map<string, string[]>;
  /** Finding messages that must carry these detail lines. */
  details: { message: string; lines: string[] }[];
  /** CRD names from which a version objects may be stored in is removed or stops being served. */
  storageRisk: string[];
  /** CRDs whose storage version changes and which no ClusterRole of the release lets its controller migrate. */
  unmigrated: string[];
  /**
   * Variables the newer release adds and drops, those it requires (no default at the first
   * occurrence) that the older did not, and the defaults it adds or changes.
   */
  variables: { added: string[]; removed: string[]; newlyRequired: string[]; defaults: Map<string, string> };
}

/** The contracts clusterctl knows, oldest first. */
const CONTRACT_ORDER = ['v1alpha3', 'v1alpha4', 'v1beta1', 'v1beta2'];

const byName = (objects: Obj[], kind: string) =>
  new Map(objects.filter((o) => o.kind === kind).map((o) => [o.metadata.name as string, o]));

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
}
const versionsOf = (crd: Obj): Version[] =>
  (crd.spec.versions as Obj[]).map((v) => ({
    name: v.name,
    served: v.served === true,
    storage: v.storage === true,
    deprecated: v.deprecated === true,
  }));
const flags = (v: Version) =>
  `${v.name} (${[v.served ? 'served' : 'not served', ...(v.storage ? ['storage'] : []), ...(v.deprecated ? ['deprecated'] : [])].join(', ')})`;
const s = (n: number, word: string) => (n === 1 ? word : `${word}s`);

/** `resource.group[/sub]` → verbs granted by plain (non-aggregating) roles, per role. */
function permissions(role: Obj | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const rule of (role?.rules as Obj[] | undefined) ?? []) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const [base, ...sub] = (resource as string).split('/');
        const plain = `${base}${group ? `.${group}` : ''}${sub.length ? `/${sub.join('/')}` : ''}`;
        // A rule limited to resourceNames grants each name on its own.
        for (const target of rule.resourceNames
          ? (rule.resourceNames as string[]).map((n) => `${plain} (name=${n})`)
          : [plain]) {
          for (const verb of rule.verbs ?? []) out.set(target, (out.get(target) ?? new Set()).add(verb));
        }
      }
    }
    for (const url of rule.nonResourceURLs ?? [])
      for (const verb of rule.verbs ?? []) out.set(url, (out.get(url) ?? new Set()).add(verb));
  }
  return out;
}

/** Permissions of `a` not in `b`, as `target: verbs` lines, and their count. */
function missingFrom(a: Map<string, Set<string>>, b: Map<string, Set<string>>): { lines: string[]; count: number } {
  const lines: string[] = [];
  let count = 0;
  for (const target of [...a.keys()].sort()) {
    const verbs = [...a.get(target)!].filter((v) => !b.get(target)?.has(v)).sort();
    if (verbs.length) lines.push(`${target}: ${verbs.join(', ')}`);
    count += verbs.length;
  }
  return { lines, count };
}

/** `name → default text` of each variable at its first occurrence (undefined: no default). */
function variablesOf(text: string): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const m of text.matchAll(/\$\{\s*([A-Za-z_][A-Za-z0-9_]*)(:?[=-]([^}]*))?/g))
    if (!out.has(m[1]!)) out.set(m[1]!, m[2] ? m[3] : undefined);
  return out;
}

function expectedBetween(label: string, old: Release, now: Release): Expected {
  const messages = new Map<string, string[]>();
  const add = (code: string, message: string) => messages.set(code, [...(messages.get(code) ?? []), message].sort());
  const details: Expected['details'] = [];
  const storageRisk: string[] = [];
  const unmigrated: string[] = [];

  if (old.contract !== now.contract) add('contract-changed', `${label}: contract ${old.contract} → ${now.contract}`);
  // The core beside it (cluster-api v1.12.0) implements v1beta2; a provider whose release is on an
  // older contract is named, with Cluster API's compatibility rule.
  const core = contractOf('cluster-api', 'v1.12.0');
  if (CONTRACT_ORDER.indexOf(now.contract) < CONTRACT_ORDER.indexOf(core)) {
    const message = `${label} implements contract ${now.contract}, older than ${core}, the contract of the core provider cluster-api`;
    add('contract-older-than-core', message);
    details.push({
      message,
      lines: [
        `clusterctl accepts it, by Cluster API's support rule (book, reference/versions.md): "v1beta1 is temporarily compatible with v1beta2", and v1beta1 is "Deprecated since CAPI v1.11; in v1.16, April 2027 compatibility with the v1beta1 contract will be considered EOL".`,
      ],
    });
  }

  const crdsBefore = byName(old.objects, 'CustomResourceDefinition');
  const crdsAfter = byName(now.objects, 'CustomResourceDefinition');
  for (const [name, crd] of crdsAfter) {
    const after = versionsOf(crd);
    const was = crdsBefore.get(name);
    if (!was) {
      add('crd-added', `new CRD ${name}: ${after.map(flags).join(', ')}`);
      continue;
    }
    const before = new Map(versionsOf(was).map((v) => [v.name, v]));
    const removed = [...before.values()].filter((v) => !after.some((a) => a.name === v.name));
    const unserved = after.filter((v) => !v.served && before.get(v.name)?.served === true);
    const added = after.filter((v) => !before.has(v.name));
    const deprecated = after.filter((v) => v.deprecated && before.get(v.name)?.deprecated === false);
    const storageBefore = [...before.values()].find((v) => v.storage)!.name;
    const storageAfter = after.find((v) => v.storage)!.name;
    if (removed.length)
      add(
        'crd-version-removed',
        `${name}: ${s(removed.length, 'version')} ${removed.map((v) => `${v.name} (${v.served ? 'served' : 'not served'})`).join(', ')} removed from spec.versions`,
      );
    if (unserved.length)
      add(
        'crd-version-unserved',
        `${name}: ${s(unserved.length, 'version')} ${unserved.map((v) => v.name).join(', ')} no longer served`,
      );
    if (removed.length || unserved.length) storageRisk.push(name);
    if (storageBefore !== storageAfter) {
      const message = `${name}: storage version ${storageBefore} → ${storageAfter}`;
      add('crd-storage-version-changed', message);
      // Whether the release's controller may update the CRD's status, as a CRD migrator must to
      // trim status.storedVersions: the releases grant that by name for the CRDs their migrator handles.
      const migrates = [...byName(now.objects, 'ClusterRole').values()].some((role) => {
        const granted = permissions(role);
        return [
          `customresourcedefinitions.apiextensions.k8s.io/status (name=${name})`,
          'customresourcedefinitions.apiextensions.k8s.io/status',
        ].some((target) => granted.get(target)?.has('patch') || granted.get(target)?.has('update'));
      });
      if (!migrates) unmigrated.push(name);
      const byHand = `(\`kubectl get ${name} -A -o json | kubectl replace -f -\`, then remove ${storageBefore} from status.storedVersions) before a later release drops ${storageBefore}`;
      details.push({
        message,
        lines: [
          // None of these providers is the core: a migrator is theirs only if their release runs one.
          migrates
            ? `A ClusterRole of ${label} lets its controller update this CRD's status, the grant Cluster API's CRD migrator needs (providers embed it from Cluster API v1.10 on): if ${label}'s release runs it (its release notes say), its controller re-writes them after the sync; otherwise do it by hand ${byHand}.`
            : `No ClusterRole of ${label} lets its controller update this CRD's status, which a CRD migrator needs to trim status.storedVersions: do it by hand ${byHand}.`,
        ],
      });
    }
    if (added.length)
      add('crd-version-added', `${name}: ${s(added.length, 'version')} added: ${added.map(flags).join(', ')}`);
    if (deprecated.length)
      add(
        'crd-version-deprecated',
        `${name}: ${s(deprecated.length, 'version')} ${deprecated.map((v) => v.name).join(', ')} now deprecated`,
      );
  }

  for (const kind of ['Deployment', 'DaemonSet', 'StatefulSet']) {
    const before = byName(old.objects, kind);
    for (const [name, workload] of byName(now.objects, kind)) {
      const containers = (w: Obj) =>
        new Map(
          [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].map((c: Obj) => [
            c.name as string,
            c.image as string,
          ]),
        );
      const was = before.get(name) ? containers(before.get(name)!) : new Map<string, string>();
      for (const [container, image] of containers(workload)) {
        if (was.get(container) !== undefined && was.get(container) !== image)
          add('image-changed', `container ${container}: ${was.get(container)} → ${image}`);
      }
    }
  }

  // Roles and ClusterRoles that grant by rules (aggregating ClusterRoles are filled in by the API server).
  for (const kind of ['ClusterRole', 'Role']) {
    const before = byName(old.objects, kind);
    const after = byName(now.objects, kind);
    for (const name of new Set([...before.keys(), ...after.keys()])) {
      if (before.get(name)?.aggregationRule || after.get(name)?.aggregationRule) continue;
      const gained = missingFrom(permissions(after.get(name)), permissions(before.get(name)));
      const lost = missingFrom(permissions(before.get(name)), permissions(after.get(name)));
      const permissionWord = (n: number) => `${n} ${s(n, 'permission')}`;
      if (gained.count) {
        const message = `${kind} ${name} gains ${permissionWord(gained.count)} ${kind === 'ClusterRole' ? 'cluster-wide' : `in namespace ${after.get(name)!.metadata.namespace}`}`;
        add('rbac-permissions-gained', message);
        details.push({ message, lines: gained.lines });
      }
      if (lost.count) {
        const message = `${kind} ${name} loses ${permissionWord(lost.count)}`;
        add('rbac-permissions-lost', message);
        details.push({ message, lines: lost.lines });
      }
    }
  }

  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
    const before = byName(old.objects, kind);
    for (const [name, configuration] of byName(now.objects, kind)) {
      const names = (c: Obj | undefined) =>
        new Set(((c?.webhooks as Obj[] | undefined) ?? []).map((w) => w.name as string));
      const was = names(before.get(name));
      const is = names(configuration);
      for (const w of is) if (!was.has(w)) add('webhook-added', `webhook ${w} added to ${kind} ${name}`);
      for (const w of was)
        if (!is.has(w))
          add(
            'webhook-removed',
            `webhook ${w} removed from ${kind} ${name}: the objects it matched are no longer ${kind.startsWith('Mutating') ? 'defaulted' : 'validated'} by it`,
          );
    }
  }

  const varsBefore = variablesOf(old.text);
  const varsAfter = variablesOf(now.text);
  const required = (vars: Map<string, string | undefined>) =>
    [...vars].filter(([, d]) => d === undefined).map(([n]) => n);
  const defaults = new Map(
    [...varsAfter]
      .filter(([n, d]) => d !== undefined && (!varsBefore.has(n) || varsBefore.get(n) !== d))
      .map(([n, d]) => [n, d!]),
  );
  return {
    messages,
    details,
    storageRisk,
    unmigrated: unmigrated.sort(),
    variables: {
      added: [...varsAfter.keys()].filter((n) => !varsBefore.has(n)).sort(),
      removed: [...varsBefore.keys()].filter((n) => !varsAfter.has(n)).sort(),
      newlyRequired: required(varsAfter)
        .filter((n) => !required(varsBefore).includes(n))
        .sort(),
      defaults,
    },
  };
}

// --- the report, read back --------------------------------------------------------------------

interface PrintedFinding {
  severity: string;
  code: string;
  component: string;
  message: string;
  details: string[];
}

/** The findings of the text report: `SEVERITY env/component [object] [code]`, the message, `- detail` lines. */
function parseFindings(stdout: string): PrintedFinding[] {
  const out: PrintedFinding[] = [];
  const lines = stdout.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const head = /^(DANGER|WARNING|INFO) +\S+\/(\S+)(?: \S+)? \[([a-z-]+)\]$/.exec(lines[i]!);
    if (!head) continue;
    const finding: PrintedFinding = {
      severity: head[1]!,
      component: head[2]!,
      code: head[3]!,
      message: lines[i + 1]!.trim(),
      details: [],
    };
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('          - '); j++)
      finding.details.push(lines[j]!.slice('          - '.length));
    out.push(finding);
  }
  return out;
}

/** The summary table `diff` opens with: per provider (second column), its danger, warning and info counts (the last three). */
function summaryCounts(stdout: string): [string, number[]][] {
  const table = stdout.slice(0, stdout.indexOf('\n\n')).split('\n');
  expect(table[0]).toMatch(/^ENVIRONMENT +PROVIDER +VERSION +CONTRACT +DANGER +WARNING +INFO$/);
  return table.slice(1).map((line) => {
    const cells = line.split(/ {2,}/);
    return [cells[1]!, cells.slice(-3).map(Number)];
  });
}

/** The messages per code, restricted to the codes the releases were compared for. */
function messagesByCode(findings: PrintedFinding[], codes: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of findings) if (codes.includes(f.code)) out.set(f.code, [...(out.get(f.code) ?? []), f.message].sort());
  return out;
}

/** The finding codes this file derives from the releases; the report must hold exactly these findings of them. */
const DERIVED_CODES = [
  'contract-changed',
  'contract-older-than-core',
  'crd-added',
  'crd-removed',
  'crd-version-added',
  'crd-version-removed',
  'crd-version-unserved',
  'crd-version-deprecated',
  'crd-storage-version-changed',
  'image-changed',
  'rbac-permissions-gained',
  'rbac-permissions-lost',
  'webhook-added',
  'webhook-removed',
  'variables-changed',
] as const;

// --- the pairs --------------------------------------------------------------------------------

interface Pair {
  labels: string[];
  from: string;
  to: string;
  /**
   * What the derivation must find, so that a derivation that finds nothing cannot pass unnoticed:
   * whether a CRD version objects may be stored in goes away, and the variables whose new default
   * or disappearance shows as a changed flag or feature gate.
   */
  storageMigration: boolean;
  variables: string[];
  /** CRDs that change storage version without the release's CRD migrator permissions for them. */
  unmigrated?: string[];
  /** The newer release still implements a contract older than the core's (v1beta1 beside v1beta2). */
  olderThanCore?: boolean;
}

const PAIRS: Pair[] = [
  // Both on the v1beta1 contract, beside the v1beta2 core.
  {
    labels: ['infrastructure-aws'],
    from: 'v2.10.3',
    to: 'v2.11.1',
    storageMigration: false,
    variables: [],
    olderThanCore: true,
  },
  // v1alpha3/v1alpha4 (unserved) leave spec.versions; new gates and a changed PriorityQueue default.
  {
    labels: ['infrastructure-vsphere'],
    from: 'v1.15.3',
    to: 'v1.16.1',
    storageMigration: true,
    variables: ['EXP_PRIORITY_QUEUE', 'EXP_RECONCILER_RATE_LIMITING', 'VM_OPERATOR_API_VERSION'],
  },
  // v1beta1 → v1beta2 under the v1beta2 core; TLS_MIN_VERSION is no longer read.
  // Its ClusterRole lets the controller update the status of six of the nine CRDs that move to v1beta2.
  {
    labels: ['infrastructure-metal3'],
    from: 'v1.12.7',
    to: 'v1.13.2',
    storageMigration: false,
    variables: ['TLS_MIN_VERSION'],
    unmigrated: ['metal3dataclaims', 'metal3remediations', 'metal3remediationtemplates'].map(
      (n) => `${n}.infrastructure.cluster.x-k8s.io`,
    ),
  },
  { labels: ['ipam-metal3'], from: 'v1.12.6', to: 'v1.13.2', storageMigration: false, variables: ['TLS_MIN_VERSION'] },
  {
    labels: ['bootstrap-rke2', 'control-plane-rke2'],
    from: 'v0.24.4',
    to: 'v0.25.0',
    storageMigration: false,
    variables: ['EXP_IN_PLACE_UPDATES'],
  },
];

const envName = (variable: string) => `CORPUS_${variable}`;

/**
 * A repository installing the older releases of `pair` beside the core provider, with the variables
 * the older releases document (as a user of that release has them), built and committed.
 */
async function installedRepo(
  pair: Pair,
  olds: Release[],
  before: readonly string[] = [],
): Promise<{ repo: string; env: Record<string, string> }> {
  const variables = new Map<string, string>();
  const env: Record<string, string> = { CAPI_RENDER_CACHE_DIR: tempDir() };
  const providers: string[] = [];
  for (const { corpus } of olds) {
    for (const [name, variable] of Object.entries(corpus.variables)) {
      if (variable.secret) {
        variables.set(name, `{fromEnv: ${envName(name)}}`);
        env[envName(name)] = variable.example;
      } else variables.set(name, JSON.stringify(variable.example));
    }
    providers.push(
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${corpus.kind}\nmetadata:\n  name: ${corpus.name}\n  namespace: ${corpus.namespace}\nspec:\n  version: ${pair.from}\n`,
    );
  }
  const lines = [...variables].sort(([a], [b]) => a.localeCompare(b)).map(([n, v]) => `  ${n}: ${v}`);
  const repo = makeRepo({
    'capi-render.yaml': configYaml(
      `${lines.length ? `variables:\n${lines.join('\n')}\n` : ''}secrets:\n  mode: omit\n`,
      before,
    ),
    'providers/providers.yaml': providers.join('---\n'),
    'providers/core.yaml': CORE(),
  });
  const built = await runCli(['build'], { cwd: repo, env });
  expect(built.code, built.stderr).toBe(0);
  initRepo(repo, gitEnv(tempDir()));
  return { repo, env };
}

const lockedProviders = (repo: string) =>
  Object.fromEntries(
    parseLock(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'))
      .environments[0]!.providers.filter((p) => p.provider !== 'cert-manager')
      .map((p) => [p.provider, `${p.version} ${p.contract}`]),
  );

describe.each(PAIRS.map((pair) => ({ id: `${pair.labels.join(' + ')} ${pair.from} → ${pair.to}`, pair })))(
  'upgrade review: $id',
  ({ pair }) => {
    it('the report names what changed between the two releases, and diff says the same', async () => {
      const olds = pair.labels.map((l) => loadRelease(l, pair.from));
      const news = pair.labels.map((l) => loadRelease(l, pair.to));
      const expected = pair.labels.map((label, i) => ({ label, ...expectedBetween(label, olds[i]!, news[i]!) }));
      // The variables set in the repository (capi-render.yaml, shared by the providers) that a release
      // reads: one the newer release stops reading no longer applies, one it starts reading now does.
      const set = new Set(olds.flatMap((r) => Object.keys(r.corpus.variables)));
      for (const [i, e] of expected.entries()) {
        const read = (r: Release) => [...variablesOf(r.text).keys()].filter((n) => set.has(n)).sort();
        const gone = read(olds[i]!).filter((n) => !read(news[i]!).includes(n));
        const come = read(news[i]!).filter((n) => !read(olds[i]!).includes(n));
        const messages = [
          ...(gone.length
            ? [`${e.label} ${pair.to} no longer reads ${s(gone.length, 'variable')} ${gone.join(', ')}, set in default`]
            : []),
          ...(come.length
            ? [
                `${e.label} ${pair.to} now reads ${s(come.length, 'variable')} ${come.join(', ')}, already set in default`,
              ]
            : []),
        ];
        if (messages.length) e.messages.set('variables-changed', messages.sort());
        expect(gone, e.label).toEqual(e.variables.removed.filter((n) => set.has(n)));
      }
      const { repo, env } = await installedRepo(pair, olds);
      const argv = ['upgrade', '--to', pair.to, ...pair.labels.flatMap((l) => ['--provider', l])];

      // A version objects may be stored in is removed or unserved: refused, nothing written, and the
      // report already names every such CRD with the steps.
      const storageRisk = expected.flatMap((e) => e.storageRisk);
      expect(storageRisk.length > 0).toBe(pair.storageMigration);
      expect(expected.flatMap((e) => e.unmigrated)).toEqual(pair.unmigrated ?? []);
      expect(expected.some((e) => e.messages.has('contract-older-than-core'))).toBe(pair.olderThanCore ?? false);
      let upgraded: CliResult;
      if (storageRisk.length > 0) {
        const before = snapshotTree(repo);
        const refused = await runCli(argv, { cwd: repo, env });
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr).toContain(
          `error[upgrade]: the upgrade removes or stops serving versions of ${storageRisk.length} CRD(s) that objects may still be stored in; nothing was changed`,
        );
        expect(refused.stderr).toContain('--confirm-storage-migration');
        const risky = parseFindings(refused.stdout).filter(
          (f) => f.code === 'crd-version-removed' || f.code === 'crd-version-unserved',
        );
        expect(risky.every((f) => f.severity === 'DANGER')).toBe(true);
        expect(risky.map((f) => f.message.split(':')[0]).sort()).toEqual([...storageRisk].sort());
        for (const crd of storageRisk)
          expect(refused.stdout).toContain(`kubectl get crd ${crd} -o jsonpath='{.status.storedVersions}'`);
        expect(snapshotTree(repo)).toEqual(before);
        upgraded = await runCli([...argv, '--confirm-storage-migration'], { cwd: repo, env });
      } else {
        upgraded = await runCli(argv, { cwd: repo, env });
      }
      // No variable the newer releases add is required (each has a default), so the older release's
      // variables are enough: the upgrade goes through.
      for (const e of expected) {
        expect(e.variables.newlyRequired, e.label).toEqual([]);
        expect(
          e.variables.added.filter((n) => !e.variables.defaults.has(n)),
          e.label,
        ).toEqual([]);
      }
      expect(upgraded.code, upgraded.stderr).toBe(0);
      expect(upgraded.stderr).toContain(`edited providers/providers.yaml`);

      const findings = parseFindings(upgraded.stdout);
      const tally = (severity: string, noun: string) => {
        const n = findings.filter((f) => f.severity === severity).length;
        return `${n} ${noun}${n === 1 ? '' : 's'}`;
      };
      expect(upgraded.stdout).toMatch(
        new RegExp(
          `^Findings: ${tally('DANGER', 'danger')}, ${tally('WARNING', 'warning')}, ${findings.filter((f) => f.severity === 'INFO').length} info$`,
          'm',
        ),
      );
      for (const e of expected) {
        const own = findings.filter((f) => f.component === e.label);
        // Exactly the derived findings of these kinds, no more and no fewer.
        expect(messagesByCode(own, DERIVED_CODES), e.label).toEqual(e.messages);
        for (const { message, lines } of e.details) {
          const finding = own.find((f) => f.message === message)!;
          for (const line of lines) expect(finding.details, message).toContain(line);
        }
      }
      // A provider moving to the contract the core (cluster-api v1.12.0) implements already moves alone.
      const core = contractOf('cluster-api', 'v1.12.0');
      for (const f of findings.filter((x) => x.code === 'contract-changed')) {
        const [, after] = /contract (\S+) → (\S+)$/.exec(f.message)!.slice(1);
        if (after === core)
          expect(f.details[0]).toBe(
            `The core provider cluster-api implements ${core} already: ${f.component} moves to the core's contract, and no other provider has to move with it.`,
          );
      }
      // Nothing reported for a component the upgrade does not touch.
      expect(new Set(findings.map((f) => f.component))).toEqual(
        new Set(expected.filter((e) => [...e.messages.values()].length > 0).map((e) => e.label)),
      );

      // Variables that came or went: a default that now applies, or a value the user set that the new
      // release no longer reads, shows as a changed controller flag or feature gate.
      const checked: string[] = [];
      for (const [i, e] of expected.entries()) {
        const own = findings.filter(
          (f) => f.component === e.label && (f.code === 'args-changed' || f.code === 'feature-gates-changed'),
        );
        const details = own.flatMap((f) => f.details).join('\n');
        for (const [variable, value] of e.variables.defaults) {
          const set = olds[i]!.corpus.variables[variable];
          const arg = (news[i]!.text.match(new RegExp(`- (--[\\w-]+=[^\\n]*\\$\\{${variable}[:=][^\\n]*)`)) ?? [])[1];
          if (set || arg === undefined) continue;
          const gate = arg.startsWith('--feature-gates=')
            ? /(\w+)=$/.exec(arg.slice(0, arg.indexOf(`\${${variable}`)))?.[1]
            : undefined;
          checked.push(variable);
          if (gate)
            expect(details, `${variable} sets feature gate ${gate}`).toMatch(
              new RegExp(`(added ${gate}=${value}|changed ${gate}: \\w+ → ${value})`),
            );
          else expect(details, `${variable} sets ${arg}`).toContain(`added ${arg.replace(/\$\{[^}]*\}/, value)}`);
        }
        for (const variable of e.variables.removed) {
          const set = olds[i]!.corpus.variables[variable];
          const arg = (olds[i]!.text.match(new RegExp(`- (--[\\w-]+)=\\$\\{${variable}[:=}]`)) ?? [])[1];
          if (!set || !arg) continue;
          checked.push(variable);
          expect(details, `${variable} is no longer read`).toContain(`removed ${arg}=${set.example}`);
        }
      }
      expect([...new Set(checked)].sort()).toEqual(pair.variables);

      // The lock and the inventory record the newer release and its contract.
      const locked = lockedProviders(repo);
      for (const [i, { corpus }] of news.entries())
        expect(locked[`${corpus.kind}/${corpus.namespace}/${corpus.name}`]).toBe(`${pair.to} ${news[i]!.contract}`);

      // `diff --verbose` against the commit of the older release says the same: the same counts, per
      // provider in its summary table, and every finding it prints on its own as upgrade printed it
      // (a cause several objects share is printed once, listing them).
      const diffed = await runCli(['diff', '--verbose'], { cwd: repo, env });
      expect(diffed.code, diffed.stderr).toBe(0);
      const countLine = (text: string) => /^Findings: .*$/m.exec(text)?.[0];
      expect(countLine(diffed.stdout)).toBe(countLine(upgraded.stdout));
      const perComponent = new Map<string, number[]>();
      for (const f of findings) {
        const counts = perComponent.get(f.component) ?? [0, 0, 0];
        counts[['DANGER', 'WARNING', 'INFO'].indexOf(f.severity)]! += 1;
        perComponent.set(f.component, counts);
      }
      expect(new Map(summaryCounts(diffed.stdout).filter(([, c]) => c.some((n) => n > 0)))).toEqual(perComponent);
      const alone = parseFindings(diffed.stdout);
      expect(alone.length).toBeGreaterThan(0);
      for (const f of alone) expect(findings).toContainEqual(f);
      if (storageRisk.length > 0)
        expect(diffed.stderr).toContain(`${storageRisk.length} finding(s) remove or stop serving CRD versions`);
    });
  },
);

describe('upgrade review: the credentials are not needed where their Secret is left out', () => {
  it('the upgrade without them writes the same tree as with them (infrastructure-vsphere v1.15.3 → v1.16.1, secrets.mode omit)', async () => {
    const old = loadRelease('infrastructure-vsphere', 'v1.15.3');
    const now = loadRelease('infrastructure-vsphere', 'v1.16.1');
    // The release requires its credentials (no default), and they only fill a Secret.
    const required = [...variablesOf(now.text)]
      .filter(([, d]) => d === undefined)
      .map(([n]) => n)
      .sort();
    expect(required).toEqual(['VSPHERE_PASSWORD', 'VSPHERE_USERNAME']);
    const pair = PAIRS.find((p) => p.labels[0] === 'infrastructure-vsphere')!;
    const upgrade = [
      'upgrade',
      '--to',
      'v1.16.1',
      '--provider',
      'infrastructure-vsphere',
      '--confirm-storage-migration',
    ];
    const withThem = await installedRepo(pair, [old]);
    const withoutThem = await installedRepo(pair, [old]);
    const a = await runCli(upgrade, { cwd: withThem.repo, env: withThem.env });
    // CI that runs the upgrade without the credentials in its environment.
    const b = await runCli(upgrade, {
      cwd: withoutThem.repo,
      env: { CAPI_RENDER_CACHE_DIR: withoutThem.env.CAPI_RENDER_CACHE_DIR! },
    });
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const tree = (repo: string) =>
      Object.fromEntries(Object.entries(snapshotTree(repo)).filter(([f]) => !f.startsWith('.git/')));
    expect(tree(withoutThem.repo)).toEqual(tree(withThem.repo));
    expect(b.stdout).toBe(a.stdout);
  });
});

describe('upgrade review: the newer release adds a variable without a default', () => {
  // None of the real pairs does (each new variable has a default, as the pair tests check), so the
  // real Metal3 v1.13.2 release is served with one more argument, `--new-option=${CAPM3_NEW_OPTION}`.
  it('the upgrade fails naming the variable and the release, and changes nothing', async () => {
    const pair = PAIRS.find((p) => p.labels[0] === 'infrastructure-metal3')!;
    const old = loadRelease('infrastructure-metal3', pair.from);
    const now = loadRelease('infrastructure-metal3', pair.to);
    const local = tempDir();
    cpSync(
      path.join(REPOSITORY, 'infrastructure-metal3', pair.from),
      path.join(local, 'infrastructure-metal3', pair.from),
      { recursive: true },
    );
    const folder = path.join(local, 'infrastructure-metal3', pair.to);
    mkdirSync(folder, { recursive: true });
    cpSync(
      path.join(REPOSITORY, 'infrastructure-metal3', pair.to, 'metadata.yaml'),
      path.join(folder, 'metadata.yaml'),
    );
    const anchor = '        - --insecure-diagnostics=${CAPM3_INSECURE_DIAGNOSTICS:=false}\n';
    expect(now.text.split(anchor).length).toBe(2);
    writeFileSync(
      path.join(folder, `${now.corpus.componentsFile}.gz`),
      gzipSync(now.text.replace(anchor, `${anchor}        - --new-option=\${CAPM3_NEW_OPTION}\n`)),
    );
    const { repo, env } = await installedRepo(pair, [old], [local]);
    const before = snapshotTree(repo);
    const r = await runCli(['upgrade', '--to', pair.to, '--provider', 'infrastructure-metal3'], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[variables-missing]');
    expect(r.stderr).toContain('value for variables [CAPM3_NEW_OPTION] is not set');
    expect(r.stderr).toContain(`infrastructure-metal3 ${pair.to}`);
    expect(snapshotTree(repo)).toEqual(before);
  });
});
