// Lint rules. The important one: workflow-safe code (src/workflows, src/shared) must stay
// deterministic and sandbox-safe, so Node built-ins, SDK clients and activity-side modules
// are import errors there.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`, `${m}/*`, `node:${m}/*`]);

const workflowSafeImports = {
  paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow-safe code must not import Node built-ins.' })),
  patterns: [
    {
      group: ['@anthropic-ai/*', 'openai', 'openai/*', '@modelcontextprotocol/*'],
      message: 'SDK clients belong in activities.',
    },
    {
      group: [
        '@temporalio/client',
        '@temporalio/worker',
        '@temporalio/activity',
        '@temporalio/testing',
        '@temporalio/workflow-streams/client',
      ],
      message:
        'Only @temporalio/workflow, @temporalio/common and @temporalio/workflow-streams/workflow are allowed in workflow-safe code.',
    },
    {
      group: [
        '**/activities',
        '**/activities/*',
        '**/llm',
        '**/llm/*',
        '**/tools',
        '**/tools/*',
        '**/server/*',
        '**/cli/*',
        '**/store/*',
      ],
      message: 'Activity-side modules cannot be imported from workflow-safe code.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.temporal/**',
      'bin/**',
      'scripts/*.js',
      '*.config.*',
      'jest.*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', workflowSafeImports],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use workflow time (or pass time in) in workflow-safe code.' },
        {
          object: 'Math',
          property: 'random',
          message: 'Use workflow uuid4() or deterministic ids in workflow-safe code.',
        },
      ],
      'no-restricted-globals': ['error', 'process', 'setTimeout', 'setInterval', 'require', 'Buffer', 'fetch'],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
