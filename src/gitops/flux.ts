/**
 * The Flux flavour: prune protection for CRDs and Namespaces, and one Flux
 * Kustomization per component chained with dependsOn — cert-manager ← core ← every other provider,
 * and a provider on the component that creates its namespace when they share one —
 * each with `wait: true`, so a Certificate is never applied before cert-manager's webhook serves
 * and no provider before core's CRDs and webhooks are ready (Flux cannot order that inside one
 * Kustomization: its server-side dry run of a Certificate needs the webhook).
 */
import { SpecError, error, warning, type Diagnostic } from '../errors.js';
import type { JsonObject, KubeObject } from '../manifest/object.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import { joinDocuments, serializeObject } from '../manifest/serialize.js';
import { kustomizationText } from '../plan/output-plan.js';
import { namespaceOwners } from '../plan/shared-namespaces.js';
import { DISABLED, FLUX_PRUNE, withAnnotation } from './annotations.js';
import {
  FLUX_KUSTOMIZATIONS_FILE,
  FLUX_OCI_REPOSITORY_FILE,
  fluxFolder,
  joinRepoPath,
  objectNameFrom,
} from './layout.js';
import { componentRole, type FluxOciVerifyOptions, type ResolvedGitopsOptions } from './options.js';
import { sopsDecryptionSecret } from '../secrets/sops/pending.js';

/** The GA Flux Kustomization API (kustomize-controller v1.0+). */
export const FLUX_KUSTOMIZATION_API_VERSION = 'kustomize.toolkit.fluxcd.io/v1';

/** The GA OCIRepository API (source-controller v1.6+). */
export const FLUX_OCI_API_VERSION = 'source.toolkit.fluxcd.io/v1';

/** Flux writes the Kustomization name into a label value, which is limited to 63 characters. */
const MAX_NAME_LENGTH = 63;

/** Annotates one object for Flux: `prune: disabled` on CRDs and Namespaces when they are protected. */
export function annotateForFlux(obj: KubeObject, protect: ResolvedGitopsOptions['protect']): KubeObject {
  if ((obj.kind === 'CustomResourceDefinition' && protect.crds) || (obj.kind === 'Namespace' && protect.namespaces)) {
    return withAnnotation(obj, FLUX_PRUNE, DISABLED);
  }
  return obj;
}

/** The Flux Kustomization name of a component: `capi-<env>-<component>` in object-name form. */
export function fluxKustomizationName(env: string, component: string): string {
  return `capi-${objectNameFrom(env)}-${objectNameFrom(component)}`;
}

/**
 * The Kustomization objects of an environment, in the environment's component order. Each depends
 * on the stages before it: core on cert-manager; every other provider on core and on cert-manager
 * (explicitly, not only through core, so removing core from an environment cannot silently drop
 * the cert-manager gate). `flux.dependsOn` is given to every root of the chain (cert-manager, or core without it).
 */
export function fluxKustomizations(
  env: RenderedEnvironment,
  options: ResolvedGitopsOptions,
): { objects: KubeObject[]; warnings: Diagnostic[] } {
  const f = options.flux;
  const names = new Map(env.components.map((c) => [c.name, fluxKustomizationName(env.name, c.name)]));
  const certManager = env.components.find((c) => componentRole(c.name) === 'cert-manager');
  const core = env.components.find((c) => componentRole(c.name) === 'core');
  const extra = f.dependsOn.map((d): JsonObject =>
    d.namespace ? { name: d.name, namespace: d.namespace } : { name: d.name },
  );
  // From an OCI artifact the environment's folder is the artifact's root (publish archives rendered/<env>).
  const sourceRef: JsonObject = f.oci
    ? { kind: 'OCIRepository', name: fluxOciRepositoryName(env.name) }
    : { kind: f.sourceRef.kind, name: f.sourceRef.name };
  if (!f.oci && f.sourceRef.namespace) sourceRef.namespace = f.sourceRef.namespace;
  const folder = (component: string) =>
    f.oci ? `./${component}` : `./${joinRepoPath(f.pathPrefix, env.name, component)}`;
  const warnings: Diagnostic[] = [];
  const owners = namespaceOwners(env.components);
  const objects = env.components.map((component): KubeObject => {
    const role = componentRole(component.name);
    const upstream = role === 'cert-manager' ? [] : role === 'core' ? [certManager] : [certManager, core];
    // A provider installed into a namespace another component creates (k0smotron's three share one) waits for it.
    const stages = [
      ...new Set([
        ...upstream.filter((c) => c !== undefined).map((c) => c.name),
        ...(owners.get(component.name) ?? []),
      ]),
    ];
    const dependsOn = stages.map((c): JsonObject => ({ name: names.get(c)! }));
    const name = names.get(component.name)!;
    if (name.length > MAX_NAME_LENGTH) {
      warnings.push(
        warning(
          'gitops',
          `Flux Kustomization name ${name} is longer than ${MAX_NAME_LENGTH} characters; Flux cannot label the objects it applies with it`,
          {
            object: `Kustomization/${f.namespace}/${name}`,
            hint: 'use a shorter environment name',
          },
        ),
      );
    }
    const spec: JsonObject = {
      interval: f.interval,
      path: folder(component.name),
      prune: true,
      sourceRef,
      timeout: f.timeout,
      wait: true,
    };
    // Hub and spoke: apply to this environment's management cluster, not the one Flux runs in.
    if (f.kubeConfig) spec.kubeConfig = { secretRef: { ...f.kubeConfig.secretRef } };
    if (f.serviceAccountName) spec.serviceAccountName = f.serviceAccountName;
    // A Kustomization with no upstream inside the environment is a root of the chain.
    const allDeps = dependsOn.length === 0 ? extra : dependsOn;
    if (allDeps.length > 0) spec.dependsOn = allDeps;
    // A folder with a SOPS-encrypted Secret (secrets.mode sops) is decrypted by kustomize-controller with the age identity in that Secret.
    const decryptionSecret = component.objects.map(sopsDecryptionSecret).find((n) => n !== undefined);
    if (decryptionSecret) spec.decryption = { provider: 'sops', secretRef: { name: decryptionSecret } };
    return {
      apiVersion: FLUX_KUSTOMIZATION_API_VERSION,
      kind: 'Kustomization',
      metadata: { name, namespace: f.namespace },
      spec,
    };
  });
  return { objects, warnings };
}

/** The OCIRepository name of an environment's artifact: `capi-<env>`. */
export function fluxOciRepositoryName(env: string): string {
  return `capi-${objectNameFrom(env)}`;
}

/**
 * The OCIRepository (source.toolkit.fluxcd.io/v1, GA since source-controller v1.6) for the artifact
 * `capi-render publish` pushed to `<repository>/<env>`: pinned by digest when one is set (the
 * source then changes only when that line changes), else following the tag. Throws SpecError
 * `config` without a repository.
 */
export function fluxOciRepository(env: string, options: ResolvedGitopsOptions): KubeObject {
  const f = options.flux;
  const oci = f.oci!;
  if (oci.repository === undefined) {
    throw new SpecError(
      error('config', 'gitops.flux.oci.repository is required to take the output from an OCI artifact', {
        field: 'gitops.flux.oci.repository',
        hint: 'set it to the registry and repository prefix capi-render publish pushes to, e.g. ghcr.io/acme/capi-render',
      }),
    );
  }
  const spec: JsonObject = {
    interval: oci.interval ?? f.interval,
    ref: oci.digest ? { digest: oci.digest } : { tag: oci.tag ?? 'latest' },
    url: `oci://${oci.repository}/${env}`,
  };
  if (oci.insecure) spec.insecure = true;
  if (oci.secretRef) spec.secretRef = { name: oci.secretRef.name };
  if (oci.verify) spec.verify = fluxOciVerify(oci.verify);
  return {
    apiVersion: FLUX_OCI_API_VERSION,
    kind: 'OCIRepository',
    metadata: { name: fluxOciRepositoryName(env), namespace: f.namespace },
    spec,
  };
}

const VERIFY_FIELD = 'gitops.flux.oci.verify';

/**
 * `spec.verify` for a signed artifact (`capi-render publish --sign-key` / `--sign-keyless`),
 * provider cosign: the Secret with the public key (Flux tries every key ending `.pub`), or one
 * `matchOIDCIdentity` entry. Exact issuer and identity values become anchored, escaped regular
 * expressions (Flux matches with Go's unanchored MatchString, so `…/repo` would also accept
 * `…/repo-evil`); the `…RegExp` forms are passed as written. Throws SpecError `config` for a
 * verify block that is not exactly one of the two, or a keyless one without issuer or identity.
 */
export function fluxOciVerify(verify: FluxOciVerifyOptions): JsonObject {
  const fail = (message: string, hint: string, field = VERIFY_FIELD) =>
    new SpecError(error('config', message, { field, hint }));
  if (verify.key && verify.keyless)
    throw fail(
      `${VERIFY_FIELD} has both key and keyless`,
      'keep the one that matches how capi-render publish signs (--sign-key or --sign-keyless)',
    );
  if (verify.key) return { provider: 'cosign', secretRef: { name: verify.key.secretRef.name } };
  const k = verify.keyless;
  if (!k)
    throw fail(
      `${VERIFY_FIELD} names neither key nor keyless`,
      'add key: {secretRef: {name: <Secret with cosign.pub>}} or keyless: {issuer: …, identity: …}',
    );
  const pattern = (exact: string | undefined, regexp: string | undefined, name: string, example: string): string => {
    const field = `${VERIFY_FIELD}.keyless`;
    if (exact !== undefined && regexp !== undefined)
      throw fail(
        `${field} has both ${name} and ${name}RegExp`,
        `keep one: ${name} is matched exactly, ${name}RegExp as a Go regular expression`,
        field,
      );
    if (exact !== undefined) return `^${quoteGoRegExp(exact)}$`;
    if (regexp !== undefined) return regexp;
    throw fail(`${field} has no ${name}`, `add ${name} (exact) or ${name}RegExp, e.g. ${name}: ${example}`, field);
  };
  const issuer = pattern(k.issuer, k.issuerRegExp, 'issuer', 'https://token.actions.githubusercontent.com');
  const subject = pattern(
    k.identity,
    k.identityRegExp,
    'identity',
    'https://github.com/acme/fleet/.github/workflows/publish.yaml@refs/heads/main',
  );
  const spec: JsonObject = { provider: 'cosign', matchOIDCIdentity: [{ issuer, subject }] };
  if (k.trustedRootSecretRef) spec.trustedRootSecretRef = { name: k.trustedRootSecretRef.name };
  return spec;
}

/** Warnings for `…RegExp` values Flux would match as substrings (anchor them with ^…$). */
export function fluxOciVerifyWarnings(verify: FluxOciVerifyOptions | undefined): Diagnostic[] {
  const k = verify?.keyless;
  if (!k) return [];
  return (['issuerRegExp', 'identityRegExp'] as const).flatMap((name) => {
    const value = k[name];
    if (value === undefined || (value.startsWith('^') && value.endsWith('$'))) return [];
    return [
      warning(
        'gitops',
        `${VERIFY_FIELD}.keyless.${name} ${JSON.stringify(value)} is not anchored: Flux accepts any ${name === 'issuerRegExp' ? 'issuer' : 'identity'} that merely contains a match`,
        {
          field: `${VERIFY_FIELD}.keyless.${name}`,
          hint: `write it as ^…$ (escape the dots), or use ${name === 'issuerRegExp' ? 'issuer' : 'identity'} for an exact value`,
        },
      ),
    ];
  });
}

/** Go's regexp.QuoteMeta: every metacharacter of RE2 syntax escaped. */
function quoteGoRegExp(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, (c) => `\\${c}`);
}

/**
 * The files of the Flux kit: the Kustomizations as one multi-document file (and, from an OCI
 * artifact, the OCIRepository in its own) plus a kustomization.yaml listing them.
 */
export function fluxExtraFiles(
  env: RenderedEnvironment,
  options: ResolvedGitopsOptions,
): { files: [string, string][]; warnings: Diagnostic[] } {
  const { objects, warnings } = fluxKustomizations(env, options);
  if (objects.length === 0) return { files: [], warnings };
  const folder = fluxFolder(env.name);
  const files: [string, string][] = [
    [`${folder}/${FLUX_KUSTOMIZATIONS_FILE}`, joinDocuments(objects.map((o) => serializeObject(o)))],
  ];
  if (options.flux.oci) {
    files.push([`${folder}/${FLUX_OCI_REPOSITORY_FILE}`, serializeObject(fluxOciRepository(env.name, options))]);
    warnings.push(...fluxOciVerifyWarnings(options.flux.oci.verify));
  }
  files.push([
    `${folder}/kustomization.yaml`,
    kustomizationText(files.map(([p]) => p.slice(folder.length + 1)).sort()),
  ]);
  return { files, warnings };
}
