import { defineConfig } from 'vitest/config';

/** The short benches CI runs (bench/short): one file, one test at a time, on a machine left to them. */
export default defineConfig({
  test: {
    name: 'bench-short',
    root: import.meta.dirname,
    include: ['short/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
