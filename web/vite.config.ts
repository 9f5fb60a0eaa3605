import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The browser UI. `npm run web:build` writes web/dist, which the server serves at `/`;
// `npm run web:dev` serves it with hot reload and sends /api to a server on port 3000.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
