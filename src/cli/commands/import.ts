/**
 * `capi-render import --from FILE [--env NAME]`: declare what a running management cluster has
 * installed (clusterctl's inventory or the operator's CRs, read from a kubectl dump) as provider
 * CRs in providers/, or as a new overlay whose differences from the base are patches.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SpecError, UsageError, error, type Diagnostic } from '../../errors.js';
import { CONFIG_FILE } from '../../config/config-types.js';
import { loadConfig, locateConfigSetting } from '../../config/load-config.js';
import { inferInstallation, type InferredInstallation } from '../../adopt/import/infer-providers.js';
import { planImport, type ImportPlan } from '../../adopt/import/plan-import.js';
import { otherEnvironments, planDestination } from '../../adopt/import/argocd-destination.js';
import { inputFolderProblem, writeInputFiles, type ForbiddenFolders } from '../../adopt/import/write-input-files.js';
import { readLiveDump, type DumpItemHead } from '../../adopt/live-dump.js';
import { readDocuments } from '../../render/load-repository.js';
import { builtinProvidersOf, mergeProviderList } from '../../source/github/builtin-providers.js';
import { baselineOf } from '../../baseline/baseline.js';
import { manifestLabel } from '../../declarations/provider-kinds.js';
import { defineCommand } from '../command.js';
import { failpointFromEnv } from '../failpoint.js';
import { formatDiagnostics } from '../format.js';

/** Environment names become folders under overlays/, rendered/ and gitops/. */
const ENV_NAME = /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/;

export const importCommand = defineCommand({
  name: 'import',
  summary:
    'declare what a running management cluster has installed (from a kubectl dump) as provider CRs or a new overlay',
  synopsis: '--from FILE [--env NAME] [--fetch-url LABEL=URL]... [--force] [--dry-run] [--json]',
  options: {
    from: {
      type: 'string',
      value: 'FILE',
      help: 'the dump: kubectl get … -o yaml output (a List, a --- stream, or -o json); the read-only commands that write it: docs/adoption.md "1. Dump the cluster (read-only)"',
    },
    env: {
      type: 'string',
      value: 'NAME',
      help: 'write a new overlay overlays/NAME whose differences from providers/ are patches (default: write into providers/)',
    },
    'fetch-url': {
      type: 'string',
      multiple: true,
      value: 'LABEL=URL',
      help: 'fetchConfig.url for a provider capi-render does not know, by manifest label (e.g. infrastructure-acme=https://github.com/acme/cluster-api-provider-acme/releases/v1.2.0/infrastructure-components.yaml); repeatable',
    },
    force: { type: 'boolean', help: 'replace files that already exist (atomically)' },
    'dry-run': { type: 'boolean', help: 'print the files that would be written on stdout; write nothing' },
    json: { type: 'boolean', help: 'print what was found and written as JSON on stdout' },
  },
  async run({ io, values, repoRoot, color }) {
    if (values.from === undefined || values.from === '')
      throw new UsageError('--from FILE is required: the kubectl dump of the cluster (see capi-render import --help)');
    const { env } = values;
    if (env !== undefined && !ENV_NAME.test(env))
      throw new UsageError(
        `--env ${JSON.stringify(env)} is not a valid environment name (lowercase letters, digits, '.', '_' and '-', starting and ending with a letter or digit)`,
      );
    const fetchUrls = parseFetchUrls(values['fetch-url']);
    const config = await loadConfig(repoRoot);
    const configExists = existsSync(path.join(repoRoot, CONFIG_FILE));
    const forbidden: ForbiddenFolders = {
      outputs: [
        { setting: 'outputDir', folder: path.resolve(repoRoot, config.outputDir) },
        { setting: 'gitopsDir', folder: path.resolve(repoRoot, config.gitopsDir) },
      ],
    };
    const setting = env === undefined ? 'providersDir' : 'overlaysDir';
    const settingProblem = await inputFolderProblem(repoRoot, path.resolve(repoRoot, config[setting]), forbidden);
    if (settingProblem)
      throw new SpecError(
        error('config', `${setting} ${config[setting]} ${settingProblem}; import writes its files there`, {
          ...locateConfigSetting(repoRoot, [setting]),
          hint: `point ${setting} at a folder of its own inside the repository`,
        }),
      );
    const overlayDir = env === undefined ? undefined : path.posix.join(config.overlaysDir, env);
    const overlayProblem = overlayDir
      ? await inputFolderProblem(repoRoot, path.resolve(repoRoot, overlayDir), forbidden)
      : undefined;
    if (overlayProblem) throw new UsageError(`--env ${env}: ${overlayDir} ${overlayProblem}`);

    const dump = await readLiveDump(values.from, io.cwd, readByImport);
    const merged = mergeProviderList(
      builtinProvidersOf(baselineOf(config.emulate).clusterctl),
      config.providers,
    ).providers;
    const installation = inferInstallation(dump, {
      fetchUrls,
      isKnown: (kind, name) =>
        merged.some((p) => p.type === kind && p.name === name) ||
        config.repositories.some((r) => existsSync(path.resolve(repoRoot, r.path, manifestLabel(kind, name)))),
    });
    if (installation.errors.length > 0) throw new SpecError(installation.errors);
    const base = existsSync(path.resolve(repoRoot, config.providersDir))
      ? await readDocuments(repoRoot, config.providersDir)
      : [];
    // The overlay import writes sets no gitops settings but a destination: capi-render.yaml's are the new environment's.
    const destination =
      env === undefined
        ? undefined
        : planDestination(config.gitops, await otherEnvironments(repoRoot, config, env), dump);
    const plan = planImport({
      installation,
      // The file name only: the same dump gives the same declarations wherever it was saved.
      dumpName: path.basename(values.from),
      providersDir: config.providersDir,
      overlaysDir: config.overlaysDir,
      ...(env !== undefined ? { env } : {}),
      base,
      configCertManager: configExists ? config.certManager : undefined,
      certManagerDefaultVersion: baselineOf(config.emulate).certManagerDefaultVersion,
      read: (rel) => readExisting(path.join(repoRoot, rel)),
      force: values.force,
      ...(destination ? { destination } : {}),
    });
    if (plan.errors.length > 0) throw new SpecError(plan.errors);
    if (env !== undefined && !existsSync(path.resolve(repoRoot, config.overlaysDir)))
      plan.warnings.push(firstOverlayNote(env, config.overlaysDir));
    const warnings = [...installation.warnings, ...plan.warnings];
    if (warnings.length > 0) io.stderr.write(formatDiagnostics(warnings, { color }));
    if (values['dry-run']) {
      if (!values.json)
        io.stdout.write(
          plan.files
            .map((f) => `# ${f.path}${f.replaces ? ' (replaces the existing file)' : ''}\n${f.text}`)
            .join('---\n'),
        );
    } else await writeInputFiles(repoRoot, plan.files, failpointFromEnv(io.env), io.durableFs);
    if (values.json)
      io.stdout.write(`${JSON.stringify(importReport(installation, plan, values['dry-run']), null, 2)}\n`);
    else io.stderr.write(textReport(installation, plan, { dryRun: values['dry-run'], dumpName: values.from, env }));
    return 0;
  },
});

/** The text of an existing file (whether it may be replaced is the writer's decision); undefined when there is none. */
function readExisting(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The objects import reads (clusterctl's inventory, the operator's CRs, the Secrets and ConfigMaps
 * they reference, cert-manager's Deployment and Namespace): a large dump's other items are not parsed.
 */
function readByImport(head: DumpItemHead): boolean {
  if (head.kind === undefined || head.apiVersion === undefined) return true;
  if (
    head.kind === 'Provider' ||
    head.apiVersion.startsWith('operator.cluster.x-k8s.io/') ||
    head.kind === 'Secret' ||
    head.kind === 'ConfigMap'
  )
    return true;
  return (
    (head.kind === 'Deployment' || head.kind === 'Namespace') && head.text.includes('clusterctl.cluster.x-k8s.io/core')
  );
}

function parseFetchUrls(entries: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq === entry.length - 1)
      throw new UsageError(
        `--fetch-url ${JSON.stringify(entry)} must be LABEL=URL, e.g. infrastructure-acme=https://github.com/acme/cluster-api-provider-acme/releases/v1.2.0/infrastructure-components.yaml`,
      );
    out.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

function firstOverlayNote(env: string, overlaysDir: string): Diagnostic {
  return {
    severity: 'warning',
    code: 'import',
    message: `this is the repository's first overlay: from now on its environments are the folders under ${overlaysDir}/ (${env}), and the implicit environment "default" is no longer rendered`,
    hint: 'if rendered/default is committed, the next build asks for --allow-removal to retire it; add an overlay for it first if that cluster is still managed from here',
  };
}

function importReport(installation: InferredInstallation, plan: ImportPlan, dryRun: boolean) {
  return {
    dryRun,
    files: plan.files.map((f) => ({ path: f.path, replaces: f.replaces, unchanged: Boolean(f.unchanged) })),
    providers: installation.providers.map((p) => ({
      kind: p.kind,
      name: p.name,
      namespace: p.namespace,
      version: p.spec.version,
      from: p.origin,
    })),
    certManager: installation.certManager ?? null,
    requiredInputs: installation.required,
    notes: plan.notes,
    ...(plan.fillIn ? { fillIn: plan.fillIn } : {}),
    warnings: [...installation.warnings, ...plan.warnings].map((w) => ({
      code: w.code,
      message: w.message,
      ...(w.file ? { file: w.file } : {}),
    })),
  };
}

function textReport(
  installation: InferredInstallation,
  plan: ImportPlan,
  at: { dryRun: boolean; dumpName: string; env: string | undefined },
): string {
  const lines = installation.providers.map(
    (p) => `found ${p.kind} ${p.namespace}/${p.name} ${String(p.spec.version)} (${p.origin})`,
  );
  if (installation.certManager)
    lines.push(`found cert-manager ${installation.certManager.version} (${installation.certManager.from})`);
  else
    lines.push(
      'no cert-manager installed by clusterctl in the dump: if cert-manager is managed elsewhere, set certManager: {install: false}',
    );
  for (const f of plan.files)
    lines.push(
      `${f.unchanged ? 'unchanged' : at.dryRun ? 'would write' : f.replaces ? 'replaced' : 'wrote'} ${f.path}`,
    );
  for (const r of installation.required) {
    const keys = r.keys ? `; keys in the dump: ${r.keys.join(', ') || 'none'}` : '; not in the dump';
    lines.push(
      `needs ${r.kind} ${r.namespace}/${r.name} (${r.field} of ${r.usedBy}) among the inputs${r.kind === 'Secret' ? ': not imported, values never leave the cluster' : ''}${keys}`,
    );
  }
  lines.push(...plan.notes);
  const envFlag = at.env ? ` --env ${at.env}` : '';
  const first = plan.fillIn ? `fill in ${plan.fillIn.key} at ${plan.fillIn.file}:${plan.fillIn.line}, then ` : '';
  lines.push(
    `next: ${first}capi-render build${envFlag}, then capi-render check --live ${at.dumpName}${envFlag} shows what the first sync would change`,
  );
  return `${lines.join('\n')}\n`;
}
