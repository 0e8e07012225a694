/** What the tests' workers register: every production workflow plus the test-only ones. */
export * from '../../src/workflows';
export { helloWorkflow } from './hello-workflow';
export { failedRunWorkflow } from './failed-run-workflow';
export { reflectAgentWorkflow } from '../../examples/reflect-agent';
