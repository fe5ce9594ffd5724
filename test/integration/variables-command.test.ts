/**
 * `capi-render variables`: every variable a provider's components use, per environment — default,
 * required, secret, and where the value comes from — over a synthetic provider `infrastructure-widget`
 * served from a local repository inside the test repository, and over the real CAPA components
 * (v2.11.1, built from its tag). Values are distinctive and must never reach stdout or stderr.
 */
import { unsetMarker } from '../../src/secrets/unset-marker.js';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';

const META =
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n';
const COMPONENTS = `apiVersion: v1
kind: Namespace
metadata:
  name: widget-system
---
apiVersion: v1
kind: Secret
metadata:
  name: widget-credentials
  namespace: widget-system
type: Opaque
data:
  credentials: \${WIDGET_B64_CREDENTIALS}
stringData:
  token: "\${WIDGET_TOKEN:=}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: widget-controller-manager
  namespace: widget-system
spec:
  selector:
    matchLabels:
      app: widget
  template:
    metadata:
      labels:
        app: widget
    spec:
      containers:
      - name: manager
        image: registry.example.com/widget:v1.0.0
        args:
        - --region=\${WIDGET_REGION}
        - --zone=\${WIDGET_ZONE:=zone-a}
        - --level=\${WIDGET_LEVEL:-info}
        - --from-config=\${WIDGET_FROM_CONFIG}
        - --from-secret=\${WIDGET_FROM_SECRET}
        - --from-env=\${WIDGET_FROM_ENV}
        - --missing=\${WIDGET_MISSING}
`;
const WIDGET = `apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: InfrastructureProvider
metadata:
  name: widget
  namespace: widget-system
spec:
  version: v1.0.0
  configSecret:
    name: widget-vars
`;
/** Every value below contains this, so one search proves none is printed. */
const MARK = 'VALUE-NEVER-PRINTED';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const VARS_SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: widget-vars
  namespace: widget-system
data:
  WIDGET_B64_CREDENTIALS: ${b64(`${MARK}-credentials`)}
stringData:
  WIDGET_FROM_SECRET: ${MARK}-secret
  WIDGET_UNUSED_KEY: ${MARK}-unused-key
`;
const overlay = (variables: string) =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\nvariables:\n${variables}`;

function widgetRepo(): string {
  return makeRepo({
    'capi-render.yaml': configYaml(
      `  - path: artifacts\nvariables:\n  WIDGET_FROM_CONFIG: ${MARK}-config\n  WIDGET_REGION: ${MARK}-config-region\n  UNUSED_CONFIG: ${MARK}-unused-config\n`,
    ),
    'providers/core.yaml': CORE(),
    'providers/widget.yaml': WIDGET,
    'providers/widget-vars.yaml': VARS_SECRET,
    'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml': COMPONENTS,
    'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
    'overlays/dev/overlay.yaml': overlay(
      `  WIDGET_REGION: ${MARK}-region\n  WIDGET_FROM_ENV:\n    fromEnv: WIDGET_ENV_VALUE\n  WIDGET_TYPO: ${MARK}-typo\n`,
    ),
    'overlays/prod/overlay.yaml': overlay(
      `  WIDGET_FROM_ENV:\n    fromEnv: PROD_UNSET_VARIABLE\n  WIDGET_TOKEN: ${MARK}-token\n`,
    ),
  });
}

const variables = (repo: string, args: string[] = []) =>
  runCli(['variables', ...args], { cwd: repo, env: { WIDGET_ENV_VALUE: `${MARK}-env` } });

/** The value never shows, plain or base64-encoded. */
function expectNoValue(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(MARK);
    expect(text).not.toContain(b64(`${MARK}-credentials`));
  }
}

const variable = (
  name: string,
  fields: { default?: string | null; required?: boolean; secret?: boolean; source: string; from?: string | null },
) => ({
  name,
  default: fields.default ?? null,
  required: fields.required ?? fields.default === undefined,
  secret: fields.secret ?? false,
  source: fields.source,
  from: fields.from ?? null,
});

describe('capi-render variables', () => {
  it('--json: defaults, required, secret and every source, sorted; never a value', async () => {
    const repo = widgetRepo();
    const before = snapshotTree(repo);
    const r = await variables(repo, ['--env', 'dev', '--provider', 'infrastructure-widget', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      apiVersion: 'capi-render/v1alpha1',
      kind: 'VariableList',
      environments: [
        {
          environment: 'dev',
          providers: [
            {
              provider: 'infrastructure-widget',
              version: 'v1.0.0',
              variables: [
                variable('WIDGET_B64_CREDENTIALS', {
                  secret: true,
                  source: 'configSecret',
                  from: 'Secret/widget-system/widget-vars key WIDGET_B64_CREDENTIALS',
                }),
                variable('WIDGET_FROM_CONFIG', { source: 'config', from: 'capi-render.yaml variables' }),
                variable('WIDGET_FROM_ENV', {
                  source: 'env',
                  from: 'environment variable WIDGET_ENV_VALUE (via overlay overlays/dev/overlay.yaml)',
                }),
                variable('WIDGET_FROM_SECRET', {
                  source: 'configSecret',
                  from: 'Secret/widget-system/widget-vars key WIDGET_FROM_SECRET',
                }),
                variable('WIDGET_LEVEL', { default: 'info', required: false, source: 'default' }),
                variable('WIDGET_MISSING', { source: 'missing' }),
                // The overlay wins over capi-render.yaml.
                variable('WIDGET_REGION', { source: 'overlay', from: 'overlay overlays/dev/overlay.yaml' }),
                // `${V:=}` has no default in clusterctl's sense: required.
                variable('WIDGET_TOKEN', { secret: true, source: 'missing' }),
                variable('WIDGET_ZONE', { default: 'zone-a', required: false, source: 'default' }),
              ],
            },
          ],
        },
      ],
    });
    // With --env the capi-render.yaml variables are not judged (another environment may use them).
    expect(r.stderr.match(/warning\[[a-z-]+\]/g)).toEqual(['warning[variables-unused]', 'warning[variables-unused]']);
    expect(r.stderr).toMatch(
      /overlays\/dev\/overlay\.yaml.*warning\[variables-unused\]: \[dev\] variable WIDGET_TYPO is set in the overlay variables but no provider of the environment uses it/,
    );
    expect(r.stderr).toMatch(
      /warning\[variables-unused\]: \[dev\] key WIDGET_UNUSED_KEY of Secret\/widget-system\/widget-vars, the configSecret of InfrastructureProvider\/widget-system\/widget, is a variable its components do not use/,
    );
    expect(r.stderr).toContain(
      '2 required variables have no value (a build fails): dev/infrastructure-widget WIDGET_MISSING, dev/infrastructure-widget WIDGET_TOKEN',
    );
    expectNoValue(r.stdout, r.stderr);
    // Nothing written in the repository.
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('human tables per environment and provider; warnings on every unused input and an unset fromEnv', async () => {
    const repo = widgetRepo();
    const r = await variables(repo, ['--provider', 'infrastructure-widget']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'environment dev',
        '  infrastructure-widget v1.0.0',
        '    NAME                    REQUIRED  SECRET  DEFAULT  SOURCE',
        '    WIDGET_B64_CREDENTIALS  yes       yes     -        configSecret Secret/widget-system/widget-vars key WIDGET_B64_CREDENTIALS',
        '    WIDGET_FROM_CONFIG      yes       no      -        capi-render.yaml variables',
        '    WIDGET_FROM_ENV         yes       no      -        environment variable WIDGET_ENV_VALUE (via overlay overlays/dev/overlay.yaml)',
        '    WIDGET_FROM_SECRET      yes       no      -        configSecret Secret/widget-system/widget-vars key WIDGET_FROM_SECRET',
        '    WIDGET_LEVEL            no        no      info     default',
        '    WIDGET_MISSING          yes       no      -        MISSING',
        '    WIDGET_REGION           yes       no      -        overlay overlays/dev/overlay.yaml',
        '    WIDGET_TOKEN            yes       yes     -        MISSING',
        '    WIDGET_ZONE             no        no      zone-a   default',
        'environment prod',
        '  infrastructure-widget v1.0.0',
        '    NAME                    REQUIRED  SECRET  DEFAULT  SOURCE',
        '    WIDGET_B64_CREDENTIALS  yes       yes     -        configSecret Secret/widget-system/widget-vars key WIDGET_B64_CREDENTIALS',
        '    WIDGET_FROM_CONFIG      yes       no      -        capi-render.yaml variables',
        '    WIDGET_FROM_ENV         yes       no      -        MISSING',
        '    WIDGET_FROM_SECRET      yes       no      -        configSecret Secret/widget-system/widget-vars key WIDGET_FROM_SECRET',
        '    WIDGET_LEVEL            no        no      info     default',
        '    WIDGET_MISSING          yes       no      -        MISSING',
        '    WIDGET_REGION           yes       no      -        capi-render.yaml variables',
        '    WIDGET_TOKEN            yes       yes     -        overlay overlays/prod/overlay.yaml',
        '    WIDGET_ZONE             no        no      zone-a   default',
        '',
      ].join('\n'),
    );
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning['));
    expect(warnings.map((l) => l.replace(/^.*warning\[/, 'warning['))).toEqual([
      'warning[variables-unused]: [dev] variable WIDGET_TYPO is set in the overlay variables but no provider of the environment uses it',
      'warning[variables-unused]: [dev] key WIDGET_UNUSED_KEY of Secret/widget-system/widget-vars, the configSecret of InfrastructureProvider/widget-system/widget, is a variable its components do not use',
      'warning[variables-env-unset]: [prod] variable WIDGET_FROM_ENV is read from environment variable PROD_UNSET_VARIABLE, which is not set',
      'warning[variables-unused]: [prod] key WIDGET_UNUSED_KEY of Secret/widget-system/widget-vars, the configSecret of InfrastructureProvider/widget-system/widget, is a variable its components do not use',
      'warning[variables-unused]: variable UNUSED_CONFIG is set in capi-render.yaml but no provider of any environment uses it',
    ]);
    expectNoValue(r.stdout, r.stderr);
  });

  it('without --provider lists the core provider too; --env filters environments', async () => {
    const repo = widgetRepo();
    const r = await variables(repo, ['--env', 'prod']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^\S|^ {2}\S/.test(l))).toEqual([
      'environment prod',
      '  cluster-api v1.12.0',
      '  infrastructure-widget v1.0.0',
    ]);
    expect(r.stdout).toMatch(/\n {4}CAPI_DIAGNOSTICS_ADDRESS +no +no +:8443 +default\n/);
    expectNoValue(r.stdout, r.stderr);
  });

  it.each([
    ['an unknown option', ['--bogus'], /unknown option|--bogus/],
    ['a word', ['extra'], /extra/],
    ['an unknown environment', ['--env', 'staging'], /unknown environment "staging".*\(environments: dev, prod\)/],
    [
      'an unknown provider',
      ['--provider', 'infrastructure-nope'],
      /--provider "infrastructure-nope" names no provider of the environments listed \(providers: cluster-api, infrastructure-widget\)/,
    ],
  ])('%s is bad usage (exit 2)', async (_name, args, message) => {
    const r = await variables(widgetRepo(), args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('a broken input is an error (exit 1), one line naming what and where', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('  - path: artifacts\n'),
      'providers/core.yaml': CORE(),
      'providers/widget.yaml': WIDGET,
      'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml': COMPONENTS,
      'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
    });
    const r = await variables(repo);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error\[config-secret\]: .*spec\.configSecret of InfrastructureProvider\/widget-system\/widget names Secret widget-system\/widget-vars, which is not among the inputs/,
    );
  });

  it('a components file that is not a valid template is an error (exit 1) naming the artifact', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('  - path: artifacts\n'),
      'providers/core.yaml': CORE(),
      'providers/widget.yaml': WIDGET.replace(/ {2}configSecret:\n {4}name: widget-vars\n/, ''),
      'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "${BA$R}"}\n',
      'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
    });
    const r = await variables(repo);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.includes('error['))).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^providers\/widget\.yaml:1:1: error\[variables-syntax\]: .*\(in local repository artifacts\/infrastructure-widget v1\.0\.0\/infrastructure-components\.yaml line 4\)/,
    );
  });

  it('an alias bomb in a Secret that references a variable is refused by the parser, not expanded: listed, not secret, in bounded time', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = `apiVersion: v1\nkind: Secret\nmetadata: {name: bomb}\nstringData:\n  v: \${BOMB_VALUE}\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
    const repo = makeRepo({
      'capi-render.yaml': configYaml('  - path: artifacts\n'),
      'providers/core.yaml': CORE(),
      'providers/widget.yaml': WIDGET.replace(/ {2}configSecret:\n {4}name: widget-vars\n/, ''),
      'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: widget-system\n---\n${bomb}`,
      'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
    });
    const started = Date.now();
    const r = await variables(repo, ['--provider', 'infrastructure-widget', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(JSON.parse(r.stdout).environments[0].providers[0].variables).toEqual([
      variable('BOMB_VALUE', { source: 'missing' }),
    ]);
  });

  it('--help lists the options', async () => {
    const r = await variables(widgetRepo(), ['--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--env NAME', '--provider LABEL', '--json', '--offline']) expect(r.stdout).toContain(flag);
  });

  it('the real CAPA components: AWS_B64ENCODED_CREDENTIALS is required and secret', async () => {
    const credential = b64(`[default]\naws_access_key_id = ${MARK}\n`);
    const repo = makeRepo({
      'capi-render.yaml': configYaml(),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.11.1\n  configSecret:\n    name: aws-variables\n',
      'providers/vars.yaml': `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: "${credential}"\n`,
    });
    const r = await variables(repo, ['--provider', 'infrastructure-aws', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout).environments[0].providers[0].variables as {
      name: string;
      required: boolean;
      secret: boolean;
      source: string;
    }[];
    expect(listed.find((v) => v.name === 'AWS_B64ENCODED_CREDENTIALS')).toEqual({
      name: 'AWS_B64ENCODED_CREDENTIALS',
      default: null,
      required: true,
      secret: true,
      source: 'configSecret',
      from: 'Secret/capa-system/aws-variables key AWS_B64ENCODED_CREDENTIALS',
    });
    // Only the credential lands in a Secret.
    expect(listed.filter((v) => v.secret).map((v) => v.name)).toEqual(['AWS_B64ENCODED_CREDENTIALS']);
    expectNoValue(r.stdout, r.stderr);
    expect(r.stdout + r.stderr).not.toContain(credential);
  });

  it('the real CAPA components with the credential from an unset environment variable: listed UNSET with its reference, never MISSING', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml(
        'variables:\n  AWS_B64ENCODED_CREDENTIALS: {fromEnv: AWS_B64ENCODED_CREDENTIALS}\nsecrets:\n  mode: omit\n',
      ),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.11.1\n',
    });
    const r = await variables(repo, ['--provider', 'infrastructure-aws', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const listed = JSON.parse(r.stdout).environments[0].providers[0].variables as { name: string }[];
    expect(listed.find((v) => v.name === 'AWS_B64ENCODED_CREDENTIALS')).toEqual({
      name: 'AWS_B64ENCODED_CREDENTIALS',
      default: null,
      required: true,
      secret: true,
      source: 'unset',
      from: 'environment variable AWS_B64ENCODED_CREDENTIALS (via capi-render.yaml variables)',
    });
    expect(r.stderr).toContain(
      '1 secret reference has no value (a build needs one only where it would show, not in a Secret that secrets.mode leaves out or replaces): default/infrastructure-aws AWS_B64ENCODED_CREDENTIALS',
    );
    expect(r.stderr).not.toContain('(a build fails)');
    const text = await variables(repo, ['--provider', 'infrastructure-aws']);
    expect(text.stdout).toMatch(
      /AWS_B64ENCODED_CREDENTIALS +yes +yes +- +UNSET environment variable AWS_B64ENCODED_CREDENTIALS \(via capi-render.yaml variables\)\n/,
    );
    expect(`${r.stdout}${r.stderr}${text.stdout}${text.stderr}`).not.toContain(
      unsetMarker('AWS_B64ENCODED_CREDENTIALS'),
    );
  });
});
