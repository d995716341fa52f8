import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [svelte({ configFile: new URL('./svelte.config.js', import.meta.url).pathname })],
  test: {
    include: [
      'src-main/**/*.test.ts',
      'src-common/**/*.test.ts',
      'src-sim/**/*.test.ts',
      'src-renderer/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    exclude: ['test/e2e/**', 'node_modules/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
