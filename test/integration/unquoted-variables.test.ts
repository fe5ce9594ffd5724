/** A variable substituted unquoted where the API server wants a string, on a real release (CAPM3 v1.13.2). */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';

const METAL3 =
  'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: metal3\n  namespace: capm3-system\nspec:\n  version: v1.13.2\n';
const repo = (variables: string) =>
  makeRepo({
    'capi-render.yaml': configYaml(`variables:\n${variables}`),
    'providers/core.yaml': CORE(),
    'providers/metal3.yaml': METAL3,
  });

describe('values the API server reads as strings', () => {
  it('refuses CAPM3_FAST_TRACK: "true" (ConfigMap data) and a numeric diagnostics address (an annotation), naming both, and writes nothing', async () => {
    const dir = repo('  CAPM3_FAST_TRACK: "true"\n  CAPM3_DIAGNOSTICS_ADDRESS: "8080"\n');
    const r = await runCli(['build', '--stdout'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error[components-invalid]');
    expect(r.stderr).toMatch(
      /ConfigMap\/capm3-system\/capm3-capm3fasttrack-configmap data\.CAPM3_FAST_TRACK is a boolean, not a string/,
    );
    expect(r.stderr).toMatch(
      /Deployment\/capm3-system\/capm3-controller-manager metadata\.annotations\.prometheus\.io\/port is a number, not a string/,
    );
    expect(r.stderr).toContain('carries its own quotes (e.g. "\'true\'"');
  });

  it('renders the value with its own quotes as the string it is, like the release default', async () => {
    const r = await runCli(['build', '--stdout'], { cwd: repo(`  CAPM3_FAST_TRACK: "'true'"\n`) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}CAPM3_FAST_TRACK: 'true'$/m);
  });
});
