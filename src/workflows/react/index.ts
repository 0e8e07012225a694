export { reactAgentWorkflow, reactKind } from './react-workflow';
