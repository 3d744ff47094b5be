import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersRule } from './eslint/layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      '.temporal',
      '.cli-cache',
      '.s3-research',
      'dist',
      'coverage',
      'bench/results',
      'bench/alternatives',
      'test/artifacts',
      'examples/*/node_modules',
      'examples/*/dist',
      'test/fixtures/layers',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The layer table (eslint/layers.mjs): which folder may import which, and which packages each may use.
    plugins: { countersign: { rules: { layers: layersRule } } },
    files: ['**/*.ts'],
    rules: { 'countersign/layers': 'error' },
  },
);
