/** Every workflow the worker registers. The worker bundles this file. */
export { helloWorkflow } from '../../test/kit/hello-workflow';
export { reactAgentWorkflow } from './agent';
export { pevAgentWorkflow } from './pev';
