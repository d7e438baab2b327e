import { defineConfig } from 'vite';

// The app is served from the built folder by `pufferfish serve`; all assets are local.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: './',
  build: { outDir: new URL('../dist-web', import.meta.url).pathname, emptyOutDir: true, chunkSizeWarningLimit: 4000 },
  worker: { format: 'es' },
});
