import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'simulators', include: ['test/**/*.test.ts'], testTimeout: 20000 },
});
