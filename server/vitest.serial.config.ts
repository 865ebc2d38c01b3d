import { defineConfig } from 'vitest/config';

/**
 * Tests whose assertion is a rate (a number's pacing, Kommo's limit across processes): they run
 * one file at a time, after the parallel suites, so the machine's other tests do not decide
 * their figure. On the embedded database, and on PostgreSQL with TEST_DATABASE_URL:
 *   npm run test:serial
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
