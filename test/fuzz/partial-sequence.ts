/**
 * Partial builds in a fuzz case: after a successful full build, a sequence of partial builds
 * (`--shard K/N`, `--env E`…) with the output damaged before each (mutations.ts applyOutputDamage),
 * then a plain build. Properties:
 *
 * 7. after every build of the sequence, `check` is clean exactly when capi-render's files —
 *    capi-render.lock, both ownership records and every file they list — are those of the full
 *    build (byte for byte);
 * 8. the plain build at the end leaves exactly those files (and so a clean `check`), whatever the
 *    partial builds before it skipped, rendered or left alone.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import fc from 'fast-check';
import { OWNERSHIP_FILE, parseOwnership } from '../../src/output/ownership.js';
import { applyOutputDamage, outputDamageArb, type OutputDamage } from './mutations.js';
import { snapshot, type Snapshot } from './tree-snapshot.js';

/** One partial build: the damage done before it, and which environments it builds. */
export interface PartialStep {
  damage: OutputDamage[];
  /** `--shard K/N`, or `--env` for each index (modulo the environments the full build wrote). */
  build: { shard: number; of: number } | { env: number[] };
}

const buildArb: fc.Arbitrary<PartialStep['build']> = fc.oneof(
  fc.record({ of: fc.integer({ min: 1, max: 3 }), k: fc.nat(2) }).map(({ of, k }) => ({ shard: (k % of) + 1, of })),
  fc.record({ env: fc.array(fc.nat(3), { minLength: 1, maxLength: 2 }) }),
);

/**
 * One or two partial builds (each runs a build and a check, so a case stays cheap); the first comes
 * after some damage, a second one after some or none.
 */
export const partialSequenceArb: fc.Arbitrary<PartialStep[]> = fc
  .tuple(
    fc.record({ damage: fc.array(outputDamageArb, { minLength: 1, maxLength: 2 }), build: buildArb }),
    fc.array(fc.record({ damage: fc.array(outputDamageArb, { maxLength: 2 }), build: buildArb }), { maxLength: 1 }),
  )
  .map(([first, rest]) => [first, ...rest]);

/** A command as repo-case.ts runs it. */
export interface SequenceCall {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

/** What the sequence needs of the case runner (repo-case.ts). */
export interface SequenceContext {
  repo: string;
  /** The environments the full build wrote (folders of rendered/ with a kustomization). */
  environments: string[];
  cli: (argv: string[]) => Promise<SequenceCall>;
  /** Property 3 for one command: only owned paths change, a failed command changes nothing. */
  changes: (call: SequenceCall, before: Snapshot, after: Snapshot) => void;
  violation: (call: SequenceCall, what: string) => never;
}

/** Runs properties 7 and 8; the repository is as the full build left it. */
export async function runPartialSequence(steps: readonly PartialStep[], ctx: SequenceContext): Promise<void> {
  const full = capiRenderFiles(ctx.repo);
  for (const step of steps) {
    for (const d of step.damage) applyOutputDamage(ctx.repo, d);
    const before = snapshot(ctx.repo);
    const call = await ctx.cli(['build', '--offline', ...partialArgs(step.build, ctx.environments)]);
    ctx.changes(call, before, snapshot(ctx.repo));
    await checkExactlyWhenFull(ctx, full);
  }
  const last = await ctx.cli(['build', '--offline']);
  if (last.code !== 0) ctx.violation(last, 'a build after partial builds failed');
  const differ = differences(full, capiRenderFiles(ctx.repo));
  if (differ.length > 0)
    ctx.violation(
      last,
      `after partial builds, a build left ${differ.slice(0, 5).join(', ')} other than the full build did`,
    );
  await checkExactlyWhenFull(ctx, full);
}

function partialArgs(build: PartialStep['build'], environments: readonly string[]): string[] {
  if ('shard' in build) return ['--shard', `${build.shard}/${build.of}`];
  const names = [...new Set(build.env.map((i) => environments[i % environments.length]!))];
  return names.flatMap((name) => ['--env', name]);
}

/** Property 7. */
async function checkExactlyWhenFull(ctx: SequenceContext, full: Record<string, string>): Promise<void> {
  const differ = differences(full, capiRenderFiles(ctx.repo));
  const check = await ctx.cli(['check', '--offline']);
  if (differ.length === 0 && check.code !== 0)
    ctx.violation(check, 'check fails on a tree whose files are those of the full build');
  if (differ.length > 0 && check.code === 0)
    ctx.violation(check, `check passes, but ${differ.slice(0, 5).join(', ')} differ from the full build`);
}

/**
 * capi-render's files: the lock, each ownership record and every file it lists, path → sha256
 * ("missing" for a listed file that is not there). Files someone else put in the folders are not
 * capi-render's: a build leaves them alone and check does not fail on them.
 */
function capiRenderFiles(repo: string): Record<string, string> {
  const out: Record<string, string> = {};
  const digest = (rel: string) => {
    const abs = path.join(repo, rel);
    const stat = lstatSync(abs, { throwIfNoEntry: false });
    if (!stat) return 'missing';
    // Only a regular file is read: a FIFO or a link to a device would block or never end.
    return stat.isFile() ? createHash('sha256').update(readFileSync(abs)).digest('hex') : 'not a regular file';
  };
  out['capi-render.lock'] = digest('capi-render.lock');
  for (const root of ['rendered', 'gitops']) {
    const record = `${root}/${OWNERSHIP_FILE}`;
    out[record] = digest(record);
    if (out[record] === 'missing' || out[record] === 'not a regular file') continue;
    for (const rel of parseOwnership(readFileSync(path.join(repo, record), 'utf8')).files)
      out[`${root}/${rel}`] = digest(`${root}/${rel}`);
  }
  return out;
}

function differences(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}
