/** What the tests' workers register: every production workflow plus the test-only ones. */
export * from '../../src/workflows';
export { helloWorkflow } from './hello-workflow';
export { reflectAgentWorkflow } from '../../examples/reflect-agent';
export { plannedFirstWorkflow } from './planned-first-workflow';
