/**
 * One whole-repository fuzz case as plain data (files, environment, mutations), and the runner that
 * builds it through the real CLI entry (`run` of src/cli/run.ts, in-process, always --offline from
 * local repositories) and checks the campaign's properties after every command:
 *
 * 1. exit code 0, 1 or 2; never an internal error or a stack trace;
 * 2. an error names a file (with a line for YAML syntax errors) or an object;
 * 3. nothing outside rendered/, gitops/, capi-render.lock (and the cache) changes; a failed build
 *    changes nothing; nothing outside the repository changes;
 * 4. a successful build is idempotent (a second build writes nothing) and deterministic (a fresh
 *    copy of the case built from an empty cache gives the same bytes);
 * 5. `check` is clean right after `build`; `build --stdout --env E` prints exactly rendered/E;
 * 6. a secret value appears nowhere but its input file — and, in plaintext mode, rendered/ and
 *    --stdout — not in stderr, the lock, gitops/ or the cache;
 * 7. a build never succeeds while an input (capi-render.yaml, a file or folder under providers/ or
 *    overlays/) is a link leading out of the repository or nowhere, or while capi-render.lock is not
 *    a regular file (src/repository-files.ts);
 * 8–9. with `partial`, after a successful build: partial builds (--shard, --env) on damaged output,
 *    then a build, leave capi-render's files as the full build did (partial-sequence.ts).
 * 10. `variables --offline` writes nothing in the repository, and exits 0 wherever the build
 *    succeeded (its output, like every command's, is held to property 6).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  constants,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  chmodSync,
  lstatSync,
  readdirSync,
  statSync,
  type Stats,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { run } from '../../src/cli/run.js';
import { OUTSIDE_COPIES, applyMutation, type Mutation } from './mutations.js';
import { runPartialSequence, type PartialStep } from './partial-sequence.js';
import { changedPaths, snapshot, touchedPaths, type Snapshot } from './tree-snapshot.js';

/** Stand-in for the absolute path of test/fixtures/repository in stored cases. */
export const FIXTURES_TOKEN = '@FIXTURES_REPOSITORY@';

export interface RepoCase {
  /** Relative path → text (or `{ base64 }` for bytes that are not UTF-8). */
  files: Record<string, string | { base64: string }>;
  /** Environment the CLI sees (besides its cache folder). */
  env: Record<string, string>;
  /** Files written beside the repository (in the `outside` folder), e.g. a `{fromFile}` secret. Default none. */
  outsideFiles?: Record<string, string>;
  /** Values that are secret: never printed, never written outside what their mode allows. */
  secrets: string[];
  /** Some secret mode is plaintext: rendered/ and --stdout may hold them. */
  plaintext: boolean;
  /** Mutations before anything is built. */
  mutations: Mutation[];
  /** Build once first (it may fail), then apply `after` (lock and output edits included). */
  prebuild: boolean;
  after: Mutation[];
  /** After a successful build: partial builds on damaged output, then a build (none when absent). */
  partial?: PartialStep[];
}

export interface CaseOptions {
  /** Absolute test/fixtures/repository. */
  fixturesRepository: string;
  /** Per command, before the case counts as hung. Default 60 s. */
  timeoutMs?: number;
}

/** A property violation: what broke, on which command. */
export class PropertyViolation extends Error {}

interface Call {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

const OWNED = /^(rendered|gitops)(\/|$)|^capi-render\.lock$/;

/** What a case did, for the campaign's figures. */
export interface CaseOutcome {
  /** Exit code of the main build. */
  code: number;
  /** Its first error line, if it failed. */
  error?: string | undefined;
}

/** Runs a case; throws PropertyViolation on the first broken property. Cleans up its folders. */
export async function runRepoCase(c: RepoCase, options: CaseOptions): Promise<CaseOutcome> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'capi-render-fuzz-'));
  try {
    return await runIn(root, c, options);
  } finally {
    unlockModes(root);
    rmSync(root, { recursive: true, force: true });
  }
}

/** Writes the case's files and mutations into root/<name>; returns the repository folder. */
function materialize(root: string, name: string, c: RepoCase, options: CaseOptions): { repo: string; outside: string } {
  const repo = path.join(root, name);
  const outside = path.join(root, 'outside');
  mkdirSync(path.join(outside, 'dir'), { recursive: true });
  writeFileSync(
    path.join(outside, 'outside.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n  namespace: default\n',
  );
  for (const [rel, text] of Object.entries(c.outsideFiles ?? {})) {
    // A mutation of the first copy may have left a FIFO or a folder there.
    rmSync(path.join(outside, rel), { force: true, recursive: true });
    writeFileSync(path.join(outside, rel), text);
  }
  for (const [rel, content] of Object.entries(c.files)) {
    const bytes =
      typeof content === 'string'
        ? content.replaceAll(FIXTURES_TOKEN, options.fixturesRepository)
        : Buffer.from(content.base64, 'base64');
    for (const abs of [path.join(repo, rel), path.join(outside, OUTSIDE_COPIES, rel)]) {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, bytes);
    }
  }
  for (const m of c.mutations) applyMutation(repo, outside, m, 'inputs');
  return { repo, outside };
}

async function runIn(root: string, c: RepoCase, options: CaseOptions): Promise<CaseOutcome> {
  const { repo, outside } = materialize(root, 'repo', c, options);
  const cache = path.join(root, 'cache');
  const calls: Call[] = [];
  const cli = async (argv: string[], cacheDir = cache, cwd = repo): Promise<Call> => {
    const call = await invoke(argv, cwd, { ...c.env, CAPI_RENDER_CACHE_DIR: cacheDir }, options.timeoutMs ?? 60_000);
    checkOutcome(call, c);
    calls.push(call);
    return call;
  };
  const outsideBefore = snapshot(outside);
  if (c.prebuild) {
    const before = snapshot(repo);
    const first = await cli(['build', '--offline']);
    checkChanges(first, before, snapshot(repo));
    for (const m of c.after) applyMutation(repo, outside, m, 'all');
  }
  const before = snapshot(repo);
  const refusable = refusableFile(repo);
  const build = await cli(['build', '--offline']);
  const after = snapshot(repo);
  checkChanges(build, before, after);
  if (build.code === 0 && refusable) violation(build, `a build succeeded while ${refusable}`);
  // Property 10: `variables` reads what a build reads and writes nothing in the repository; a
  // repository that builds can be described.
  const described = await cli(['variables', '--offline']);
  if (touchedPaths(after, snapshot(repo)).length > 0) violation(described, 'variables wrote into the repository');
  if (build.code === 0 && described.code !== 0) violation(described, 'variables failed on a repository that builds');
  if (build.code === 0) {
    const again = await cli(['build', '--offline']);
    if (again.code !== 0) violation(again, 'a second build of the same inputs failed');
    const touched = touchedPaths(after, snapshot(repo));
    if (touched.length > 0) violation(again, `a second build wrote ${touched.slice(0, 5).join(', ')}`);
    const check = await cli(['check', '--offline']);
    if (check.code !== 0) violation(check, 'check is not clean right after build');
    for (const env of environments(repo)) {
      const printed = await cli(['build', '--offline', '--stdout', '--env', env]);
      if (printed.code === 1 && /error\[removal\]/.test(printed.stderr)) continue;
      if (printed.code !== 0) violation(printed, `build --stdout --env ${env} failed after a successful build`);
      const expected = streamOfFolder(path.join(repo, 'rendered', env));
      if (expected !== undefined && printed.stdout !== expected)
        violation(printed, `build --stdout --env ${env} differs from rendered/${env}`);
    }
    if (touchedPaths(after, snapshot(repo)).length > 0)
      violation(calls.at(-1)!, 'check or --stdout wrote into the repository');
    // Determinism: the same case, made again in another folder, built from an empty cache.
    const second = materialize(root, 'again', c, options);
    const cache2 = path.join(root, 'cache2');
    if (c.prebuild) {
      await cli(['build', '--offline'], path.join(root, 'cache2-pre'), second.repo);
      for (const m of c.after) applyMutation(second.repo, second.outside, m, 'all');
    }
    const fresh = await cli(['build', '--offline'], cache2, second.repo);
    if (fresh.code !== 0) violation(fresh, 'the same case failed in another folder with an empty cache');
    const mine = owned(snapshot(repo));
    const theirs = owned(snapshot(second.repo));
    if (JSON.stringify(mine) !== JSON.stringify(theirs)) {
      const diff = [...new Set([...Object.keys(mine), ...Object.keys(theirs)])].filter((k) => mine[k] !== theirs[k]);
      violation(fresh, `not deterministic: ${diff.slice(0, 5).join(', ')} differ between two builds of the same case`);
    }
  }
  if (build.code === 0 && c.partial && c.partial.length > 0) {
    await runPartialSequence(c.partial, {
      repo,
      environments: environments(repo),
      cli: (argv) => cli(argv),
      changes: checkChanges,
      violation,
    });
  }
  if (changedPaths(outsideBefore, snapshot(outside)).length > 0)
    violation(build, 'a file outside the repository changed');
  checkSecrets(c, repo, [cache, path.join(root, 'cache2')], calls);
  return { code: build.code, error: build.stderr.split('\n').find((l) => l.includes('error[')) };
}

/**
 * What property 7 says no build may succeed with, if the repository holds it: an input linked out of
 * the repository or to nothing, or a lock that is not a regular file. Inputs are looked for where
 * the default settings put them (a case whose capi-render.yaml names other folders is not judged),
 * entries whose names start with `.` aside (no input walk reads them).
 */
function refusableFile(repo: string): string | undefined {
  const lock = lstatOrUndefined(path.join(repo, 'capi-render.lock'));
  if (lock && !lock.isFile()) return 'capi-render.lock is not a regular file';
  const config = (() => {
    // Only a regular file is read here: a FIFO put in its place would block the harness itself.
    if (!lstatOrUndefined(path.join(repo, 'capi-render.yaml'))?.isFile()) return '';
    try {
      return readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8');
    } catch {
      return '';
    }
  })();
  if (/providersDir|overlaysDir/.test(config)) return undefined;
  const real = realpathSync(repo);
  const leaves = (abs: string) => {
    try {
      const rel = path.relative(real, realpathSync(abs));
      return rel.startsWith('..') || path.isAbsolute(rel);
    } catch {
      return true; // dangling, or a loop
    }
  };
  const found: string[] = [];
  const visit = (rel: string) => {
    const abs = path.join(repo, rel);
    const st = lstatOrUndefined(abs);
    if (!st) return;
    if (st.isSymbolicLink()) {
      if (leaves(abs)) found.push(rel);
      return;
    }
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      return; // unreadable (a 'readonly' mutation): the build reports it
    }
    for (const name of names) if (!name.startsWith('.')) visit(`${rel}/${name}`);
  };
  const configEntry = lstatOrUndefined(path.join(repo, 'capi-render.yaml'));
  if (configEntry?.isSymbolicLink() && leaves(path.join(repo, 'capi-render.yaml'))) found.push('capi-render.yaml');
  for (const top of ['providers', 'overlays']) visit(top);
  return found.length > 0 ? `${found[0]} is a link out of the repository or to nothing` : undefined;
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

function owned(snap: Snapshot): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, e] of snap) if (OWNED.test(p)) out[p] = `${e.type}:${e.digest}`;
  return out;
}

/** Wall time per command line (for tuning the campaign's budget). */
export const PROFILE = new Map<string, number>();

/** Runs the CLI in-process; a command that does not finish in time is a violation (a hang). */
async function invoke(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Call> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (t: string) => void (stdout += t) },
    stderr: { write: (t: string) => void (stderr += t) },
    env,
    cwd,
  };
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  let code: number | 'timeout';
  try {
    code = await Promise.race([
      run(argv, io).catch((e: unknown) => {
        throw new PropertyViolation(
          `capi-render ${argv.join(' ')}: uncaught exception: ${(e as Error)?.stack ?? String(e)}`,
        );
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    releaseFifos(cwd);
  }
  PROFILE.set(
    argv.join(' ').replace(/--env \S+/, '--env E'),
    (PROFILE.get(argv.join(' ').replace(/--env \S+/, '--env E')) ?? 0) + (performance.now() - started),
  );
  if (code === 'timeout')
    throw new PropertyViolation(
      `capi-render ${argv.join(' ')} did not finish in ${timeoutMs} ms (a hang); stderr so far: ${stderr.slice(0, 400)}`,
    );
  return { argv, code, stdout, stderr };
}

/** A reader blocked on a FIFO gets end-of-file, so a hung command cannot hold a thread forever. */
function releaseFifos(dir: string): void {
  walkTree(
    dir,
    () => true,
    (abs, st) => {
      if (!st.isFIFO()) return;
      try {
        closeSync(openSync(abs, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader: nothing to release.
      }
    },
  );
}

/**
 * Visits every folder under root, links not followed: `enterFolder` runs before a folder is listed
 * and returns false to leave it unlisted; `visitEntry` sees every entry that is not a folder.
 */
function walkTree(
  root: string,
  enterFolder: (dir: string) => boolean,
  visitEntry: (abs: string, st: Stats) => void,
): void {
  const walk = (d: string) => {
    if (!enterFolder(d)) return;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const abs = path.join(d, n);
      const st = lstatSync(abs);
      if (st.isDirectory()) walk(abs);
      else visitEntry(abs, st);
    }
  };
  walk(root);
}

function violation(call: Call, what: string): never {
  throw new PropertyViolation(
    `${what}\n  command: capi-render ${call.argv.join(' ')} (exit ${call.code})\n  stderr: ${call.stderr.slice(0, 1500).replace(/\n/g, '\n          ')}`,
  );
}

const STACK_LINE = /^\s+at .*(\(|\s)(\/|node:|file:)[^)]*:\d+:\d+\)?$/m;
const LOCATION =
  /\.(ya?ml|lock|json|gz)\b|[A-Z][A-Za-z]+\/[\w.-]+(\/[\w.-]+)?|\b(providers|overlays|rendered|gitops|releases)\/|\benvironment\b|capi-render\.lock/;

/** Properties 1 and 2, and secrets on the terminal. */
function checkOutcome(call: Call, c: RepoCase): void {
  if (![0, 1, 2].includes(call.code)) violation(call, `exit code ${call.code}`);
  if (/internal error/.test(call.stderr)) violation(call, 'an internal error');
  if (STACK_LINE.test(call.stderr) || STACK_LINE.test(call.stdout)) violation(call, 'a stack trace without --debug');
  if (call.code !== 0) {
    const errors = call.stderr.split('\n').filter((l) => /error\[[\w-]+\]/.test(l));
    if (call.code === 1 && errors.length === 0) violation(call, 'exit 1 without an error[code] line');
    for (const line of errors) {
      const block = call.stderr.slice(call.stderr.indexOf(line)).split('\n').slice(0, 3).join('\n');
      if (
        !/^[^\s:][^:]*:\d*:?\d*:? ?error\[/.test(line) &&
        !/^\s+at .*(object|field) /m.test(block) &&
        !LOCATION.test(line)
      )
        violation(call, `an error that names no file or object: ${line}`);
      const m = /^(\S+?\.ya?ml): error\[yaml-(syntax|duplicate-key)\]/.exec(line);
      if (m) violation(call, `a YAML error without a line: ${line}`);
    }
  }
  for (const s of needles(c)) if (call.stderr.includes(s)) violation(call, 'a secret value on stderr');
}

/** Properties 3: only owned paths change, and a failed build changes nothing. */
function checkChanges(call: Call, before: Snapshot, after: Snapshot): void {
  const changed = changedPaths(before, after);
  const foreign = changed.filter((p) => !OWNED.test(p));
  if (foreign.length > 0) violation(call, `changed paths it does not own: ${foreign.slice(0, 5).join(', ')}`);
  if (call.code !== 0 && changed.length > 0)
    violation(call, `a failed build changed ${changed.slice(0, 5).join(', ')}`);
}

function needles(c: RepoCase): string[] {
  return c.secrets.flatMap((s) => [s, Buffer.from(s).toString('base64')]);
}

/** Property 6 over every file of the repository and caches, and every command's output. */
function checkSecrets(c: RepoCase, repo: string, caches: string[], calls: Call[]): void {
  const list = needles(c);
  if (list.length === 0) return;
  const inputs = new Set(Object.keys(c.files));
  for (const call of calls) {
    const printed = call.argv.includes('--stdout');
    if ((!c.plaintext || !printed) && list.some((s) => call.stdout.includes(s)))
      violation(call, 'a secret value on stdout');
  }
  const scan = (dir: string, allowed: (rel: string) => boolean) => {
    for (const [rel, e] of snapshot(dir)) {
      if (e.type !== 'file' || allowed(rel)) continue;
      let text: string;
      try {
        text = readFileSync(path.join(dir, rel)).toString('latin1');
      } catch {
        continue;
      }
      const hit = list.find((s) => text.includes(s));
      if (hit) violation(calls.at(-1)!, `a secret value written to ${dir === repo ? rel : `the cache (${rel})`}`);
    }
  };
  // Inputs hold secrets legitimately (and their mutated copies in providers/ and overlays/).
  scan(
    repo,
    (rel) =>
      inputs.has(rel) || /^(providers|overlays|releases)\//.test(rel) || (c.plaintext && rel.startsWith('rendered/')),
  );
  // The cache keeps parsed release files: a value a mutation put into one (a release linked to the
  // Secret manifest) is release text by then, held in the repository already, not a secret's leak.
  const inRelease = [...snapshot(path.join(repo, 'releases')).keys()].some((rel) => {
    try {
      // Through links (the release read them so), regular files only: a FIFO would block the campaign.
      const file = path.join(repo, 'releases', rel);
      if (!statSync(file).isFile()) return false;
      return list.some((s) => readFileSync(file).toString('latin1').includes(s));
    } catch {
      return false;
    }
  });
  if (!inRelease) for (const cache of caches) if (existsSync(cache)) scan(cache, () => false);
}

/** The environments a build wrote (folders of rendered/ with a kustomization). */
function environments(repo: string): string[] {
  const dir = path.join(repo, 'rendered');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((e) => existsSync(path.join(dir, e, 'kustomization.yaml')))
    .sort();
}

/** rendered/<env> as the stream --stdout prints: its components' files in kustomization order. */
function streamOfFolder(folder: string): string | undefined {
  const list = (dir: string) =>
    (jsYaml.load(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources?: string[] }).resources ??
    [];
  const docs: string[] = [];
  for (const component of list(folder)) {
    const dir = path.join(folder, component);
    if (!existsSync(path.join(dir, 'kustomization.yaml'))) return undefined;
    for (const file of list(dir)) docs.push(readFileSync(path.join(dir, file), 'utf8'));
  }
  return docs.join('---\n');
}

/** Gives back write and read permission everywhere under root, so it can be removed. */
function unlockModes(root: string): void {
  walkTree(
    root,
    (d) => {
      try {
        chmodSync(d, 0o755);
        return true;
      } catch {
        return false;
      }
    },
    () => {},
  );
}
