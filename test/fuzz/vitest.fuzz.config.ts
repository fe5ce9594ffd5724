// The long fuzz campaign only (npm run fuzz); npm test runs the bounded one in test/fuzz/*.test.ts.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/fuzz/long-run.fuzz.ts'],
    testTimeout: 0,
    hookTimeout: 60_000,
    // The cases' repositories on a memory file system, as in npm test (test/helpers/memory-tmp.ts).
    globalSetup: ['test/helpers/memory-tmp.ts'],
  },
});
