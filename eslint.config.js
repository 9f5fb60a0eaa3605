import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      '.tmp',
      'data',
      'bench/results',
      'coverage',
      'test/fixtures/formats',
      'test/fixtures/live',
      'web/dist',
      'packages/cli/dist',
      'web/src/api/schema.d.ts',
      'test-results',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The domain rooms hold the rules for findings, src/errors.ts the error type services throw;
    // they know no web framework and no module.
    files: ['src/domain/**/*.ts', 'src/errors.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/**', '**/modules/**'],
              message: 'src/domain and src/errors.ts import nothing from http/ or modules/.',
            },
            {
              group: ['fastify', 'fastify/**', '@fastify/**'],
              message: 'src/domain and src/errors.ts are framework-free.',
            },
            {
              group: ['**/config.ts', '**/config'],
              message: 'src/domain and src/errors.ts take no configuration.',
            },
          ],
        },
      ],
    },
  },
);
