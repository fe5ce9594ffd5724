/** What `check` and `--frozen` say about a provider entry that changed: the field, and old → new. */
import { describe, expect, it } from 'vitest';
import { describeLockChanges, lockChanges } from '../../src/lock/next-lock.js';
import type { LockFile, LockedProvider } from 'capi-render';
import { emptyLock } from '../../src/lock/lock-types.js';

const ENTRY: LockedProvider = {
  provider: 'CoreProvider/capi-system/cluster-api',
  requested: '~1.12',
  version: 'v1.12.0',
  contract: 'v1beta2',
  source: 'local:cluster-api',
  variables: ['CLUSTER_TOPOLOGY', 'EXP_MACHINE_POOL'],
};

function lockWith(entry: LockedProvider): LockFile {
  return { ...emptyLock(), environments: [{ name: 'dev', providers: [entry] }] };
}

describe('a changed provider entry names its fields', () => {
  it.each<[string, Partial<LockedProvider> & Record<string, unknown>, string]>([
    ['requested', { requested: 'v1.12.0' }, 'requested ~1.12 → v1.12.0'],
    ['requested emptied', { requested: '' }, "requested ~1.12 → ''"],
    ['contract', { contract: 'v1beta1' }, 'contract v1beta2 → v1beta1'],
    [
      'source',
      { source: 'github:kubernetes-sigs/cluster-api' },
      'source local:cluster-api → github:kubernetes-sigs/cluster-api',
    ],
    [
      'variables added and removed',
      { variables: ['CLUSTER_TOPOLOGY', 'EXP_RUNTIME_SDK'] },
      'variables: +EXP_RUNTIME_SDK, −EXP_MACHINE_POOL',
    ],
    ['variables reordered', { variables: ['EXP_MACHINE_POOL', 'CLUSTER_TOPOLOGY'] }, 'variables: order changed'],
    ['a field capi-render does not write', { note: 'pinned by hand' }, 'note (absent) → pinned by hand'],
    [
      'two fields at once',
      { contract: 'v1beta1', source: 'local:other' },
      'contract v1beta2 → v1beta1; source local:cluster-api → local:other',
    ],
  ])('%s', (_name, edit, said) => {
    const after = lockWith({ ...ENTRY, ...edit });
    expect(describeLockChanges(lockWith(ENTRY), after)).toEqual([`dev: CoreProvider/capi-system/cluster-api ${said}`]);
  });

  it('says why a path-named local repository source changed (a lock of an older capi-render)', () => {
    const old = lockWith({ ...ENTRY, source: 'local:vendor/releases/cluster-api' });
    expect(describeLockChanges(old, lockWith(ENTRY))).toEqual([
      'dev: CoreProvider/capi-system/cluster-api source local:vendor/releases/cluster-api → local:cluster-api (a configured local repository is recorded without its path)',
    ]);
  });

  it('a version change is reported as one, not as a field list', () => {
    expect(describeLockChanges(lockWith(ENTRY), lockWith({ ...ENTRY, version: 'v1.12.1' }))).toEqual([
      'dev: CoreProvider/capi-system/cluster-api v1.12.0 → v1.12.1',
    ]);
  });

  it('the same fields in another key order are no entry change', () => {
    const reordered = Object.fromEntries(Object.entries(ENTRY).reverse()) as unknown as LockedProvider;
    expect(lockChanges(lockWith(ENTRY), lockWith(reordered)).filter((c) => c.kind === 'provider-entry')).toEqual([]);
  });
});
