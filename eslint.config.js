// @ts-check
import js from '@eslint/js'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * Layers of src-main, highest first: a layer may import only from layers listed after it (and from
 * src-common, below them all).
 */
const layers = [
  'ipc',
  'services',
  'intake',
  'sync',
  'export',
  'store',
  'api',
  'secrets',
  'chem',
  'shared',
]

/** @param {string} layer */
const importsAbove = (layer) =>
  layers
    .slice(0, layers.indexOf(layer))
    .flatMap((above) => [`../${above}/**`, `../../${above}/**`, `../../../${above}/**`])

const rawIpc = {
  name: 'electron',
  importNames: ['ipcMain', 'ipcRenderer'],
  message: 'Use the typed contract: src-main/electron/ipc-host.ts (main) or the preload bridge.',
}

export default tseslint.config(
  {
    ignores: ['node_modules/', 'out/', 'dist/', 'test-artifacts/', 'bench-results/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [rawIpc] }],
    },
  },
  {
    files: ['src-main/electron/ipc-host.ts', 'src-main/preload/index.ts', '**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  ...layers.map((layer) => ({
    files: [`src-main/${layer}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [rawIpc],
          patterns: [
            {
              group: [
                ...importsAbove(layer),
                '**/electron/**',
                '**/cli/**',
                '**/web/**',
                '**/src-sim/**',
              ],
              message: `src-main/${layer} may import only from layers below it (see ARCHITECTURE.md).`,
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['src-main/services/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [rawIpc],
          patterns: [
            {
              group: ['../ipc/**', '**/electron/**', '**/cli/**', '**/web/**'],
              message: 'services sit below the hosts and the contract.',
            },
          ],
        },
      ],
    },
  },
  {
    // The common layer is pure: every runtime (main, workers, preload, renderer) may import it.
    files: ['src-common/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.bench.ts'],
    languageOptions: { globals: { ...globals.es2024 } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'electron', 'better-sqlite3', 'keytar', 'ws'],
              message: 'src-common is pure TypeScript: no Node, Electron or native modules.',
            },
            {
              group: ['**/src-main/**', '**/src-renderer/**', '**/src-sim/**'],
              message: 'src-common imports nothing from the runtimes that import it.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['window', 'document', 'navigator', 'localStorage', 'process', 'Buffer', 'require'].map(
          (name) => ({
            name,
            message: 'src-common runs in every runtime: no DOM or Node globals.',
          }),
        ),
      ],
    },
  },
  {
    files: ['src-sim/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src-main/**'], message: 'The simulator shares no code with the client.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.svelte', 'src-main/web/harness-client.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src-main/**', '!**/src-main/ipc/contract.ts'],
              message:
                'The renderer imports src-common, and types from the contract (src-main/ipc/contract.ts) only.',
            },
            {
              group: ['**/src-main/ipc/contract.ts'],
              allowTypeImports: true,
              message: 'The renderer may import only types from the contract.',
            },
            {
              group: ['node:*', 'electron'],
              message: 'The renderer has no Node or Electron access.',
            },
            {
              // Their zod schemas compile with eval, which the window's CSP refuses.
              group: ['**/src-common/outbox/payloads/*', 'zod'],
              allowTypeImports: true,
              message:
                'The renderer may import only types from the outbox payloads (their zod schemas need eval).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests run under Node (vitest): they may start reference tools, as src-common's do.
    files: ['src-renderer/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src-main/**', '!**/src-main/ipc/contract.ts'],
              message:
                'The renderer imports src-common, and types from the contract (src-main/ipc/contract.ts) only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        extraFileExtensions: ['.svelte'],
        parser: tseslint.parser,
      },
    },
  },
)
