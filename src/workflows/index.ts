/** Every workflow the worker registers. The worker bundles this file. */
export { reactAgentWorkflow } from './react';
export { pevAgentWorkflow } from './pev';
export { tenantLedgerWorkflow } from './ledger';
export { scoreRecordWorkflow } from './scores';
export { evalWorkflow } from './evals';
