/**
 * Renders one environment: validate its provider CRs, run the preflight checks, resolve each
 * provider's source and version, check contracts, and process every provider's components.
 * Problems are collected across providers and reported together.
 */
import { RenderError, SpecError, error, peerWording, throwIfErrors, type Diagnostic } from '../errors.js';
import type { KubeObject } from '../manifest/object.js';
import { isJsonObject } from '../manifest/object.js';
import { processedComponents } from './processed-components.js';
import { imageNameProblems, type ImageOverrides } from '../process/image-overrides.js';
import { baselineOf } from '../baseline/baseline.js';
import { parseVersionRequest } from '../resolve/select-version.js';
import { METADATA_FILE } from '../source/metadata.js';
import { findInput, type InputSet } from '../declarations/inputs.js';
import { runPreflightChecks, ref } from '../declarations/preflight.js';
import { kindInfo, manifestLabel } from '../declarations/provider-kinds.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import { validateProviders } from '../declarations/validate-providers.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import { bringYourOwnCertManagerWarnings, renderCertManager } from './cert-manager.js';
import type { RenderedComponent } from '../plan/output-plan.js';
import { checkContracts } from '../resolve/contracts.js';
import { providerSource, type SourceContext } from '../source/provider-source.js';
import type { RenderSession } from './session.js';
import { variableLookup, type ResolvedVariable } from '../process/variable-values/precedence.js';
import { readConfigSecretEntries } from '../declarations/config-secret.js';
import { assertNoUnsetMarker, renderWithUnsetValues } from '../process/variable-values/unset-values.js';
import { describeReference } from '../declarations/secret-values.js';
import jsYaml from 'js-yaml';
import { resolveProvider, type ResolvedArtifacts } from './resolve-provider.js';
import { hasDigest, lockKey, pinImages, type SignatureCheck } from '../images/pin-images.js';
import { registryPolicy } from '../images/registry-policy.js';
import type { RegistryPolicy } from '../images/image-resolver.js';
import { reconcileInstances } from '../process/multi-instance.js';
import { shareNamespaces } from '../plan/shared-namespaces.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { createHash } from 'node:crypto';

const sha256Text = (text: string) => createHash('sha256').update(text).digest('hex');
import { guardSecrets, sensitiveValues, type RequiredSecret } from '../secrets/secret-guard.js';
import { decryptSopsInputs } from '../secrets/sops/decrypt-inputs.js';
import type { EnvironmentInputs, EnvironmentResult, ResolvedProvider } from './environment-result.js';
import { locateVerifyRule } from './locate-verify-rule.js';
import { locateVariable } from './locate-variable.js';
import { imageName } from '../images/image-name.js';
import { siteOnRead } from './site-on-read.js';

/** An environment's providers resolved, before anything is substituted or processed. */
export interface ResolvedEnvironment {
  /** The resolved providers, the core provider first. */
  ready: ResolvedArtifacts[];
  /** Warnings so far (validation, resolution). */
  warnings: Diagnostic[];
}

/**
 * The first half of an environment's render: validate its provider CRs, run the preflight checks,
 * resolve each provider's source, version and release files, and check contracts. Problems of all
 * its providers are thrown together. Read-only reports on the inputs (`variables`) stop here.
 */
export async function resolveEnvironment(
  envInputs: EnvironmentInputs,
  session: RenderSession,
): Promise<ResolvedEnvironment> {
  // SOPS-encrypted configSecrets are read decrypted (secrets/sops/decrypt-inputs.ts; a no-op once they are).
  const inputs = await decryptSopsInputs(envInputs.inputs, session.env);
  const locate = (cr: ProviderCR, path: readonly (string | number)[]) => {
    const input = inputs.providers.find(
      (p) =>
        isJsonObject(p.object.metadata) &&
        p.object.kind === cr.kind &&
        p.object.metadata.name === cr.name &&
        p.object.metadata.namespace === cr.namespace,
    );
    return { file: cr.file, ...(input ? input.locate(path) : { line: cr.line, col: 1 }) };
  };
  // Where a CR's spec.version is, found on first read: only a diagnostic reads it, and finding it can
  // take the position-keeping parse of the CR's file, which a successful build never needs otherwise.
  const versionSite = (cr: ProviderCR) => siteOnRead(() => locate(cr, ['spec', 'version']), ['file', 'line', 'col']);
  const sourceCtx: SourceContext = {
    repoRoot: session.repoRoot,
    repositories: session.config.repositories,
    ...(session.fillingRepository !== undefined ? { fillingRepository: session.fillingRepository } : {}),
    configMaps: inputs.configMaps,
    secrets: inputs.secrets,
    catalog: session.catalog,
    locate,
  };

  const validated = validateProviders(inputs.providers, session.validator);
  const diagnostics = [...validated.diagnostics];
  const providers = [...validated.providers].sort(
    (a, b) => kindInfo(a.kind).order - kindInfo(b.kind).order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  if (diagnostics.length === 0) {
    diagnostics.push(
      ...runPreflightChecks(providers, {
        locate,
        isKnownProvider: (cr) => safely(() => providerSource(cr, sourceCtx)) !== undefined,
        isAcceptedVersion: (v) => parseVersionRequest(v) !== null,
        baseline: baselineOf(session.config.emulate),
      }),
    );
  }
  // Image renames exist only from clusterctl v1.13 on: refused at once under an older baseline.
  const baseline = baselineOf(session.config.emulate);
  const imageNames = (images: ImageOverrides, where: { file: string; object?: string }) =>
    baseline.imageNameOverride ? [] : imageNameProblems(images, where, baseline.title);
  diagnostics.push(
    ...imageNames(session.config.images, { file: 'capi-render.yaml' }),
    ...imageNames(envInputs.images, { file: envInputs.file ?? 'capi-render.yaml' }),
  );
  const warnings = throwIfErrors(diagnostics);
  throwIfErrors(
    providers.flatMap((cr) => imageNames(imagesFromConfigSecret(cr, inputs), { file: cr.file, object: ref(cr) })),
  );

  // Resolve sources, versions and metadata; the core provider first, because its contract decides
  // which releases of the others fit. Every failure is collected before giving up.
  const problems: Diagnostic[] = [];
  // Resolving reads these values of the build, and only these (resolve-provider.ts ResolveContext).
  const resolveDeps = {
    pin: session.pin,
    store: session.store,
    locked: session.lock.environments.find((e) => e.name === envInputs.name)?.providers ?? [],
    lockEvidence: session.lockEvidence,
    allowDowngrade: session.allowDowngrade ?? false,
    committed: envInputs.committed,
  };
  const resolveOne = async (cr: ProviderCR, coreContract: string | undefined) => {
    try {
      return await resolveProvider(cr, {
        ...resolveDeps,
        sourceCtx,
        env: envInputs.name,
        coreContract,
        at: versionSite(cr),
        note: (d) => warnings.push(d),
      });
    } catch (e) {
      if (e instanceof RenderError) problems.push(...e.diagnostics);
      else throw e;
      return undefined;
    }
  };
  const coreCr = providers.find((p) => p.kind === 'CoreProvider');
  const core = coreCr ? await resolveOne(coreCr, undefined) : undefined;
  const others = await Promise.all(
    providers.filter((p) => p !== coreCr).map((cr) => resolveOne(cr, core?.series.contract)),
  );
  throwIfErrors(problems);
  const ready = [core, ...others].filter((r): r is ResolvedArtifacts => r !== undefined);
  throwIfErrors(
    checkContracts(
      ready.map((r) => ({
        cr: r.cr,
        contract: r.series.contract,
        version: r.version,
        at: versionSite(r.cr),
      })),
      baseline,
    ),
  );
  return { ready, warnings };
}

/** Renders one environment (see the module comment); problems of all its providers are thrown together. */
export async function renderEnvironment(given: EnvironmentInputs, session: RenderSession): Promise<EnvironmentResult> {
  // SOPS-encrypted configSecrets are read decrypted (secrets/sops/decrypt-inputs.ts).
  const envInputs: EnvironmentInputs = { ...given, inputs: await decryptSopsInputs(given.inputs, session.env) };
  const { inputs } = envInputs;
  const { ready, warnings } = await resolveEnvironment(envInputs, session);
  const problems: Diagnostic[] = [];
  const components: RenderedComponent[] = [];
  // Each rendered image → the names its release gave it (before `images:` overrides), for verify rules.
  const releasedImages = new Map<string, string[]>();
  // Each rendered reference → the released references `images:` turned into it, for the lock key.
  const originsOf = new Map<string, string[]>();
  const addReleased = (origins: ReadonlyMap<string, readonly string[]>) => {
    for (const [rendered, released] of origins) {
      releasedImages.set(imageName(rendered), [
        ...new Set([...(releasedImages.get(imageName(rendered)) ?? []), ...released]),
      ]);
      const exact = withoutDigest(rendered);
      originsOf.set(exact, [...new Set([...(originsOf.get(exact) ?? []), ...released])]);
    }
  };
  const resolvedProviders: ResolvedProvider[] = [];
  const requiredSecrets: RequiredSecret[] = [];
  const instanceOf = new Map<RenderedComponent, number>();
  for (const r of ready) {
    try {
      const lookup = variableLookup(r.cr, {
        overlay: envInputs.variables,
        overlayFile: envInputs.file,
        config: session.config.variables,
        secrets: inputs.secrets,
        env: session.env,
        notSecret: session.config.secrets.notSecret ?? [],
      });
      const seen = new Map<string, ResolvedVariable>();
      const additionalManifests = r.cr.spec.additionalManifests ? findAdditionalManifests(r.cr, inputs) : undefined;
      const textKey = additionalManifests
        ? `${r.components.sha256}+${sha256Text(canonicalJson(additionalManifests.data ?? null))}`
        : r.components.sha256;
      // A secret reference with no value is rendered as its unset marker, and needed only where that
      // lands outside a Secret the guard leaves out or replaces (process/variable-values/unset-values.ts).
      const rendered = renderWithUnsetValues({
        providerRef: ref(r.cr),
        component: manifestLabel(r.cr.kind, r.cr.name),
        lookup,
        seen,
        secrets: session.config.secrets,
        render: (lookupVariable) =>
          processedComponents(session, textKey, {
            cr: r.cr,
            version: r.version,
            componentsText: r.components.text,
            componentsSource: `${r.providerSource.source.description} ${r.version}/${r.providerSource.componentsFile}`,
            additionalManifests,
            lookupVariable,
            images: { ...session.config.images, ...imagesFromConfigSecret(r.cr, inputs), ...envInputs.images },
            // Parsing follows substitution, so by then every value in a part has come through
            // lookupVariable and is in `seen`: a part is secret when a name it references has a value
            // from a secret source (see document-parser.ts for why that, and not a search of the text, decides).
            parse: (substituted, source) =>
              session.parser.parseParts(
                textKey,
                substituted.parts.map((part, i) => ({
                  text: substituted.texts[i]!,
                  constant: part.constant !== undefined,
                  secret: part.names.some((n) => seen.get(n)?.secret),
                })),
                source,
              ),
            compile: (text, source) => session.compile(textKey, text, source),
          }),
      });
      const sensitive = sensitiveValues(
        [...seen.entries()].map(([variable, v]) => ({ variable, value: v.value, secret: v.secret, from: v.from })),
        session.config.secrets,
      );
      addReleased(rendered.releasedImages);
      const guarded = guardSecrets(rendered.label, rendered.objects, sensitive, session.config.secrets);
      assertNoUnsetMarker(guarded.objects, seen);
      warnings.push(...guarded.diagnostics);
      requiredSecrets.push(...guarded.required);
      const objects: KubeObject[] = guarded.objects;
      if (r.cr.kind === 'CoreProvider') objects.push(session.inventoryCrd());
      components.push({ name: rendered.label, objects });
      instanceOf.set(components[components.length - 1]!, resolvedProviders.length);
      resolvedProviders.push({
        cr: r.cr,
        label: rendered.label,
        version: r.version,
        contract: r.series.contract,
        sourceId: r.providerSource.source.id,
        source: r.providerSource.source,
        artifacts: [
          { file: r.providerSource.componentsFile, url: r.components.url, sha256: r.components.sha256 },
          { file: METADATA_FILE, url: r.metadataFile.url, sha256: r.metadataFile.sha256 },
        ],
        files: {
          componentsFile: session.catalog.componentsFile(r.cr),
          components: r.components.text,
          metadata: r.metadataFile.text,
        },
        variables: rendered.usedVariables,
        secretVariables: rendered.usedVariables.filter((n) => seen.get(n)?.secret),
      });
    } catch (e) {
      if (e instanceof RenderError) problems.push(...e.diagnostics);
      else throw e;
    }
  }
  // A variable needed but unset names its `variables:` entry: find its line (only when reported).
  await Promise.all(
    problems
      .filter(
        (d) =>
          d.code === 'variables-missing' &&
          d.line === undefined &&
          d.file !== undefined &&
          /^variables\.[^.]+\.fromEnv$/.test(d.field ?? ''),
      )
      .map(async (d) =>
        Object.assign(
          d,
          await locateVariable(
            session.repoRoot,
            envInputs.overlays ?? [],
            d.field!.split('.')[1]!,
            d.file !== 'capi-render.yaml',
          ),
        ),
      ),
  );
  throwIfErrors(problems);
  const reconciled = reconcileInstances(
    components.map((component) => ({ component, provider: resolvedProviders[instanceOf.get(component)!]! })),
  );
  components.splice(0, components.length, ...reconciled);
  const images = { ...session.config.images, ...envInputs.images };
  const certManager = await renderCertManager(envInputs.certManager, envInputs.name, images, session, {
    note: (d) => warnings.push(d),
    overlayFile: envInputs.file,
  });
  if (!certManager) warnings.push(...bringYourOwnCertManagerWarnings(components));
  if (certManager) addReleased(certManager.releasedImages);
  // Providers sharing a namespace (k0smotron's three) declare it once: in the first that carries it.
  const all = shareNamespaces(certManager ? [certManager.component, ...components] : components);
  // Last: the digests are those of the images as every earlier step left them (overrides included).
  const policy = envInputs.imagePolicy;
  const registries = policy.pinDigests
    ? registryPolicy(policy, envInputs.inputs.secrets, envInputs.file ? { file: envInputs.file } : {})
    : undefined;
  const released = (image: string) => releasedImages.get(imageName(image)) ?? [];
  const check = await signatureCheck(
    policy,
    registries,
    { repoRoot: session.repoRoot, images: session.images },
    envInputs,
    released,
    warnings,
  );
  const keyOf = (image: string) => lockKey(image, originsOf.get(image) ?? []);
  const pinned = registries ? await pinImages(all, session.images.lookup(registries), check?.check, keyOf) : undefined;
  if (check && pinned) await check.coverage(pinned.all);
  return {
    environment: { name: envInputs.name, components: pinned?.components ?? all },
    pinnedImages: pinned ? [...pinned.digests].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : [],
    imageVerifications: pinned ? Object.fromEntries(pinned.verifications) : {},
    ...(pinned && pinned.keys.size > 0
      ? { imageKeys: Object.fromEntries([...pinned.keys].sort((a, b) => (a[0] < b[0] ? -1 : 1))) }
      : {}),
    ...(registries ? { imageRegistries: registries } : {}),
    providers: resolvedProviders,
    certManager,
    committed: envInputs.committed,
    requiredSecrets,
    warnings,
  };
}

/**
 * The signature check of an environment with `imagePolicy.verify`: the rules are checked first
 * (errors at the setting, warnings kept), and need pinning — a signature is of a digest. A rule is
 * matched against each image as rendered and as its provider released it (`released`), so it
 * survives `images:` overrides to a mirror; `coverage` then refuses a rule that matched no image of
 * the environment (it would verify nothing, silently). The verification code (and the Sigstore
 * libraries) load only here.
 */
async function signatureCheck(
  policy: ImagePolicyConfig,
  registries: RegistryPolicy | undefined,
  build: Pick<RenderSession, 'repoRoot' | 'images'>,
  envInputs: Pick<EnvironmentInputs, 'file' | 'overlays'>,
  released: (image: string) => readonly string[],
  warnings: Diagnostic[],
): Promise<{ check: SignatureCheck; coverage: (images: readonly string[]) => Promise<void> } | undefined> {
  const rules = policy.verify ?? [];
  if (rules.length === 0) return undefined;
  const where = envInputs.file ?? 'capi-render.yaml';
  if (!registries) {
    throw new SpecError(
      error(
        'config',
        'imagePolicy.verify needs imagePolicy.pinDigests: true (a signature is checked against the digest the output pins)',
        { file: where, field: 'imagePolicy.verify', hint: 'set imagePolicy.pinDigests: true beside verify' },
      ),
    );
  }
  const { checkRules, ruleFor, rulesMatchingNothing } = await import('../images/verify/verify-rules.js');
  warnings.push(...throwIfErrors(checkRules(rules, { repoRoot: build.repoRoot, file: where })));
  return {
    check: async (image, digest, key) => {
      const match = ruleFor(rules, image, released(image));
      return match
        ? build.images.verify(image, digest, match, registries, policy.trustedRoot, (d) => warnings.push(d), key)
        : undefined;
    },
    coverage: async (images) => {
      const unmatched = rulesMatchingNothing(
        rules,
        images.map((image) => ({ image, released: released(image) })),
      );
      if (unmatched.length === 0) return;
      const problems = await Promise.all(
        unmatched.map(async (index) => {
          const at = await locateVerifyRule(build.repoRoot, envInputs.overlays ?? [], index);
          return error(
            'config',
            `imagePolicy.verify[${index}] (images ${JSON.stringify(rules[index]!.images)}) matches no image this environment runs, so it verifies nothing`,
            {
              ...at,
              field: `imagePolicy.verify[${index}].images`,
              hint: `a rule names images as their provider releases them (${images.length > 0 ? `e.g. ${[...new Set(images.flatMap((i) => released(i)))].slice(0, 2).join(', ') || images[0]}` : 'this environment runs none'}); fix the glob, or remove the rule from the settings this environment reads`,
            },
          );
        }),
      );
      throw new SpecError(problems);
    },
  };
}

/** The ConfigMap `spec.additionalManifests` names; throws SpecError when it is not among the inputs. */
export function findAdditionalManifests(cr: ProviderCR, inputs: InputSet) {
  const refSpec = cr.spec.additionalManifests!;
  const namespace = refSpec.namespace || cr.namespace;
  const found = findInput(inputs.configMaps, namespace, refSpec.name);
  if (!found) {
    throw new SpecError(
      error(
        'additional-manifests',
        peerWording(
          'cluster-api-operator',
          `failed to get ConfigMap ${namespace}/${refSpec.name}: configmaps ${JSON.stringify(refSpec.name)} not found`,
          `spec.additionalManifests of ${ref(cr)} names ConfigMap ${namespace}/${refSpec.name}, which is not among the inputs`,
        ),
        {
          file: cr.file,
          line: cr.line,
          field: 'spec.additionalManifests',
          hint: 'add the ConfigMap (data key "manifests") under providers/',
        },
      ),
    );
  }
  return found.object;
}

/** The operator (through clusterctl) reads a configSecret key `images` as an image-override map. */
function imagesFromConfigSecret(cr: ProviderCR, inputs: InputSet): ImageOverrides {
  if (!cr.spec.configSecret) return {};
  const entry = readConfigSecretEntries(cr, inputs.secrets).images;
  if (entry === undefined) return {};
  if (entry.value === undefined) {
    // Image overrides shape every build's output: never optional.
    throw new SpecError(
      error(
        'config-secret',
        `key "images" of the configSecret of ${ref(cr)} is needed for its image overrides: set ${describeReference(entry.reference!)}`,
        {
          file: cr.file,
          line: cr.line,
          field: 'spec.configSecret',
          hint: 'image overrides change every image the provider runs; give them as a plain string in the Secret',
        },
      ),
    );
  }
  const parsed = safely(() => jsYaml.load(entry.value!, { schema: jsYaml.CORE_SCHEMA }));
  if (!isJsonObject(parsed)) {
    throw new SpecError(
      error('config-secret', `key "images" of the configSecret of ${ref(cr)} is not a YAML map of image overrides`, {
        file: cr.file,
        line: cr.line,
        field: 'spec.configSecret',
      }),
    );
  }
  return parsed as ImageOverrides;
}

function safely<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

function withoutDigest(image: string): string {
  return hasDigest(image) ? image.slice(0, image.lastIndexOf('@')) : image;
}
