import os from 'node:os'
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
    globalSetup: ['test/support/demo-snapshot-setup.ts'],
    pool: 'forks',
    // Vitest's default, one worker fewer than the CPUs, runs one file at a time on the 2-core CI
    // machine and leaves a core idle whenever that file waits on a server, a child process or disk.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
