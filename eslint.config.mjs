import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', '.temporal', '.s3-research', 'dist', 'coverage', 'bench/results', 'bench/alternatives', 'test/artifacts', 'examples/*/node_modules', 'examples/*/dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Workflow code must stay deterministic: no Node APIs, no activity implementations.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'crypto', 'http', 'openai'], message: 'workflow code must stay deterministic: no Node APIs or network clients' },
            { group: ['../activities/*', '../agents/*', '../client/*', '../worker/*', '../devtools/*'], allowTypeImports: true, message: 'workflow code may only `import type` from activities, agents, client or worker' },
          ],
        },
      ],
    },
  },
  {
    // The shared domain: plain TypeScript that the workflow, activities, agents and client all import. Sandbox-safe
    // (no Node APIs), and no Temporal runtime: the approval book and the run state are unit-tested without a server.
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'crypto', 'http', 'openai'], message: 'domain code is shared with the workflow sandbox: no Node APIs or network clients' },
            { group: ['@temporalio/workflow', '@temporalio/activity', '@temporalio/worker', '@temporalio/client'], message: 'domain code has no Temporal runtime; the workflow wires it to handlers, timers and activities' },
            // The wire contract (workflows/messages.ts) is shared by every layer; the rest of workflows/ is sandbox code.
            { group: ['../activities/*', '../agents/*', '../client/*', '../worker/*', '../devtools/*', '../workflows/*', '!../workflows/messages'], allowTypeImports: true, message: 'domain code may only `import type` from the other layers' },
          ],
        },
      ],
    },
  },
);
