/**
 * variablesReport, the pure half of `capi-render variables`: sorted output whatever the input order,
 * sources from origins (else default or missing), the --provider filter, and the warnings on inputs.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  variablesReport,
  type VariablesEnvironmentInput,
  type VariablesProviderInput,
} from '../../src/render/variables-report.js';

const provider = (
  label: string,
  names: string[],
  extra: Partial<VariablesProviderInput> = {},
): VariablesProviderInput => ({
  provider: label,
  object: `InfrastructureProvider/ns/${label}`,
  version: 'v1.0.0',
  described: {
    variables: names.map((name) => ({
      name,
      default: name.endsWith('_D') ? 'd' : null,
      required: !name.endsWith('_D'),
      secret: name.startsWith('S_'),
    })),
    names,
  },
  origins: {},
  ...extra,
});
const env = (
  environment: string,
  providers: VariablesProviderInput[],
  overlay: VariablesEnvironmentInput['overlay'] = {},
): VariablesEnvironmentInput => ({
  environment,
  overlayFile: `overlays/${environment}/overlay.yaml`,
  overlay,
  providers,
});

describe('variablesReport', () => {
  it('sorts environments and providers, and takes each source from its origin, else default or missing', () => {
    const { document, warnings } = variablesReport({
      environments: [
        env('b', [provider('z', ['A'])]),
        env('a', [
          provider('y', ['S_X', 'V_D'], {
            origins: { S_X: { origin: 'env', from: 'environment variable E (via capi-render.yaml variables)' } },
          }),
          provider('x', ['A', 'V_D']),
        ]),
      ],
      config: {},
      env: {},
      complete: true,
    });
    expect(warnings).toEqual([]);
    expect(document.environments.map((e) => [e.environment, e.providers.map((p) => p.provider)])).toEqual([
      ['a', ['x', 'y']],
      ['b', ['z']],
    ]);
    expect(document.environments[0]!.providers[1]!.variables).toEqual([
      {
        name: 'S_X',
        default: null,
        required: true,
        secret: true,
        source: 'env',
        from: 'environment variable E (via capi-render.yaml variables)',
      },
      { name: 'V_D', default: 'd', required: false, secret: false, source: 'default', from: null },
    ]);
    expect(document.environments[0]!.providers[0]!.variables[0]).toMatchObject({
      name: 'A',
      source: 'missing',
      from: null,
    });
  });

  it('--provider keeps the others out of the listing but not out of the warnings; an unknown label is bad usage', () => {
    const input = {
      environments: [env('a', [provider('x', ['A']), provider('y', ['B'])], { B: 'v' })],
      config: { A: 'v' },
      env: {},
      complete: true,
    };
    const { document, warnings } = variablesReport({ ...input, provider: 'x' });
    expect(document.environments[0]!.providers.map((p) => p.provider)).toEqual(['x']);
    expect(warnings).toEqual([]);
    expect(() => variablesReport({ ...input, provider: 'w' })).toThrow(UsageError);
  });

  it('warns on unused overlay, configSecret and (only when complete) capi-render.yaml variables, and on an unset fromEnv', () => {
    const configSecret = {
      secret: 'Secret/ns/vars',
      keys: ['images', 'OCI_USERNAME', 'UNUSED_KEY', 'A'],
      file: 'providers/vars.yaml',
      line: 1,
    };
    const input = {
      environments: [
        env('a', [provider('x', ['A', 'B'], { configSecret })], { STRAY: 'v', B: { fromEnv: 'NOT_SET' } }),
      ],
      config: { A: { fromEnv: 'ALSO_NOT_SET' }, NOBODY: 'v' },
      env: { SET: 'x' },
      complete: true,
    };
    const codes = (complete: boolean) =>
      variablesReport({ ...input, complete }).warnings.map((d) => `${d.code} ${d.field ?? d.object}`);
    expect(codes(true)).toEqual([
      'variables-env-unset variables.B',
      'variables-unused variables.STRAY',
      'variables-unused Secret/ns/vars',
      'variables-env-unset variables.A',
      'variables-unused variables.NOBODY',
    ]);
    expect(codes(false)).toEqual([
      'variables-env-unset variables.B',
      'variables-unused variables.STRAY',
      'variables-unused Secret/ns/vars',
      'variables-env-unset variables.A',
    ]);
  });
});
