import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longest-first.js';

// Tests import the package by name; TEST_DIST=1 runs them against the compiled output instead.
const entry = process.env.TEST_DIST === '1' ? './dist/index.js' : './src/index.ts';

export default defineConfig({
  resolve: {
    alias: { 'capi-render': fileURLToPath(new URL(entry, import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Temporary folders on a memory file system where there is one (test/helpers/memory-tmp.ts).
    globalSetup: ['test/helpers/memory-tmp.ts'],
    // Longest files first, from a fresh clone too (test/helpers/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    // Many tests wait on child processes (kubectl, builds, a registry) or the file system; more
    // workers than the default (cores - 1) keep both cores busy.
    maxWorkers: 3,
    hookTimeout: 60_000,
    // Under CI=1 a missing snapshot fails instead of being written. Vitest 4.1 does this already
    // when CI is set (std-env); stated here so it never rests on that default. Golden files that
    // tests write themselves follow the same rule (test/helpers/golden.ts).
    update: process.env.CI ? 'none' : undefined,
  },
});
