/**
 * The secret guard on the real CAPA components (TKG's v2.0.2 copy): the AWS credential variable
 * lands in Secret capa-manager-bootstrap-credentials. Every mode, and proof that the value never
 * reaches a file, stdout or stderr unless plaintext is chosen.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, configYaml, filesUnder, makeRepo, snapshotTree } from '../helpers/repo.js';

const CREDENTIAL = Buffer.from(
  '[default]\naws_access_key_id = AKIAEXAMPLESECRET\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n',
).toString('base64');
const PROXY_PASSWORD_URL = 'http://proxyuser:Pr0xyPassw0rd@proxy.internal:3128';

const aws = (extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.0.2\n  configSecret:\n    name: aws-variables\n${extra}`;
const secret = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n${Object.entries(
    data,
  )
    .map(([k, v]) => `  ${k}: "${v}"\n`)
    .join('')}`;
const config = (secrets: string, proxyFromSecret = false) =>
  configYaml(
    `variables:\n  CAPA_CONTROLLER_IMAGE_TAG: v2.0.2\n  TKG_NO_PROXY: ""\n  TKG_HTTPS_PROXY: ""\n${proxyFromSecret ? '' : '  TKG_HTTP_PROXY: ""\n'}${secrets}`,
    [`${FIXTURES}derived/tanzu-framework`],
  );

/** The credential's key material, as the decoded value holds it: found nowhere means found in no form. */
const KEY_ID = 'AKIAEXAMPLESECRET';
/** The input that holds the values legitimately: the configSecret manifest. */
const INPUT = 'providers/vars.yaml';
const AWS_SECRET_FILE = 'rendered/default/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml';
const CAPA_DEPLOYMENT_FILE = 'rendered/default/infrastructure-aws/deployment-capa-controller-manager.yaml';

/**
 * Every place `value` shows up after a run — 'stdout', 'stderr' and each file of the repository
 * (inputs, rendered/, gitops/, the lock) — as itself, base64-encoded, or (for KEY_ID) decoded. The
 * tests compare the whole list, so a value appearing anywhere new fails, and so does one missing
 * where its mode puts it.
 */
function placesOf(repo: string, r: CliResult, value: string): string[] {
  const forms = [value, Buffer.from(value).toString('base64')];
  const holds = (text: string) => forms.some((f) => text.includes(f));
  const files = [...filesUnder(repo)].filter(([, text]) => holds(text)).map(([f]) => f);
  return [...(holds(r.stdout) ? ['stdout'] : []), ...(holds(r.stderr) ? ['stderr'] : []), ...files];
}

/** The objects of a rendered file. */
const objectsIn = (repo: string, file: string) =>
  jsYaml.loadAll(readFileSync(path.join(repo, file), 'utf8')) as {
    kind: string;
    data?: Record<string, string>;
    spec?: any;
  }[];

describe('secret guard', () => {
  it('fails by default, naming variable, object and field, and writes nothing', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config(''),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws(),
      'providers/vars.yaml': secret({ AWS_B64ENCODED_CREDENTIALS: CREDENTIAL }),
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[secret-guard]');
    expect(r.stderr).toMatch(
      /the value of AWS_B64ENCODED_CREDENTIALS \(Secret\/capa-system\/aws-variables key AWS_B64ENCODED_CREDENTIALS\) would be written to git in Secret\/capa-system\/capa-manager-bootstrap-credentials data\.credentials/,
    );
    expect(snapshotTree(repo)['rendered/default/kustomization.yaml']).toBeUndefined();
    // Substituted nowhere: only the input holds it, in no form does it reach stdout, stderr or a file.
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([INPUT]);
    expect(placesOf(repo, r, KEY_ID)).toEqual([]);
  });

  it('omit: leaves the Secret out and lists it in secrets.required.yaml', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config('secrets:\n  mode: omit\n'),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws(),
      'providers/vars.yaml': secret({ AWS_B64ENCODED_CREDENTIALS: CREDENTIAL }),
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning\[secret-guard\]: left out Secret\/capa-system\/capa-manager-bootstrap-credentials/,
    );
    expect(Object.keys(snapshotTree(repo)).filter((f) => f.includes('capa-manager-bootstrap-credentials'))).toEqual([]);
    const required = jsYaml.load(readFileSync(path.join(repo, 'gitops/secrets/default.required.yaml'), 'utf8'));
    expect(required).toEqual({
      environment: 'default',
      secrets: [
        {
          namespace: 'capa-system',
          name: 'capa-manager-bootstrap-credentials',
          type: 'Opaque',
          component: 'infrastructure-aws',
          keys: [{ key: 'credentials', variables: ['AWS_B64ENCODED_CREDENTIALS'] }],
        },
      ],
    });
    // The rest of CAPA is rendered, its other variables substituted; the credential is in the input only.
    expect(existsSync(path.join(repo, CAPA_DEPLOYMENT_FILE))).toBe(true);
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([INPUT]);
    expect(placesOf(repo, r, KEY_ID)).toEqual([]);
  });

  it('external-secrets: emits an ExternalSecret for the store instead', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config(
        'secrets:\n  providers:\n    infrastructure-aws: external-secrets\n  externalSecrets:\n    storeRef: {name: vault}\n    keyPrefix: capi/\n',
      ),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws(),
      'providers/vars.yaml': secret({ AWS_B64ENCODED_CREDENTIALS: CREDENTIAL }),
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    const es = jsYaml.load(
      readFileSync(
        path.join(repo, 'rendered/default/infrastructure-aws/externalsecret-capa-manager-bootstrap-credentials.yaml'),
        'utf8',
      ),
    ) as { spec: object };
    expect(es.spec).toMatchObject({
      secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' },
      target: { name: 'capa-manager-bootstrap-credentials', creationPolicy: 'Owner', template: { type: 'Opaque' } },
      data: [
        {
          secretKey: 'credentials',
          remoteRef: { key: 'capi/capa-system/capa-manager-bootstrap-credentials', property: 'credentials' },
        },
      ],
    });
    // The ExternalSecret stands where the Secret was; the value stays in the store (and the input).
    expect(existsSync(path.join(repo, AWS_SECRET_FILE))).toBe(false);
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([INPUT]);
    expect(placesOf(repo, r, KEY_ID)).toEqual([]);
  });

  it('plaintext: an explicit opt-in, warned on every build', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config('secrets:\n  mode: plaintext\n'),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws(),
      'providers/vars.yaml': secret({ AWS_B64ENCODED_CREDENTIALS: CREDENTIAL }),
    });
    let last: CliResult | undefined;
    for (let i = 0; i < 2; i++) {
      const r = (last = await runCli(['build'], { cwd: repo }));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/warning\[secret-guard\]: secrets\.mode plaintext: AWS_B64ENCODED_CREDENTIALS/);
      expect(r.stderr).not.toContain(CREDENTIAL);
    }
    // Substituted exactly where the release puts it — the Secret's data.credentials — and nowhere else
    // (not the lock, not gitops/, not a message).
    expect(objectsIn(repo, AWS_SECRET_FILE).map((o) => [o.kind, o.data])).toEqual([
      ['Secret', { credentials: CREDENTIAL }],
    ]);
    expect(placesOf(repo, last!, CREDENTIAL)).toEqual([INPUT, AWS_SECRET_FILE]);
    expect(placesOf(repo, last!, KEY_ID)).toEqual([]);
  });

  it('a variable mapped from the environment is secret too', async () => {
    const repo = makeRepo({
      'capi-render.yaml': config('  AWS_B64ENCODED_CREDENTIALS: {fromEnv: AWS_CREDS}\nsecrets:\n  mode: omit\n'),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws().replace(/  configSecret:\n    name: aws-variables\n/, ''),
    });
    const r = await runCli(['build'], { cwd: repo, env: { AWS_CREDS: CREDENTIAL } });
    expect(r.code, r.stderr).toBe(0);
    // No input holds it either: it is nowhere at all.
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([]);
    expect(placesOf(repo, r, KEY_ID)).toEqual([]);
    expect(readFileSync(path.join(repo, 'gitops/secrets/default.required.yaml'), 'utf8')).toContain(
      'AWS_B64ENCODED_CREDENTIALS',
    );
  });

  it('a secret value outside a Secret (a proxy URL with a password in Deployment env) fails even in omit mode, unless notSecret', async () => {
    const files = (secrets: string) => ({
      'capi-render.yaml': config(secrets, true),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml': aws(),
      'providers/vars.yaml': secret({ AWS_B64ENCODED_CREDENTIALS: CREDENTIAL, TKG_HTTP_PROXY: PROXY_PASSWORD_URL }),
    });
    const repo = makeRepo(files('secrets:\n  mode: omit\n'));
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /the value of TKG_HTTP_PROXY .* would be written to git in Deployment\/capa-system\/capa-controller-manager spec\.template\.spec\.containers\[0\]\.env\[\d+\]\.value/,
    );
    expect(placesOf(repo, r, 'Pr0xyPassw0rd')).toEqual([INPUT]);

    // notSecret: substituted into the Deployment's HTTP_PROXY env, and still nowhere else; the
    // credential next to it stays omitted.
    const allowed = makeRepo(files('secrets:\n  mode: omit\n  notSecret: [TKG_HTTP_PROXY]\n'));
    const built = await runCli(['build'], { cwd: allowed });
    expect(built.code, built.stderr).toBe(0);
    const [deployment] = objectsIn(allowed, CAPA_DEPLOYMENT_FILE);
    const env = (deployment!.spec.template.spec.containers[0].env as { name: string; value?: string }[]).filter(
      (e) => e.value === PROXY_PASSWORD_URL,
    );
    expect(env.map((e) => e.name)).toEqual(['HTTP_PROXY']);
    expect(placesOf(allowed, built, 'Pr0xyPassw0rd')).toEqual([INPUT, CAPA_DEPLOYMENT_FILE]);
    expect(placesOf(allowed, built, CREDENTIAL)).toEqual([INPUT]);
  });

  it('feature gates kept in a configSecret (operator style) are not treated as sensitive', async () => {
    const repo = makeRepo({
      'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  configSecret:\n    name: capi-vars\n'),
      'providers/vars.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capi-vars\n  namespace: capi-system\nstringData:\n  EXP_MACHINE_POOL: "false"\n  CLUSTER_TOPOLOGY: "true"\n',
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    // Substituted where the release uses them: the manager's --feature-gates, with these values.
    const [deployment] = objectsIn(repo, 'rendered/default/cluster-api/deployment-capi-controller-manager.yaml');
    const gates = (deployment!.spec.template.spec.containers[0].args as string[]).find((a) =>
      a.startsWith('--feature-gates='),
    );
    expect(gates).toMatch(/[=,]MachinePool=false(,|$)/);
    expect(gates).toMatch(/[=,]ClusterTopology=true(,|$)/);
  });
});
