/**
 * `gitops.flux.oci.verify`: the OCIRepository's `spec.verify` for an artifact `publish` signs — a
 * key Secret, or the keyless identity as anchored Go regular expressions — valid against
 * source-controller v1.9.1's CRD; the setting's schema, overlay override, and its mistakes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { GITOPS_SCHEMA } from '../../src/config/config-schema.js';
import { SpecError } from '../../src/errors.js';
import { applyGitopsFlavour, type GitopsOptions } from '../../src/gitops/index.js';
import { mergeGitopsConfig } from '../../src/gitops/merge-config.js';
import type { FluxOciVerifyOptions } from '../../src/gitops/options.js';
import type { JsonObject } from 'capi-render';
import type { RenderedEnvironment } from '../../src/plan/output-plan.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

const ENV: RenderedEnvironment = { name: 'prod', components: [{ name: 'cluster-api', objects: [] }] };
const REPOSITORY = 'ghcr.io/acme/capi-render';

function ociRepository(verify: FluxOciVerifyOptions | undefined) {
  const options: GitopsOptions = {
    flavour: 'flux',
    flux: { oci: { repository: REPOSITORY, ...(verify ? { verify } : {}) } },
  };
  const result = applyGitopsFlavour(ENV, options);
  const object = jsYaml.load(result.extraFiles.get('../gitops/flux/prod/oci-repository.yaml')!) as JsonObject;
  return { object, spec: object.spec as JsonObject, warnings: result.warnings };
}

function configError(verify: FluxOciVerifyOptions): { message: string; field?: string; hint?: string } {
  try {
    ociRepository(verify);
  } catch (e) {
    expect(e).toBeInstanceOf(SpecError);
    const d = (e as SpecError).diagnostics[0]!;
    expect(d.code).toBe('config');
    return { message: d.message, ...(d.field ? { field: d.field } : {}), ...(d.hint ? { hint: d.hint } : {}) };
  }
  throw new Error('expected a config error');
}

describe('the OCIRepository verify block', () => {
  it('none without the setting', () => {
    expect(ociRepository(undefined).spec.verify).toBeUndefined();
  });

  it('key: provider cosign and the Secret holding cosign.pub', () => {
    const { object, spec } = ociRepository({ key: { secretRef: { name: 'capi-render-cosign' } } });
    expect(spec.verify).toEqual({ provider: 'cosign', secretRef: { name: 'capi-render-cosign' } });
    expect(consumerSchemaProblems(object)).toEqual([]);
  });

  it('keyless with exact values: anchored and escaped (Flux matches substrings with Go regexps)', () => {
    const { object, spec, warnings } = ociRepository({
      keyless: {
        issuer: 'https://token.actions.githubusercontent.com',
        identity: 'https://github.com/acme/fleet/.github/workflows/publish.yaml@refs/heads/main',
      },
    });
    expect(spec.verify).toEqual({
      provider: 'cosign',
      matchOIDCIdentity: [
        {
          issuer: '^https://token\\.actions\\.githubusercontent\\.com$',
          subject: '^https://github\\.com/acme/fleet/\\.github/workflows/publish\\.yaml@refs/heads/main$',
        },
      ],
    });
    expect(consumerSchemaProblems(object)).toEqual([]);
    expect(warnings).toEqual([]);
    // The generated pattern accepts the identity and nothing that merely contains it.
    const subject = new RegExp(((spec.verify as JsonObject).matchOIDCIdentity as JsonObject[])[0]!.subject as string);
    expect(subject.test('https://github.com/acme/fleet/.github/workflows/publish.yaml@refs/heads/main')).toBe(true);
    expect(subject.test('https://github.com/acme/fleet/.github/workflows/publish.yaml@refs/heads/main-evil')).toBe(
      false,
    );
    expect(subject.test('https://githubXcom/acme/fleet/.github/workflows/publish.yaml@refs/heads/main')).toBe(false);
  });

  it('keyless with regular expressions as written, a private trusted root, and a warning for an unanchored one', () => {
    const { object, spec, warnings } = ociRepository({
      keyless: {
        issuerRegExp: '^https://token\\.actions\\.githubusercontent\\.com$',
        identityRegExp: 'https://github\\.com/acme/fleet/',
        trustedRootSecretRef: { name: 'sigstore-root' },
      },
    });
    expect(spec.verify).toEqual({
      provider: 'cosign',
      matchOIDCIdentity: [
        { issuer: '^https://token\\.actions\\.githubusercontent\\.com$', subject: 'https://github\\.com/acme/fleet/' },
      ],
      trustedRootSecretRef: { name: 'sigstore-root' },
    });
    expect(consumerSchemaProblems(object)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      severity: 'warning',
      code: 'gitops',
      field: 'gitops.flux.oci.verify.keyless.identityRegExp',
    });
    expect(warnings[0]!.message).toMatch(/is not anchored: Flux accepts any identity that merely contains a match/);
  });

  it('mistakes: both modes, neither, a keyless rule without issuer or identity, exact and regexp together', () => {
    expect(configError({ key: { secretRef: { name: 'k' } }, keyless: { issuer: 'i', identity: 's' } })).toMatchObject({
      message: 'gitops.flux.oci.verify has both key and keyless',
      field: 'gitops.flux.oci.verify',
    });
    expect(configError({}).message).toBe('gitops.flux.oci.verify names neither key nor keyless');
    expect(configError({ keyless: { identity: 's' } })).toMatchObject({
      message: 'gitops.flux.oci.verify.keyless has no issuer',
      field: 'gitops.flux.oci.verify.keyless',
    });
    expect(configError({ keyless: { issuer: 'i' } }).message).toBe('gitops.flux.oci.verify.keyless has no identity');
    expect(configError({ keyless: { issuer: 'i', identity: 's', identityRegExp: '^s$' } }).message).toBe(
      'gitops.flux.oci.verify.keyless has both identity and identityRegExp',
    );
  });
});

describe('the setting', () => {
  const validate = new Ajv({ strict: false, allErrors: true }).compile(GITOPS_SCHEMA);

  it('is part of the gitops schema, with no unknown fields', () => {
    expect(
      validate({
        flavour: 'flux',
        flux: { oci: { repository: REPOSITORY, verify: { key: { secretRef: { name: 'capi-render-cosign' } } } } },
      }),
    ).toBe(true);
    expect(
      validate({
        flux: {
          oci: { verify: { keyless: { issuer: 'i', identityRegExp: '^s$', trustedRootSecretRef: { name: 'r' } } } },
        },
      }),
    ).toBe(true);
    expect(validate({ flux: { oci: { verify: { key: { secretRef: 'capi-render-cosign' } } } } })).toBe(false);
    expect(validate({ flux: { oci: { verify: { keyless: { subject: 's' } } } } })).toBe(false);
    expect(validate({ flux: { oci: { verify: { notation: {} } } } })).toBe(false);
  });

  it('an overlay replaces the inherited verify block whole (key in capi-render.yaml, keyless for one environment)', () => {
    const merged = mergeGitopsConfig(
      { flavour: 'flux', flux: { oci: { repository: REPOSITORY, verify: { key: { secretRef: { name: 'k' } } } } } },
      { flux: { oci: { digest: `sha256:${'0'.repeat(64)}`, verify: { keyless: { issuer: 'i', identity: 's' } } } } },
    );
    expect(merged.flux?.oci).toEqual({
      repository: REPOSITORY,
      digest: `sha256:${'0'.repeat(64)}`,
      verify: { keyless: { issuer: 'i', identity: 's' } },
    });
  });
});

describe('docs/flux.md "Signing what publish pushes"', () => {
  const guide = readFileSync(path.join(REPO_ROOT, 'docs/flux.md'), 'utf8');
  const start = guide.indexOf('## Signing what publish pushes');
  const next = guide.indexOf('\n## ', start + 1);
  const section = guide.slice(start, next === -1 ? undefined : next);
  const documents = [...section.matchAll(/```yaml\n([^]*?)```/g)].flatMap((m) => jsYaml.loadAll(m[1]!) as JsonObject[]);

  it('shows the OCIRepository capi-render generates from the keyless settings it shows, and a key setting', () => {
    const settings = documents.filter((d) => d.gitops !== undefined).map((d) => d.gitops as unknown as GitopsOptions);
    expect(settings.map((g) => Object.keys(g.flux!.oci!.verify!))).toEqual([['key'], ['keyless']]);
    const shown = documents.find((d) => d.kind === 'OCIRepository')!;
    const generated = applyGitopsFlavour(
      ENV,
      mergeGitopsConfig(settings[1]!, {
        flux: { oci: { digest: (shown.spec as JsonObject & { ref: { digest: string } }).ref.digest } },
      }) as GitopsOptions,
    );
    const object = jsYaml.load(generated.extraFiles.get('../gitops/flux/prod/oci-repository.yaml')!) as JsonObject;
    expect(object).toEqual(shown);
    expect(documents.find((d) => d.name === 'publish')).toMatchObject({ permissions: { 'id-token': 'write' } });
  });
});
