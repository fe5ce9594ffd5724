/**
 * `capi-render publish`: push one rendered environment to an OCI registry as an artifact for Flux
 * (`--for flux`, the default: an OCIRepository + Kustomization pull it) or Argo CD (`--for argocd`:
 * an Application with an `oci://` source), pinned by the printed digest — recorded in the
 * environment's overlay as `gitops.flux.oci.digest` / `gitops.argocd.oci.digest`. The
 * environment is rendered in memory from the committed inputs and lock (frozen) and must equal
 * what rendered/<env> holds, so the artifact is exactly the committed output of the revision it
 * names. Prints the manifest digest on stdout (or JSON with --json); nothing is written locally.
 */
import path from 'node:path';
import { DriftError, UsageError, error } from '../../errors.js';
import { compareTrees } from '../../check/compare-output.js';
import { FLUX_OCI_REPOSITORY_FILE } from '../../gitops/layout.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { readListedOutputFile, regularOutputFolder } from '../../output/regular-files.js';
import { artifactMetadata, checkCreatedFlag } from '../../publish/artifact-metadata.js';
import {
  ARTIFACT_MEDIA_TYPES,
  ARTIFACT_TARGETS,
  packArtifact,
  type ArtifactTarget,
} from '../../publish/flux-artifact.js';
import {
  attachArtifactSignatures,
  parsePublishReference,
  pushFluxArtifact,
  signTarget,
} from '../../publish/push-flux-artifact.js';
import { prepareSignatures } from '../../publish/sign-artifact.js';
import { describeSignatures, prepareSigner, signaturesJson, verifyMismatch } from '../../publish/sign-options.js';
import { render } from '../../render/render.js';
import { asFetch } from '../../source/http/network-fetch.js';
import { readOciCredentials } from '../../source/oci/oci-credentials.js';
import { formatOciReference } from '../../source/oci/oci-reference.js';
import { normalizeInputText } from '../../declarations/input-text.js';
import { createGitRunner } from '../../upgrade/git-command.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { isOneOf } from '../options.js';
import { SIGN_OPTIONS } from './publish-sign-flags.js';
import { onlyEnvironment } from '../only-environment.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const publishCommand = defineCommand({
  name: 'publish',
  summary: 'push one rendered environment to an OCI registry as a Flux or Argo CD artifact and print its digest',
  synopsis:
    '--env NAME --oci REGISTRY/REPO:TAG [--for flux|argocd] [--source URL] [--revision REV] [--created commit|TIME] [--sign-key FILE | --sign-keyless] [--json] [--offline]',
  options: {
    env: { type: 'string', value: 'NAME', help: 'the environment (required when there are several)' },
    oci: {
      type: 'string',
      value: 'REF',
      help: 'where to push: registry/repository:tag (oci:// accepted; http:// for a plain-HTTP registry); credentials from OCI_USERNAME/OCI_PASSWORD/OCI_ACCESS_TOKEN/OCI_REFRESH_TOKEN',
    },
    for: {
      type: 'string',
      value: 'flux|argocd',
      choices: ARTIFACT_TARGETS,
      default: 'flux',
      help: "the media types of the controller that reads it: flux (default) Flux's config and content layer; argocd the OCI image config and one application/vnd.oci.image.layer.v1.tar+gzip layer (Argo CD 3.1+ OCI sources; Flux reads it too)",
    },
    source: {
      type: 'string',
      value: 'URL',
      help: 'org.opencontainers.image.source (default: the origin remote, credentials removed)',
    },
    revision: {
      type: 'string',
      value: 'REV',
      help: 'org.opencontainers.image.revision (default <branch>@sha1:<HEAD>, refused with uncommitted output)',
    },
    created: {
      type: 'string',
      value: 'commit|TIME',
      help: 'add org.opencontainers.image.created: the commit time, or an RFC 3339 time (default none, so the digest depends on the content alone)',
    },
    ...SIGN_OPTIONS,
    json: { type: 'boolean', help: 'print {reference, url, digest, …} instead of the digest' },
    offline: {
      ...RENDER_OPTIONS.offline,
      help: 'never use the network for release artifacts (the registry push still does)',
    },
    'cache-dir': {
      ...RENDER_OPTIONS['cache-dir'],
      help: 'artifact cache (default $CAPI_RENDER_CACHE_DIR, $XDG_CACHE_HOME/capi-render or ~/.cache/capi-render)',
    },
  },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    if (!values.oci) throw new UsageError('--oci REGISTRY/REPO:TAG is required');
    const target = publishTarget(values.for);
    const ref = parsePublishReference(values.oci);
    checkCreatedFlag(values.created);
    // Before anything is rendered or pushed: a bad key, password or missing OIDC token fails here.
    const signer = prepareSigner(values, io);
    const only = await onlyEnvironment(repoRoot, values.env, (names) => `choose one environment with --env (${names})`);
    const prepared = await prepareRender({ ...ctx, values: { ...values, env: [only] } });
    const result = await render(prepared.options);
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const env = result.environments[0]!.environment.name;
    const folder = path.join(result.outputDir, env);
    const shown = path.relative(repoRoot, folder).split(path.sep).join('/');
    const planned = new Map(
      [...result.files].filter(([p]) => p.startsWith(`${env}/`)).map(([p, text]) => [p.slice(env.length + 1), text]),
    );
    await refuseStale(planned, folder, shown, describeLockChanges(prepared.lockState.lock, result.lock), repoRoot);
    // Would the environment's own OCIRepository accept what this run signs (or does not)? Argo CD verifies no signature.
    if (target === 'flux') {
      const [sourceFile, sourceText] =
        [...result.gitopsFiles].find(([p]) => p.endsWith(`flux/${env}/${FLUX_OCI_REPOSITORY_FILE}`)) ?? [];
      const sourceShown =
        sourceFile && path.relative(repoRoot, path.join(result.gitopsDir, sourceFile)).split(path.sep).join('/');
      const mismatch = verifyMismatch(sourceText, sourceShown ?? '', signer?.mode);
      if (mismatch.length > 0) io.stderr.write(formatDiagnostics(mismatch, { color }));
    }
    const metadata = await artifactMetadata(
      {
        ...(values.source ? { source: values.source } : {}),
        ...(values.revision ? { revision: values.revision } : {}),
        ...(values.created ? { created: values.created } : {}),
      },
      createGitRunner({ cwd: repoRoot, env: io.env }),
      shown,
    );
    const encoder = new TextEncoder();
    const artifact = packArtifact(
      { files: [...planned].map(([p, text]) => ({ path: p, bytes: encoder.encode(text) })), ...metadata },
      target,
    );
    // Signed before the push (the digest is known), so a Fulcio or Rekor failure pushes nothing.
    const signatures = signer && (await prepareSignatures(signTarget(ref, artifact), signer));
    // The render's transport (proxy-aware, or the test's fetch): the push honours the proxy variables as build and mirror do.
    const credentials = readOciCredentials(io.env);
    const transport = prepared.options.fetch && asFetch(prepared.options.fetch);
    const digest = await pushFluxArtifact(ref, artifact, credentials, transport);
    const reference = formatOciReference(ref);
    io.stderr.write(`pushed ${shown} (${planned.size} files) to ${reference}@${digest}\n`);
    // The digest reaches the OCIRepository / Application through a reviewed commit of the overlay, never by itself.
    io.stderr.write(
      `${target === 'flux' ? 'Flux' : 'Argo CD'} artifact; pin it: set gitops.${target}.oci.digest: ${digest} in ${env}'s overlay.yaml (capi-render.yaml when it has none), then build and commit\n`,
    );
    // Signatures are manifests of their own beside the artifact: its digest stays what it is.
    const signed =
      signer && signatures && (await attachArtifactSignatures(ref, signatures, signer, credentials, transport));
    if (signed) io.stderr.write(`signed ${reference}@${digest} ${describeSignatures(signed)}\n`);
    if (values.json) {
      const url = `oci://${ref.registry}/${ref.repository}`;
      io.stdout.write(
        `${JSON.stringify({ reference, url, tag: ref.tag, for: target, digest, mediaTypes: ARTIFACT_MEDIA_TYPES[target], layerDigest: artifact.layerDigest, diffId: artifact.diffId, annotations: artifact.annotations, ...(signed ? { signatures: signaturesJson(signed) } : {}) }, null, 2)}\n`,
      );
    } else io.stdout.write(`${digest}\n`);
    return 0;
  },
});

/** `--for`: flux (default) or argocd; anything else is a usage error before any work. */
function publishTarget(value: string): ArtifactTarget {
  if (isOneOf(ARTIFACT_TARGETS, value)) return value;
  throw new UsageError(`--for must be ${ARTIFACT_TARGETS.join(' or ')}, not ${JSON.stringify(value)}`);
}

/** The artifact must be the committed output: refuse when rendered/<env> or the lock is not what the inputs render. */
async function refuseStale(
  planned: ReadonlyMap<string, string>,
  folder: string,
  shown: string,
  lockChanges: string[],
  repoRoot: string,
): Promise<void> {
  const onDisk = new Map<string, string>();
  // Listed and read as check reads the output: regular files only, no link, bounded (prepareRender's gate refused the rest).
  for (const f of (await regularOutputFolder(repoRoot, folder)).files)
    onDisk.set(f, normalizeInputText(await readListedOutputFile(folder, f, repoRoot)));
  const drift = compareTrees(planned, onDisk, shown);
  for (const f of onDisk.keys()) if (!planned.has(f)) drift.push({ file: `${shown}/${f}`, kind: 'stale', details: [] });
  const problems = drift.map((d) =>
    error(
      'drift',
      `${d.kind === 'missing' ? 'missing' : d.kind === 'stale' ? 'stale' : 'differs from what the inputs render'}`,
      { file: d.file },
    ),
  );
  if (lockChanges.length > 0)
    problems.push(
      error('drift', `capi-render.lock is stale:\n    ${lockChanges.join('\n    ')}`, { file: 'capi-render.lock' }),
    );
  if (problems.length === 0) return;
  throw new DriftError(
    problems.map((d, i) =>
      i === problems.length - 1
        ? { ...d, hint: 'run capi-render build and commit the result: publish pushes exactly the committed output' }
        : d,
    ),
  );
}
