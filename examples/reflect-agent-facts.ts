/**
 * What the reflect kind is, as data both its workflow and its edge read (and a run that delegates
 * to a reflect sub-agent carries): its name, workflow type and defaults.
 */
import type { KindFacts } from '../src/workflow';

export const REFLECT_FACTS: KindFacts = {
  name: 'reflect',
  workflowType: 'reflectAgentWorkflow',
  // Its answer and revision may read a masked result back; the critique refuses tools.
  masks: true,
  callSettings: 'all',
};
