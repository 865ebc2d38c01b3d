import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': `${import.meta.dirname}/src` } },
  test: { name: 'web', environment: 'jsdom', include: ['test/**/*.test.tsx', 'src/**/*.test.tsx'], setupFiles: ['test/setup.ts'] },
});
