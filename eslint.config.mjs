// Lint rules. The important ones: the layers of src/ (scripts/layers.js) may only import downward,
// one no-restricted-imports rule per folder; and workflow-safe code (common, contracts, policy,
// workflows) must stay deterministic and sandbox-safe, so Node built-ins and SDK clients are import
// errors there.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules, createRequire } from 'node:module';

const { LAYERS, ENTRIES, FEATURES, SANDBOX_LAYERS, forbidden } = createRequire(import.meta.url)('./scripts/layers.js');

const nodeBuiltins = builtinModules.flatMap((m) => [m, `node:${m}`, `${m}/*`, `node:${m}/*`]);

const sandboxImports = {
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
  ],
};

const sandboxRules = {
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
};

/** An upward or sideways import: a relative path that climbs to src/ and names a forbidden folder. */
function layerPatterns(layer) {
  const names = forbidden(layer);
  if (names.length === 0) return [];
  return [
    {
      regex: `^(\\.\\./)+(${names.join('|')})(/|$)`,
      message: `src/${layer} may import only from ${['its own folder', ...LAYERS[layer]].join(', ')} (see scripts/layers.js).`,
    },
  ];
}

/** The same from an entry file at the top of src/ (`./cli/…`). */
function entryPatterns(layer) {
  const names = forbidden(layer);
  if (names.length === 0) return [];
  return [
    { regex: `^\\./(${names.join('|')})(/|$)`, message: `this entry belongs to src/${layer} (see scripts/layers.js).` },
  ];
}

/** The core of the workflows may import a feature module only through the one list. */
const featurePatterns = (layer) =>
  layer === 'workflows'
    ? [
        {
          regex: '^\\.\\./features/.+',
          message: `${FEATURES.core} calls its features through their one list: import '../features', not a feature module.`,
        },
      ]
    : [];

/** One config block per layer (and per entry file): its import rule, plus the sandbox rules for workflow-safe layers. */
const layerConfigs = [
  ...Object.keys(LAYERS).map((layer) => [`src/${layer}/**/*.ts`, layer, layerPatterns(layer)]),
  ...Object.entries(ENTRIES).map(([file, layer]) => [`src/${file}`, layer, entryPatterns(layer)]),
  [`src/${FEATURES.core}/**/*.ts`, 'workflows', [...layerPatterns('workflows'), ...featurePatterns('workflows')]],
].map(([files, layer, patterns]) => {
  const sandbox = SANDBOX_LAYERS.includes(layer);
  const config = {
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        sandbox ? { paths: sandboxImports.paths, patterns: [...sandboxImports.patterns, ...patterns] } : { patterns },
      ],
    },
  };
  if (sandbox) Object.assign(config.rules, sandboxRules);
  return config;
});

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
      // One import statement per module: types join the values as `type X` specifiers.
      'no-duplicate-imports': ['error', { includeExports: false }],
    },
  },
  ...layerConfigs,
  {
    // Prettier breaks code at 120; long strings and comments are broken by hand.
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 120, ignoreUrls: true }] },
  },
  {
    // The workflow entry re-exports only workflow-safe layers; example workflows are workflow code too
    // (an example kind's edge and command line run beside the client).
    files: ['src/workflow.ts', 'examples/**/*.ts'],
    ignores: ['examples/**/*.test.ts', 'examples/**/*-edge.ts', 'examples/**/*-cli.ts'],
    rules: { 'no-restricted-imports': ['error', sandboxImports], ...sandboxRules },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
