// The project's lint rules, run by scripts/lint.mjs (npm run lint). The root eslint.config.js
// re-exports this file so that paths are read from the repository root, while typescript-eslint (and
// the TypeScript 6 it reads programs with) resolve from this folder's own node_modules.
import tseslint from 'typescript-eslint';

const typed = {
  files: ['src/**/*.ts', 'test/**/*.ts', 'vitest.config.ts'],
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: process.cwd() },
  },
  plugins: { '@typescript-eslint': tseslint.plugin },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': 'error',
    '@typescript-eslint/await-thenable': 'error',
    '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    '@typescript-eslint/no-import-type-side-effects': 'error',
    // prettier wraps code at 120 columns but leaves comments and strings as written: comments are
    // held to 160 here; a long string stays whole so that a message can be found by searching for it.
    'max-len': [
      'error',
      { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
    ],
  },
};

export default [
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'tools/lint/node_modules/**',
      'test/fixtures/**',
      'test-artifacts/**',
      'bench/out/**',
      'coverage/**',
    ],
  },
  typed,
];
