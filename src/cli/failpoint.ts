/**
 * A test hook for the interruption tests: `CAPI_RENDER_TEST_KILL_AT=<step>:<n>` makes the process
 * kill itself with SIGKILL at the n-th time the writer reaches `<step>` (stage, commit, committed,
 * apply, remove, record, lock; for `mirror --images --to`, blob, publish and archive). Unset — always,
 * outside those tests — it does nothing. Read here, at the CLI's edge, so the library never looks
 * at the environment.
 */
import type { Failpoint } from '../output/apply-staged.js';

export function failpointFromEnv(env: Readonly<Record<string, string | undefined>>): Failpoint | undefined {
  const m = /^([a-z]+):(\d+)$/.exec(env.CAPI_RENDER_TEST_KILL_AT ?? '');
  if (!m) return undefined;
  const step = m[1]!;
  let left = Number(m[2]);
  return (name) => {
    if (name === step && --left <= 0) process.kill(process.pid, 'SIGKILL');
  };
}
