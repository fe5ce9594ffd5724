/**
 * What each setting of capi-render.yaml means, by its path in CONFIG_SCHEMA (`a.b` a property, `a[]`
 * an array's items, `a.*` a map's values). The schema says what is valid and the loader validates
 * with it alone; these texts are only read by the generated JSON Schema for editors
 * (schemas/capi-render.schema.json) and the reference (docs/reference/config.md), which put them
 * beside the schema's own rules. A test holds the two together: every property of the schema has a
 * text here and every text names a property, so a new setting cannot ship undocumented.
 * overlay.yaml's blocks that are capi-render.yaml's too (variables, images, imagePolicy, certManager,
 * gitops) share these texts.
 */

/** Setting path → one or two sentences: what it does and its default. */
export const CONFIG_DESCRIPTIONS: Record<string, string> = {
  apiVersion: 'Always capi-render/v1alpha1.',
  kind: 'Always Config.',
  emulate:
    'Whose behaviour is reproduced where clusterctl v1.14 and cluster-api-operator v0.28 (clusterctl v1.12) differ; repository-wide, recorded in the lock. Default clusterctl-v1.14.',
  repositories:
    'clusterctl local repositories (<root>/<provider-label>/<version>/<file>, <file>.gz read too), searched in order for providers without a fetchConfig. Default none.',
  'repositories[].path':
    'The repository root, relative to the repository. A folder outside it (absolute, or ../) is read as written, without a warning: naming it here is the explicit choice init --allow-outside stands for, and every machine that builds must have it there. The lock records no path (local:<label>).',
  variables:
    "Values for ${VAR} substitution in the provider manifests. In capi-render.yaml the lowest precedence (a provider's configSecret and the overlays win); in an overlay the highest.",
  'variables.*':
    'A literal string, or {fromEnv: NAME}: the value of an environment variable when the build runs (the only way the environment reaches a render).',
  'variables.*.fromEnv':
    'The environment variable to read; its value is secret to the secret guard. Unset, the value is needed only where it would show: not when it only fills a Secret that secrets.mode omit, external-secrets or sops leaves out, replaces or keeps encrypted as committed.',
  images:
    'clusterctl image overrides, keyed all, <component> or <component>/<image> (as clusterctl.yaml images:). Default none.',
  'images.*.repository': "Registry and path replacing the image's own, e.g. registry.internal.example.com/capi.",
  'images.*.name': 'Image name replacing the last path element.',
  'images.*.tag': "Tag replacing the image's own.",
  imagePolicy: 'How images are pinned and verified. Default: images are rendered as the providers ship them.',
  'imagePolicy.pinDigests':
    'Resolve every image of the output to its digest and render repo:tag@sha256:…, recorded in the lock. Default false.',
  'imagePolicy.insecureRegistries':
    'host:port of registries reached over plain HTTP (never with credentials). Default none.',
  'imagePolicy.pullSecret':
    'A kubernetes.io/dockerconfigjson Secret among the inputs holding registry credentials (never rendered). Default: the docker config, else anonymous.',
  'imagePolicy.pullSecret.name': "The Secret's name.",
  'imagePolicy.pullSecret.namespace': "The Secret's namespace.",
  'imagePolicy.verify':
    'Signature rules: the first rule whose images glob matches an image must be satisfied (cosign keyless or key). Needs pinDigests. Default none.',
  'imagePolicy.verify[].images': 'Glob over the image name before its tag and digest; * matches within and across /.',
  'imagePolicy.verify[].keyless':
    "cosign keyless: the Fulcio certificate's OIDC issuer and identity (SAN), each exact or a regular expression.",
  'imagePolicy.verify[].keyless.issuer': 'The OIDC issuer, matched whole.',
  'imagePolicy.verify[].keyless.issuerRegExp': 'The OIDC issuer, as a regular expression.',
  'imagePolicy.verify[].keyless.identity': "The signer's identity (certificate SAN), matched whole.",
  'imagePolicy.verify[].keyless.identityRegExp': "The signer's identity, as a regular expression.",
  'imagePolicy.verify[].key':
    'cosign key: a PEM public key file, relative to the repository root (no transparency-log entry required).',
  'imagePolicy.trustedRoot':
    'A Sigstore trusted_root.json (repository-relative) instead of the public-good root shipped with capi-render.',
  certManager: 'cert-manager, rendered as its own component first in install order, as clusterctl init installs it.',
  'certManager.install': 'Render cert-manager; false = bring your own. Default true.',
  'certManager.version': "Exact version or a semver range, pinned by the lock. Default clusterctl's default.",
  'certManager.url':
    "Where its releases come from (clusterctl's cert-manager url): a GitHub release URL or a file:// local repository.",
  'certManager.externallyProvisioned':
    "clusterctl v1.14's cert-manager.externallyProvisioned: cert-manager is installed by something else, so it is not rendered. Only with emulate: clusterctl-v1.14.",
  sbom: 'Software bill of materials in the output.',
  'sbom.write':
    "build writes <env>/sbom.cdx.json (CycloneDX 1.6) beside each environment's output and check compares it. Default false.",
  gitops: 'How the output is prepared for its GitOps consumer; an overlay overrides it per environment, key by key.',
  'gitops.flavour':
    'kustomize (plain kustomization.yaml), argocd (sync waves, sync options, Applications) or flux (one Kustomization per component). Default kustomize.',
  'gitops.protect':
    'Keep CRDs and Namespaces from being pruned or deleted by the applier, as clusterctl delete keeps them.',
  'gitops.protect.crds': 'Protect CRDs (deleting a CRD deletes every object of it). Default true.',
  'gitops.protect.namespaces': "Protect every rendered Namespace, cert-manager's too. Default true.",
  'gitops.argocd':
    'Argo CD settings; all but application and applicationSet shape the generated Application or ApplicationSet.',
  'gitops.argocd.application':
    'Write one Application for the environment (gitops/argocd/applications/<env>.yaml). Default false.',
  'gitops.argocd.applicationSet':
    'Include the environment in gitops/argocd/applicationset.yaml (a list generator over such environments). Default false.',
  'gitops.argocd.repoURL':
    'Git URL of the repository holding the output; required when an Application or ApplicationSet is written.',
  'gitops.argocd.targetRevision': 'The Git revision Argo CD syncs. Default HEAD.',
  'gitops.argocd.project': 'Argo CD project. Default default.',
  'gitops.argocd.destination':
    "This environment's management cluster: server or name, never both. Default: the cluster Argo CD runs in (one environment only).",
  'gitops.argocd.destination.server': "The cluster's API server URL.",
  'gitops.argocd.destination.name': "The cluster's name in Argo CD.",
  'gitops.argocd.destination.namespace': 'Default namespace of the destination.',
  'gitops.argocd.destinationServer': 'Shorthand for destination: {server: …} (the setting of earlier releases).',
  'gitops.argocd.namespace': "Argo CD's namespace, where the Applications live. Default argocd.",
  'gitops.argocd.pathPrefix':
    "The output folder inside the repository; an environment's is <pathPrefix>/<env>. Default rendered.",
  'gitops.argocd.source':
    "Where Applications take the manifests from: path (the committed folder, default), plugin (capi-render as a Config Management Plugin), hydrator (Argo CD's Source Hydrator) or oci (the artifact publish --for argocd pushed).",
  'gitops.argocd.oci': 'The OCI artifact of source: oci: oci://<repository>/<env>, pinned by digest.',
  'gitops.argocd.oci.repository':
    "Registry and repository prefix, e.g. ghcr.io/acme/capi-render; the environment's artifact is <repository>/<env>.",
  'gitops.argocd.oci.digest':
    'sha256:… as publish printed it; the source does not move until this changes. Default: follow tag.',
  'gitops.argocd.oci.tag': 'Tag to follow when no digest is pinned. Default latest.',
  'gitops.argocd.plugin': 'The Config Management Plugin of source: plugin.',
  'gitops.argocd.plugin.name': "The plugin's name (plugin.yaml metadata.name). Default capi-render.",
  'gitops.argocd.hydrator': 'Where the Source Hydrator (source: hydrator) commits the hydrated manifests.',
  'gitops.argocd.hydrator.targetBranch': 'Branch Argo CD commits to and syncs from. Default capi-render-hydrated.',
  'gitops.argocd.hydrator.pathPrefix':
    "Folder on that branch; an environment's is <pathPrefix>/<env>. Default rendered.",
  'gitops.argocd.hydrator.hydrateToBranch':
    'Staging branch Argo CD pushes to instead (promotion by pull request). Default none.',
  'gitops.argocd.repoPath':
    "Folder of capi-render.yaml inside the Git repository (the plugin's source path). Default . (the root).",
  'gitops.flux': 'Flux settings for the generated Kustomizations (gitops/flux/<env>/).',
  'gitops.flux.sourceRef':
    'The Flux source the Kustomizations read. Default GitRepository/flux-system (what flux bootstrap creates).',
  'gitops.flux.sourceRef.kind': 'GitRepository or OCIRepository.',
  'gitops.flux.sourceRef.name': "The source's name.",
  'gitops.flux.sourceRef.namespace': "The source's namespace. Default: the Kustomizations' own.",
  'gitops.flux.namespace': 'Namespace of the Kustomization objects. Default flux-system.',
  'gitops.flux.interval': 'Reconcile interval. Default 10m.',
  'gitops.flux.timeout': 'Apply and health-check timeout. Default 10m.',
  'gitops.flux.pathPrefix': 'The output folder inside the source. Default rendered.',
  'gitops.flux.dependsOn':
    'Extra dependencies of the first Kustomization of the chain (cert-manager, or core without it), e.g. your own cert-manager. Default none.',
  'gitops.flux.dependsOn[].name': 'The Kustomization depended on.',
  'gitops.flux.dependsOn[].namespace': "Its namespace. Default: the Kustomizations' own.",
  'gitops.flux.kubeConfig':
    "Hub-and-spoke Flux: every Kustomization applies to this environment's management cluster. Default: the cluster Flux runs in.",
  'gitops.flux.kubeConfig.secretRef': "The Secret, in the Kustomizations' namespace, holding the kubeconfig.",
  'gitops.flux.kubeConfig.secretRef.name': "The Secret's name.",
  'gitops.flux.kubeConfig.secretRef.key': "The key holding the kubeconfig. Default: Flux's (value, then value.yaml).",
  'gitops.flux.serviceAccountName':
    "Kustomizations apply and health-check as this ServiceAccount (see capi-render rbac --applier flux). Default: the controller's.",
  'gitops.flux.oci':
    'Take the output from an OCI artifact capi-render publish pushed (an OCIRepository) instead of sourceRef.',
  'gitops.flux.oci.repository':
    "Registry and repository prefix, e.g. ghcr.io/acme/capi-render; the environment's artifact is <repository>/<env>.",
  'gitops.flux.oci.digest':
    'sha256:… as publish printed it; the source does not move until this changes. Default: follow tag.',
  'gitops.flux.oci.tag': 'Tag to follow when no digest is pinned. Default latest.',
  'gitops.flux.oci.insecure': 'Plain-HTTP registry. Default false.',
  'gitops.flux.oci.secretRef': 'A kubernetes.io/dockerconfigjson Secret with pull credentials.',
  'gitops.flux.oci.secretRef.name': "The Secret's name.",
  'gitops.flux.oci.interval': "How often source-controller checks the tag. Default: the Kustomizations' interval.",
  'gitops.flux.oci.verify':
    'The artifact is signed (publish --sign-key or --sign-keyless): Flux applies only what verifies. Exactly one of key and keyless. Default: no verification.',
  'gitops.flux.oci.verify.key': 'Verify with a cosign public key.',
  'gitops.flux.oci.verify.key.secretRef': 'The Secret holding the public key (keys ending .pub).',
  'gitops.flux.oci.verify.key.secretRef.name': "The Secret's name.",
  'gitops.flux.oci.verify.keyless':
    "Verify keyless: the signer's OIDC issuer and identity in its Fulcio certificate, exact or as Go regular expressions (anchor them: Flux matches substrings).",
  'gitops.flux.oci.verify.keyless.issuer': 'The OIDC issuer, matched whole.',
  'gitops.flux.oci.verify.keyless.issuerRegExp': 'The OIDC issuer, as a Go regular expression.',
  'gitops.flux.oci.verify.keyless.identity': "The signer's identity, matched whole.",
  'gitops.flux.oci.verify.keyless.identityRegExp': "The signer's identity, as a Go regular expression.",
  'gitops.flux.oci.verify.keyless.trustedRootSecretRef':
    "A Secret with trusted_root.json, for a private Sigstore. Default: Sigstore's public-good instance.",
  'gitops.flux.oci.verify.keyless.trustedRootSecretRef.name': "The Secret's name.",
  secrets:
    'The secret guard: what happens when a value from a secret source (a configSecret, {fromEnv}) would be written to git. Default: the build fails.',
  'secrets.mode':
    'fail (default), omit (leave the Secret out and list it in gitops/secrets/<env>.required.yaml), external-secrets (an ExternalSecret replaces it), sops (SOPS-encrypted to the age recipients of .sops.yaml, decrypted by Flux) or plaintext (explicit opt-in, warned on every build).',
  'secrets.providers': 'Per provider (manifest label, e.g. infrastructure-aws): a mode overriding secrets.mode.',
  'secrets.providers.*': 'The mode for that provider.',
  'secrets.notSecret':
    'Variables from secret sources that are not sensitive (feature gates, addresses) and may be rendered.',
  'secrets.externalSecrets': 'For external-secrets: the store the generated ExternalSecrets read from.',
  'secrets.externalSecrets.storeRef': 'The SecretStore or ClusterSecretStore.',
  'secrets.externalSecrets.storeRef.name': "The store's name.",
  'secrets.externalSecrets.storeRef.kind': 'SecretStore or ClusterSecretStore.',
  'secrets.externalSecrets.keyPrefix':
    "Prefix of the remote keys: a Secret's keys are read from <keyPrefix><namespace>/<name>. Default none.",
  'secrets.externalSecrets.refreshInterval': "The ExternalSecrets' refresh interval. Default 1h.",
  'secrets.sops': "For sops: the Flux side. The recipients come from the repository's .sops.yaml creation rules.",
  'secrets.sops.decryptionSecret':
    "The Secret (in the Flux Kustomizations' namespace) holding the age identity, named by spec.decryption of each Flux Kustomization whose folder holds an encrypted Secret. Default sops-age.",
  gitopsDir: 'Folder for the GitOps consumer files (Argo CD Applications, Flux Kustomizations). Default gitops.',
  templatesDir: 'Folder of your templates overriding the bundled handlebars templates by file name. Default templates.',
  github: 'GitHub settings for provider release URLs. Default: github.com.',
  'github.apiUrl': 'REST API base URL for github.com (a proxy, for example). Default https://api.github.com.',
  'github.enterpriseHosts': 'GitHub Enterprise Server origins accepted in provider URLs.',
  'github.enterpriseHosts[].origin': "The server's origin, e.g. https://ghe.example.com.",
  'github.enterpriseHosts[].apiBaseUrl': 'Its REST API base URL. Default <origin>/api/v3.',
  gitlab: "GitLab generic-package sources (clusterctl's gitlab-access-token).",
  'gitlab.accessToken':
    "The token for every GitLab provider URL, from the environment only (a token in a file would end up in git); a provider's configSecret key gitlab-access-token wins. Default: GITLAB_ACCESS_TOKEN, the variable clusterctl reads (unset: public projects only).",
  'gitlab.accessToken.fromEnv': 'The environment variable holding the token.',
  providers:
    "Entries added to clusterctl's built-in provider list, or replacing one by name and type (as clusterctl.yaml providers:). Default none.",
  'providers[].name': "The provider's name, e.g. aws.",
  'providers[].type':
    'Its type: CoreProvider, BootstrapProvider, ControlPlaneProvider, InfrastructureProvider, IPAMProvider, RuntimeExtensionProvider or AddonProvider.',
  'providers[].url': 'Its components URL, e.g. https://github.com/<owner>/<repo>/releases/latest/<file>.',
  providersDir: 'Folder of the provider CRs. Default providers.',
  overlaysDir: 'Folder of the environment overlays (one folder per environment). Default overlays.',
  outputDir: 'Folder the rendered output is written to. Default rendered.',
};
