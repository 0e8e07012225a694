/** The activities of the Planner → Executor → Verifier workflow beyond the agent loop's own. */
import type { PevActivities } from '../../contracts/pev-activities';
import type { ContentStore } from '../../store';
import { heartbeating } from '../heartbeat';
import { preparePevPromptsActivity } from './prepare-prompts';
import { reuseToolResultActivity } from './reuse-tool-result';

export function createPevActivities(deps: { store: ContentStore }): PevActivities {
  return {
    preparePevPrompts: heartbeating(preparePevPromptsActivity(deps.store)),
    reuseToolResult: heartbeating(reuseToolResultActivity(deps.store)),
  };
}
