/**
 * docs/safety.md "What each record may decide" names every field of capi-render.lock. The lock below
 * has every field its type declares (DeepRequired: a field added to LockFile fails to typecheck
 * here until it is filled in), and every leaf of it, as the lock serialises it, must be a row of
 * the table — so a new field cannot land without saying what it may decide and what binds it.
 */
import { readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { type LockFile, serializeLock } from 'capi-render';

type DeepRequired<T> = T extends readonly (infer U)[]
  ? DeepRequired<U>[]
  : T extends object
    ? { [K in keyof T]-?: DeepRequired<T[K]> }
    : T;

const HEX = 'a'.repeat(64);
const FULL: DeepRequired<LockFile> = {
  apiVersion: 'capi-render/v1alpha1',
  kind: 'Lock',
  emulates: {
    clusterctl: 'v1.12.10',
    operator: 'v0.28.0',
    contract: 'v1beta2',
    operatorApi: 'operator.cluster.x-k8s.io/v1alpha2',
  },
  environments: [
    {
      name: 'dev',
      inputs: HEX,
      providers: [
        {
          provider: 'CoreProvider/capi-system/cluster-api',
          requested: '~1.12',
          version: 'v1.12.0',
          contract: 'v1beta2',
          source: 'github:kubernetes-sigs/cluster-api',
          variables: ['EXP_MACHINE_POOL'],
        },
      ],
      crds: ['clusters.cluster.x-k8s.io'],
      images: ['registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0'],
    },
  ],
  artifacts: [
    {
      source: 'github:kubernetes-sigs/cluster-api',
      version: 'v1.12.0',
      file: 'core-components.yaml',
      url: 'https://example.com/core-components.yaml',
      sha256: HEX,
    },
  ],
  images: [
    {
      image: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      digest: `sha256:${HEX}`,
      verified: {
        rule: 'sha256:abcdefabcdef',
        method: 'keyless',
        format: 'legacy-tag',
        identity: 'krel-trust@example.com',
        issuer: 'https://accounts.google.com',
        evidence: 'e30=',
      },
    },
  ],
  inputFiles: [{ file: 'capi-render.yaml', sha256: HEX }],
};

/** `a.b[].c` for every leaf of `value` (a list of plain values is one leaf, `a.b`). */
function leafPaths(value: unknown, at = ''): string[] {
  if (Array.isArray(value))
    return value.flatMap((item) => (typeof item === 'object' && item !== null ? leafPaths(item, `${at}[]`) : [at]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, at ? `${at}.${k}` : k));
  return [at];
}

/** The fields the lock table of docs/safety.md names: `a.b`, and `.c` after it meaning a sibling of `a.b`. */
function tableFields(markdown: string): Set<string> {
  const section = markdown.slice(
    markdown.indexOf('**capi-render.lock**'),
    markdown.indexOf('**`.capi-render-owned`**'),
  );
  const out = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const cell = row.split('|')[1]!;
    let last = '';
    for (const [, token] of cell.matchAll(/`([^`]+)`/g)) {
      const full = token!.startsWith('.') ? `${last.slice(0, last.lastIndexOf('.'))}${token}` : token!;
      out.add(full);
      last = full;
    }
  }
  return out;
}

describe('the record table of docs/safety.md', () => {
  const named = tableFields(readFileSync(new URL('../../docs/safety.md', import.meta.url), 'utf8'));

  it('names every field of capi-render.lock, as the lock writes it', () => {
    const written = leafPaths(jsYaml.load(serializeLock(FULL)));
    // Every field of the type is written (none dropped by the serialiser)…
    expect(new Set(written)).toEqual(new Set(leafPaths(FULL)));
    // …and every one is a row of the table.
    expect([...new Set(written)].filter((f) => !named.has(f))).toEqual([]);
  });

  it('names no field the lock does not have', () => {
    const fields = new Set(leafPaths(FULL));
    expect([...named].filter((f) => !fields.has(f))).toEqual([]);
  });
});
