/** Every workflow the worker registers. The worker bundles this file. */
export { reactAgentWorkflow } from './agent';
export { pevAgentWorkflow } from './pev';
