/**
 * Sub-agents (docs/subagents.md): a run's calls of its declared agents run as child runs, and what
 * waits for a person in its children reaches it and its own parent.
 */
import type { AgentStateView } from '../../../contracts/agent-run';
import { maxParallelAgents } from '../../../policy/sub-agents';
import type { RunFeature } from '../../agent/feature';
import { runSubAgent } from './child-run';
import { registerChildWaits, reportWaits, waitsInChildren } from './child-waits';

export { runChild, type ChildOutcome, type ChildStart } from './child-run';

export const subAgents: RunFeature = {
  name: 'sub-agents',
  register: registerChildWaits,
  waitsHeld: waitsInChildren,
  view(run): Pick<AgentStateView, 'childApprovals' | 'childClientToolRequests'> {
    const { approvals, clientTools } = waitsInChildren(run);
    return {
      ...(approvals.length ? { childApprovals: approvals } : {}),
      ...(clientTools.length ? { childClientToolRequests: clientTools } : {}),
    };
  },
  together: (spec) => ({ agent: maxParallelAgents(spec) }),
  runs: { agent: runSubAgent },
  waitsChanged: reportWaits,
};
