/** Every workflow the worker registers. The worker bundles this file. */
export { helloWorkflow } from './hello';
export { reactAgentWorkflow } from './agent';
export { pevAgentWorkflow } from './pev';
