/** The ReAct kind at the edges: it takes no options of its own and adds nothing to the state view. */
import { AGENT_WORKFLOWS } from '../contracts/agent-workflows';
import type { KindEdge } from './kind-edge';

export const reactEdge: KindEdge = { name: 'react', workflowType: AGENT_WORKFLOWS.react };
