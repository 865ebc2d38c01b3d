import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  // The chart library takes react-is as a peer: this app's copy (React 19's), not an older one hoisted for the test tools.
  resolve: { alias: { '@': `${import.meta.dirname}/src` }, dedupe: ['react-is'] },
  test: { name: 'web', environment: 'jsdom', include: ['test/**/*.test.tsx', 'src/**/*.test.tsx'], setupFiles: ['test/setup.ts'] },
});
