import { defineConfig } from 'vitest/config';

/**
 * Tests whose assertion is a rate (requests per second across processes): they run one file at
 * a time, after the parallel suites, so the machine's other tests do not decide their figure.
 *   TEST_DATABASE_URL=postgres://… npx vitest run --config server/vitest.serial.config.ts
 */
export default defineConfig({
  test: {
    name: 'server-serial',
    root: import.meta.dirname,
    include: ['test/**/*.serial.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
