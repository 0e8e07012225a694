/**
 * Sub-agents (docs/subagents.md): a run's calls of its declared agents run as child runs, and what
 * waits for a person in its children reaches it and its own parent.
 */
import type { AgentStateView } from '../../../contracts/agent-run';
import type { RunFeature } from '../../agent/feature';
import { runSubAgent } from './child-run';
import { registerChildWaits, reportWaits } from './child-waits';

export { runChild, type ChildOutcome, type ChildStart } from './child-run';

export const subAgents: RunFeature = {
  name: 'sub-agents',
  register: registerChildWaits,
  view({ state }): Pick<AgentStateView, 'childApprovals' | 'childClientToolRequests'> {
    const reports = Object.values(state.childWaits ?? {});
    const approvals = reports.flatMap((r) => r.approvals);
    const clientTools = reports.flatMap((r) => r.clientTools);
    return {
      ...(approvals.length ? { childApprovals: approvals } : {}),
      ...(clientTools.length ? { childClientToolRequests: clientTools } : {}),
    };
  },
  runs: { agent: runSubAgent },
  waitsChanged: reportWaits,
};
