/**
 * One edit of one record, run through the CLI the way a pull request meets CI and a developer's
 * next build: `check` on the edited repository, then `build`, and the outcome classified. Every
 * record a build reads back must either be refused naming its file, be re-derived (the tree after
 * the build equals the unedited build's), or be authoritative per docs/safety.md's table with every
 * policy still holding; and `check` must fail exactly when `build` changes something.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import type { RecordMutation } from './record-mutations.js';

export type Outcome = 'refused' | 'refused by a policy' | 're-derived' | 'authoritative' | 'unchanged';

export interface CaseResult {
  mutation: RecordMutation;
  outcome: Outcome | 'VIOLATION';
  why?: string;
  checkCode: number;
  buildCode: number;
  firstLine: string;
}

export interface Scenario {
  name: string;
  /** A built repository: committed output, lock and records as a build leaves them. */
  repo: string;
  /** The cache it was built with (shared by every case, as a developer's cache is). */
  env: Record<string, string>;
  /** The tree the unedited build leaves (snapshotTree of the repository). */
  reference: Record<string, string>;
  /** Leaf patterns a record may decide (docs/safety.md), each with the policy check that must hold after a build that kept an edit. */
  authoritative: Record<string, (repo: string) => Promise<string | undefined>>;
}

/** Paths of a snapshot that a build owns (what build and check compare). */
function owned(tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tree).filter(
      ([p]) => p.startsWith('rendered/') || p.startsWith('gitops/') || p === 'capi-render.lock',
    ),
  );
}

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  return JSON.stringify(owned(a)) === JSON.stringify(owned(b));
}

/** Runs one mutation of `record` (a repository-relative file) against a fresh copy of the scenario. */
export async function runCase(scenario: Scenario, mutation: RecordMutation): Promise<CaseResult> {
  const repo = tempDir('capi-render-record-');
  cpSync(scenario.repo, repo, { recursive: true });
  const file = path.join(repo, mutation.record);
  const before = readFileSync(file, 'utf8');
  const after = mutation.apply(before);
  writeFileSync(file, after);
  const edited = snapshotTree(repo);
  const check = await runCli(['check'], { cwd: repo, env: scenario.env });
  const build = await runCli(['build'], { cwd: repo, env: scenario.env });
  const built = snapshotTree(repo);
  const firstLine = (build.code === 0 ? '' : build.stderr.split('\n')[0]) ?? '';
  const changed = !same(built, edited);
  const result = (outcome: Outcome | 'VIOLATION', why?: string): CaseResult => ({
    mutation,
    outcome,
    ...(why ? { why } : {}),
    checkCode: check.code,
    buildCode: build.code,
    firstLine,
  });

  // check fails exactly when build would change something (or refuses).
  const buildWouldAct = build.code !== 0 || changed;
  if ((check.code !== 0) !== buildWouldAct) {
    return result(
      'VIOLATION',
      `check exited ${check.code} but build ${build.code !== 0 ? `refused (${firstLine})` : changed ? 'changed the tree' : 'changed nothing'}${check.code !== 0 ? `; check said: ${check.stderr.split('\n')[0]}` : ''}`,
    );
  }
  if (after === before) return result('unchanged');
  if (build.code !== 0) {
    if (changed) return result('VIOLATION', `build failed (${firstLine}) but changed the tree`);
    const named =
      firstLine.startsWith(`${mutation.record}:`) ||
      firstLine.startsWith(`${mutation.record} `) ||
      firstLine.includes(mutation.record);
    if (named) return result('refused');
    if (/error\[(preflight|removal|image)\]/.test(firstLine)) return result('refused by a policy');
    return result('VIOLATION', `build refused without naming ${mutation.record}: ${firstLine}`);
  }
  if (same(built, scenario.reference)) return result('re-derived');
  const policy = scenario.authoritative[mutation.pattern];
  if (!policy)
    return result(
      'VIOLATION',
      `build kept the edit of ${mutation.leaf}, which may decide nothing (the tree differs from the unedited build's)`,
    );
  const broken = await policy(repo);
  return broken
    ? result('VIOLATION', `authoritative ${mutation.pattern} kept, but a policy does not hold: ${broken}`)
    : result('authoritative');
}
