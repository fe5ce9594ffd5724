/**
 * The upgrade review of a provider that is not Cluster API core, on its real releases: vcd (CAPVCD,
 * infrastructure-vcd) v1.2.0 → v1.3.2 beside core cluster-api v1.12.0. What the two releases show is
 * read from their own files here: the controller image moves to another registry host, three CRDs
 * drop the served v1alpha4, no ClusterRole of either release lets the controller update a CRD's
 * status (so no CRD migrator of CAPVCD can trim storedVersions), and both releases implement the
 * v1beta1 contract while the core implements v1beta2. The report must say each of these as it is
 * true for CAPVCD — nothing about the core's CRD migrator. Then the other way round: the core moves
 * from v1beta1 to v1beta2 and leaves vcd v1.3.2 where it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { gitEnv, initRepo } from '../helpers/git.js';
import { CORE, makeRepo } from '../helpers/repo.js';
import { suiteTempDir } from '../helpers/tmp.js';

type Obj = Record<string, any>;
const VCD = path.join(FIXTURES, 'repository', 'infrastructure-vcd');

function release(version: string): { objects: Obj[]; contract: string } {
  const folder = path.join(VCD, version);
  const plain = path.join(folder, 'infrastructure-components.yaml');
  let text: string;
  try {
    text = readFileSync(plain, 'utf8');
  } catch {
    text = gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
  }
  const metadata = jsYaml.load(readFileSync(path.join(folder, 'metadata.yaml'), 'utf8')) as {
    releaseSeries: { major: number; minor: number; contract: string }[];
  };
  const [major, minor] = version.slice(1).split('.').map(Number);
  const objects = jsYaml.loadAll(text).filter((o): o is Obj => typeof o === 'object' && o !== null);
  return { objects, contract: metadata.releaseSeries.find((s) => s.major === major && s.minor === minor)!.contract };
}

const imageOf = (objects: Obj[]) =>
  objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers.find((c: Obj) => c.name === 'manager')
    .image as string;
const hostOf = (image: string) => image.slice(0, image.indexOf('/'));

interface Printed {
  severity: string;
  component: string;
  code: string;
  message: string;
  details: string[];
}

/** The findings of the text report: `SEVERITY env/component [object] [code]`, the message, `- detail` lines. */
function findings(stdout: string): Printed[] {
  const lines = stdout.split('\n');
  const out: Printed[] = [];
  for (const [i, line] of lines.entries()) {
    const head = /^(DANGER|WARNING|INFO) +\S+\/(\S+)(?: \S+)? \[([a-z-]+)\]$/.exec(line);
    if (!head) continue;
    const details: string[] = [];
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('          - '); j++)
      details.push(lines[j]!.slice('          - '.length));
    out.push({ severity: head[1]!, component: head[2]!, code: head[3]!, message: lines[i + 1]!.trim(), details });
  }
  return out;
}

/** Words true of Cluster API core only. */
const CORE_ONLY =
  /CAPI controllers|Cluster API v1\.10\+\)? re-writes|Cluster API v1\.10\+, usually did it|Manifests in git that use Cluster API's/;

describe('upgrade review of infrastructure-vcd v1.2.0 → v1.3.2 beside cluster-api v1.12.0', () => {
  const old = release('v1.2.0');
  const now = release('v1.3.2');
  let refused: CliResult;
  let upgraded: CliResult;
  let diffed: CliResult;
  const root = suiteTempDir();

  beforeAll(async () => {
    const repo = path.join(root, 'repo');
    makeRepo(
      {
        'providers/core.yaml': CORE('v1.12.0'),
        'providers/vcd.yaml':
          'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: vcd\n  namespace: capvcd-system\nspec:\n  version: v1.2.0\n',
      },
      repo,
    );
    const env = { ...gitEnv(path.join(root, 'home')), CAPI_RENDER_CACHE_DIR: path.join(root, 'cache') };
    const built = await runCli(['build'], { cwd: repo, env });
    expect(built.code, built.stderr).toBe(0);
    initRepo(repo, env);
    const argv = ['upgrade', '--provider', 'infrastructure-vcd', '--to', 'v1.3.2'];
    refused = await runCli(argv, { cwd: repo, env });
    upgraded = await runCli([...argv, '--confirm-storage-migration'], { cwd: repo, env });
    diffed = await runCli(['diff'], { cwd: repo, env });
  }, 120_000);

  it('refuses without the storage-migration confirmation, then upgrades; diff prints the same findings', () => {
    expect(refused.code, refused.stderr).toBe(1);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(diffed.code, diffed.stderr).toBe(0);
    expect(findings(refused.stdout)).toEqual(findings(upgraded.stdout));
    // diff groups the same cause (the vcd CRDs' one procedure), so it is compared by its tally and codes.
    const tally = (out: string) => /^Findings: .*$/m.exec(out)?.[0];
    expect(tally(diffed.stdout)).toBe(tally(upgraded.stdout));
    const codes = (out: string) =>
      [
        ...new Set([...out.matchAll(/^(DANGER|WARNING|INFO) +.*\[([a-z-]+)\]$/gm)].map((m) => `${m[1]} ${m[2]}`)),
      ].sort();
    expect(codes(diffed.stdout)).toEqual(codes(upgraded.stdout).filter((c) => !/^INFO crd-(version-)?added$/.test(c)));
  });

  it('the controller image moving to another registry host is a warning that says what a mirrored or allow-listed site must do', () => {
    const from = imageOf(old.objects);
    const to = imageOf(now.objects);
    expect(hostOf(from)).not.toBe(hostOf(to));
    const [image, ...more] = findings(upgraded.stdout).filter((f) => f.code === 'image-changed');
    expect(more).toEqual([]);
    expect([image!.severity, image!.component, image!.message]).toEqual([
      'WARNING',
      'infrastructure-vcd',
      `container manager: ${from} → ${to}`,
    ]);
    expect(image!.details[0]).toBe(
      `The image moves from registry ${hostOf(from)} to ${hostOf(to)}: the cluster's nodes pull from ${hostOf(to)} after the sync.`,
    );
    expect(image!.details[1]).toContain(`An air-gapped site must mirror it from ${hostOf(to)} first`);
    expect(image!.details[1]).toContain(`must allow ${hostOf(to)}`);
  });

  it('the CRD steps say what is true for CAPVCD: no ClusterRole lets its controller migrate, nothing of the core', () => {
    // What the release shows: no rule of any ClusterRole names customresourcedefinitions/status.
    const grants = now.objects
      .filter((o) => o.kind === 'ClusterRole')
      .flatMap((r) => (r.rules ?? []) as Obj[])
      .filter((rule) => (rule.resources ?? []).includes('customresourcedefinitions/status'));
    expect(grants).toEqual([]);
    const removed = findings(upgraded.stdout).filter((f) => f.code === 'crd-version-removed');
    const crds = now.objects.filter(
      (o) =>
        o.kind === 'CustomResourceDefinition' &&
        old.objects.some(
          (w) =>
            w.metadata.name === o.metadata.name &&
            w.spec.versions.some((v: Obj) => !o.spec.versions.some((n: Obj) => n.name === v.name)),
        ),
    );
    expect(removed.map((f) => f.message.split(':')[0]).sort()).toEqual(
      crds.map((c) => c.metadata.name as string).sort(),
    );
    expect(removed.length).toBeGreaterThan(0);
    for (const f of removed) {
      expect(f.component).toBe('infrastructure-vcd');
      expect(f.details.join('\n')).not.toMatch(CORE_ONLY);
      expect(f.details).toContain('If it prints exactly `["v1beta2"]`, nothing needs migrating.');
      expect(
        f.details.some((d) =>
          d.includes(
            "No ClusterRole of infrastructure-vcd lets its controller update this CRD's status, so no CRD migrator of its own does it",
          ),
        ),
      ).toBe(true);
    }
    for (const f of findings(upgraded.stdout).filter((x) => x.component === 'infrastructure-vcd'))
      expect(`${f.message}\n${f.details.join('\n')}`).not.toMatch(CORE_ONLY);
  });

  it("a v1beta1 provider beside the v1beta2 core is named with Cluster API's support rule", () => {
    expect([old.contract, now.contract]).toEqual(['v1beta1', 'v1beta1']);
    const [note, ...more] = findings(upgraded.stdout).filter((f) => f.code === 'contract-older-than-core');
    expect(more).toEqual([]);
    expect([note!.severity, note!.component, note!.message]).toEqual([
      'WARNING',
      'infrastructure-vcd',
      'infrastructure-vcd implements contract v1beta1, older than v1beta2, the contract of the core provider cluster-api',
    ]);
    expect(note!.details[0]).toBe(
      'clusterctl accepts it, by Cluster API\'s support rule (book, reference/versions.md): "v1beta1 is temporarily compatible with v1beta2", and v1beta1 is "Deprecated since CAPI v1.11; in v1.16, April 2027 compatibility with the v1beta1 contract will be considered EOL".',
    );
    // An infrastructure provider reports terminal failures on its InfraMachines: the compatibility's limit applies.
    expect(note!.details[1]).toMatch(
      /^The compatibility has limits: a terminal failure infrastructure-vcd reports the v1beta1 way/,
    );
    // The contract did not change, so there is no contract-changed finding.
    expect(findings(upgraded.stdout).filter((f) => f.code === 'contract-changed')).toEqual([]);
  });
});

describe('the core moving to v1beta2 (cluster-api v1.10.4 → v1.11.0) leaves infrastructure-vcd v1.3.2 on v1beta1', () => {
  let upgraded: CliResult;
  const root = suiteTempDir();

  beforeAll(async () => {
    const repo = path.join(root, 'repo');
    makeRepo(
      {
        'providers/core.yaml': CORE('v1.10.4'),
        'providers/vcd.yaml':
          'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: vcd\n  namespace: capvcd-system\nspec:\n  version: v1.3.2\n',
      },
      repo,
    );
    const env = { ...gitEnv(path.join(root, 'home')), CAPI_RENDER_CACHE_DIR: path.join(root, 'cache') };
    const built = await runCli(['build'], { cwd: repo, env });
    expect(built.code, built.stderr).toBe(0);
    initRepo(repo, env);
    // The trimmed v1.11.0 fixture drops CRD versions and a CRD (PROVENANCE.md): both confirmed here.
    upgraded = await runCli(
      ['upgrade', '--provider', 'cluster-api', '--to', 'v1.11.0', '--confirm-storage-migration', '--allow-removal'],
      { cwd: repo, env },
    );
  }, 120_000);

  it("the core's contract move says the providers it leaves behind keep working, and names vcd, untouched, with the rule", () => {
    expect(upgraded.code, upgraded.stderr).toBe(0);
    const all = findings(upgraded.stdout);
    const [moved] = all.filter((f) => f.code === 'contract-changed');
    expect([moved!.component, moved!.message]).toEqual(['cluster-api', 'cluster-api: contract v1beta1 → v1beta2']);
    expect(moved!.details[0]).toBe(
      'A core implementing v1beta2 still accepts providers implementing v1beta1 (Cluster API: "v1beta1 is temporarily compatible with v1beta2"): those in default that do not move with it keep working, and each is named in a contract-older-than-core finding.',
    );
    // vcd's objects do not change: its one finding is the contract note.
    expect(all.filter((f) => f.component === 'infrastructure-vcd').map((f) => [f.severity, f.code])).toEqual([
      ['WARNING', 'contract-older-than-core'],
    ]);
  });

  it("the core's own CRDs are the ones that name the core's CRD migrator", () => {
    // What v1.10.4 and v1.11.0 show: the core's ClusterRole lets its controller update the status of the Cluster CRD by name.
    for (const version of ['v1.10.4', 'v1.11.0']) {
      const text = gunzipSync(
        readFileSync(path.join(FIXTURES, 'repository', 'cluster-api', version, 'core-components.yaml.gz')),
      ).toString('utf8');
      const roles = (jsYaml.loadAll(text) as Obj[]).filter((o) => o?.kind === 'ClusterRole');
      const grants = roles
        .flatMap((r) => (r.rules ?? []) as Obj[])
        .filter(
          (rule) =>
            (rule.resources ?? []).includes('customresourcedefinitions/status') &&
            (rule.resourceNames ?? []).includes('clusters.cluster.x-k8s.io'),
        );
      expect(grants.length, version).toBeGreaterThan(0);
    }
    const all = findings(upgraded.stdout);
    const clusters = all.find(
      (f) => f.code === 'crd-storage-version-changed' && f.message.startsWith('clusters.cluster.x-k8s.io:'),
    )!;
    expect(clusters.details[1]).toMatch(
      /^cluster-api's controller \(Cluster API v1\.10\+\) re-writes them and trims status\.storedVersions through its CRD migrator after the sync/,
    );
    expect(
      all
        .filter((f) => f.component !== 'cluster-api')
        .every((f) => !CORE_ONLY.test(`${f.message}\n${f.details.join('\n')}`)),
    ).toBe(true);
  });
});
