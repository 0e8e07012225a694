// The layers of src/ and what each may import (its own folder always). One table, read by
// eslint.config.mjs (one no-restricted-imports rule per folder) and by the import-graph test.
'use strict';

/** Folder under src/ → folders under src/ it may import from. */
const LAYERS = {
  common: [],
  contracts: ['common'],
  policy: ['common', 'contracts'],
  workflows: ['common', 'contracts', 'policy'],
  connection: ['common', 'contracts'],
  store: ['common', 'contracts', 'policy', 'connection'],
  llm: ['common', 'contracts', 'policy'],
  tools: ['common', 'contracts', 'policy'],
  telemetry: ['common', 'contracts', 'connection'],
  activities: ['common', 'contracts', 'policy', 'store', 'llm', 'tools'],
  // `evals` for the eval workflow's grading activity, which grades as the client side does (docs/design.md, Layers).
  worker: ['common', 'contracts', 'policy', 'store', 'llm', 'tools', 'activities', 'connection', 'telemetry', 'evals'],
  kinds: ['common', 'contracts', 'policy'],
  client: ['common', 'contracts', 'policy', 'connection', 'kinds'],
  gateway: ['common', 'contracts', 'policy', 'connection', 'kinds', 'client'],
  evals: ['common', 'contracts', 'policy', 'connection', 'kinds', 'client'],
  codec: ['common', 'contracts', 'policy', 'store', 'llm', 'connection'],
  server: ['common', 'contracts', 'connection', 'codec'],
  testing: [
    'common',
    'contracts',
    'policy',
    'connection',
    'store',
    'llm',
    'tools',
    'activities',
    'worker',
    'client',
    'server',
    'telemetry',
  ],
  cli: [
    'common',
    'contracts',
    'policy',
    'store',
    'llm',
    'tools',
    'activities',
    'connection',
    'worker',
    'kinds',
    'client',
    'gateway',
    'evals',
    'server',
    'codec',
    'testing',
    'telemetry',
  ],
};

/** The package's entry files at the top of src/ and the layer each belongs to (what it may import). */
const ENTRIES = {
  'client.ts': 'client',
  'worker.ts': 'worker',
  'workflow.ts': 'workflows',
};

/**
 * The core of the workflows (`workflows/agent`) calls its features only through their one list
 * (`workflows/features/index.ts`): it may import no feature module but that list.
 */
const FEATURES = { core: 'workflows/agent', features: 'workflows/features' };

/** Layers whose code runs in the workflow sandbox (deterministic, no Node built-ins). */
const SANDBOX_LAYERS = ['common', 'contracts', 'policy', 'workflows'];

/** Folders a layer must not import: every other layer not in its list. */
const forbidden = (layer) => Object.keys(LAYERS).filter((other) => other !== layer && !LAYERS[layer].includes(other));

module.exports = { LAYERS, ENTRIES, FEATURES, SANDBOX_LAYERS, forbidden };
