// Builds the operator console into console/dist, served by the service at /console/ (same origin, no CDN).
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  // Preact's JSX runtime, compiled by Vite's own esbuild: no framework plugin needed.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', modulePreload: { polyfill: false } },
});
