import { defineConfig } from 'vitest/config';

/** `npm test` runs every workspace's suite; the e2e suite runs separately (`npm run test:e2e`). */
export default defineConfig({
  test: {
    projects: ['contract', 'server', 'simulators', 'web'],
  },
});
