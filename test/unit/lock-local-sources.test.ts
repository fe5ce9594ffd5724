/** A lock written when configured local repositories were named by path keeps its pins. */
import { describe, expect, it } from 'vitest';
import { withPathlessLocalSources } from '../../src/lock/local-sources.js';
import type { LockFile } from 'capi-render';
import { emptyLock } from '../../src/lock/lock-types.js';

function lockOf(source: string, url: string): LockFile {
  return {
    ...emptyLock(),
    environments: [
      {
        name: 'dev',
        providers: [
          {
            provider: 'CoreProvider/capi-system/cluster-api',
            requested: 'v1.12.0',
            version: 'v1.12.0',
            contract: 'v1beta2',
            source,
            variables: [],
          },
        ],
      },
    ],
    artifacts: [{ source, version: 'v1.12.0', file: 'metadata.yaml', url, sha256: 'a'.repeat(64) }],
  };
}

describe('withPathlessLocalSources', () => {
  it.each([
    [
      'a configured path',
      ['vendor/releases'],
      'local:vendor/releases/cluster-api',
      'vendor/releases/cluster-api/v1.12.0/metadata.yaml',
      'local:cluster-api',
      'cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'a configured path written with a trailing slash',
      ['vendor/releases/'],
      'local:vendor/releases/cluster-api',
      'vendor/releases/cluster-api/v1.12.0/metadata.yaml',
      'local:cluster-api',
      'cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'the second of two repositories',
      ['vendor/a', '/srv/releases'],
      'local:/srv/releases/cluster-api',
      '/srv/releases/cluster-api/v1.12.0/metadata.yaml',
      'local:cluster-api',
      'cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'a path no repository names any more (moved in the same change): another source',
      ['vendor/moved'],
      'local:vendor/releases/cluster-api',
      'vendor/releases/cluster-api/v1.12.0/metadata.yaml',
      'local:vendor/releases/cluster-api',
      'vendor/releases/cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'a file:// URL source (its root is in the input)',
      ['vendor/releases'],
      'local:/opt/mirror/cluster-api',
      '/opt/mirror/cluster-api/v1.12.0/metadata.yaml',
      'local:/opt/mirror/cluster-api',
      '/opt/mirror/cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'a lock already in the new form',
      ['vendor/releases'],
      'local:cluster-api',
      'cluster-api/v1.12.0/metadata.yaml',
      'local:cluster-api',
      'cluster-api/v1.12.0/metadata.yaml',
    ],
    [
      'a GitHub source',
      ['vendor/releases'],
      'github:kubernetes-sigs/cluster-api',
      'https://github.com/x',
      'github:kubernetes-sigs/cluster-api',
      'https://github.com/x',
    ],
  ])('%s', (_name, roots, source, url, wantSource, wantUrl) => {
    const before = lockOf(source, url);
    const { lock, renamed } = withPathlessLocalSources(
      before,
      roots.map((path) => ({ path })),
    );
    expect(lock.environments[0]!.providers[0]!.source).toBe(wantSource);
    expect(lock.artifacts[0]).toMatchObject({
      source: wantSource,
      url: wantUrl,
      sha256: 'a'.repeat(64),
      version: 'v1.12.0',
    });
    expect(renamed).toEqual(wantSource === source ? [] : [source]);
    if (wantSource === source) expect(lock).toBe(before);
  });
});
