import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Timing figures a loaded machine cannot give run alone: vitest.serial.config.ts.
    exclude: ['**/node_modules/**', 'test/**/*.serial.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database; two cores do not gain from more.
    maxWorkers: 2,
  },
});
