import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  // The chart library takes react-is as a peer: this app's copy (React 19's), not an older one hoisted for the test tools.
  resolve: { alias: { '@': `${import.meta.dirname}/src` }, dedupe: ['react-is'] },
  server: { port: 5173, proxy: { '/api': 'http://127.0.0.1:3000' } },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1000 },
});
