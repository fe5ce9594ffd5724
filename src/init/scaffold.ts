/**
 * `capi-render init`: the files of a new repository, rendered from handlebars templates (bundled in
 * bundled-templates/init/, values only) and checked before anything is written — every YAML output must
 * parse, renovate.json must be JSON. Pure apart from reading the templates.
 */
import { readFileSync } from 'node:fs';
import { createHandlebars } from '../handlebars-instance.js';
import YAML from 'yaml';
import { InternalError } from '../errors.js';
import { CERT_MANAGER_DEFAULT_VERSION } from '../render/cert-manager.js';
import { packagePath } from '../package-files.js';
import { schemaModeline } from '../config/editor-schema-url.js';

export interface ScaffoldOptions {
  /** spec.version of core and kubeadm: exact, a range or `latest`. Default `latest` (pinned by the first build). */
  version?: string;
  infrastructure?: string;
  infrastructureVersion?: string;
  environment?: string;
  flavour?: 'kustomize' | 'argocd' | 'flux';
  certManagerVersion?: string;
  /** A clusterctl local repository to read releases from (repository-relative or absolute). */
  localRepository?: string;
  /** `owner/repo` of the infrastructure provider's releases, for the Renovate comment. Default: cluster-api-provider-<name>. */
  infrastructureRepository?: string;
  /** capi-render's version, pinned in the CI workflow. */
  toolVersion: string;
  /**
   * Jobs the CI workflow splits the environments over (`check --shard K/N` as a matrix; re-renders as
   * N `build --shard` jobs and one `merge` job that commits). Default 1: one job.
   */
  shards?: number;
}

/** Conventional namespaces of well-known infrastructure providers (their CAPx names). */
const NAMESPACES: Record<string, string> = {
  docker: 'capd-system',
  aws: 'capa-system',
  azure: 'capz-system',
  gcp: 'capg-system',
  vsphere: 'capv-system',
  openstack: 'capo-system',
  metal3: 'capm3-system',
  hetzner: 'caph-system',
  nutanix: 'capx-system',
};

/** Relative path → file text, sorted. */
export function scaffoldFiles(options: ScaffoldOptions): Map<string, string> {
  const infrastructure = options.infrastructure ?? 'docker';
  const environment = options.environment ?? 'dev';
  const context = {
    version: options.version ?? 'latest',
    infrastructure,
    infrastructureVersion:
      options.infrastructureVersion ?? (infrastructure === 'docker' ? (options.version ?? 'latest') : 'latest'),
    coreLatest: (options.version ?? 'latest') === 'latest',
    infrastructureLatest:
      (options.infrastructureVersion ?? (infrastructure === 'docker' ? (options.version ?? 'latest') : 'latest')) ===
      'latest',
    infrastructureNamespace: NAMESPACES[infrastructure] ?? `${infrastructure}-infrastructure-system`,
    infrastructureRepository:
      options.infrastructureRepository ?? `kubernetes-sigs/cluster-api-provider-${infrastructure}`,
    environment,
    flavour: options.flavour ?? 'kustomize',
    certManagerVersion: options.certManagerVersion ?? CERT_MANAGER_DEFAULT_VERSION,
    localRepository: options.localRepository ?? '',
    toolVersion: options.toolVersion,
    shards: options.shards ?? 1,
    shardList: Array.from({ length: options.shards ?? 1 }, (_, i) => i + 1).join(', '),
  };
  const handlebars = createHandlebars();
  const render = (template: string) =>
    handlebars.compile(readFileSync(packagePath('bundled-templates', 'init', template), 'utf8'), {
      strict: true,
      noEscape: true,
    })(context);
  const files: [string, string][] = [
    // First lines naming their JSON Schema, for editors with the YAML language server (config/editor-schema-url.ts).
    ['capi-render.yaml', `${schemaModeline('config', options.toolVersion)}\n${render('capi-render.yaml.hbs')}`],
    ['providers/core.yaml', render('core.yaml.hbs')],
    ['providers/kubeadm.yaml', render('kubeadm.yaml.hbs')],
    [`providers/${infrastructure}.yaml`, render('infrastructure.yaml.hbs')],
    [
      `overlays/${environment}/overlay.yaml`,
      `${schemaModeline('overlay', options.toolVersion)}\n${render('overlay.yaml.hbs')}`,
    ],
    ['.gitignore', render('gitignore.hbs')],
    [
      '.github/workflows/capi-render.yaml',
      render((options.shards ?? 1) > 1 ? 'workflow-sharded.yaml.hbs' : 'workflow.yaml.hbs'),
    ],
    ['renovate.json', render('renovate.json.hbs')],
  ];
  for (const [file, text] of files) {
    try {
      if (file.endsWith('.json')) JSON.parse(text);
      else if (file.endsWith('.yaml'))
        for (const doc of YAML.parseAllDocuments(text)) if (doc.errors.length) throw doc.errors[0];
    } catch (e) {
      throw new InternalError(
        `the bundled init template for ${file} produced invalid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(e as Error).message}`,
      );
    }
  }
  return new Map(files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
