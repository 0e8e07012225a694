/** The facts of the built-in kinds (`contracts/kind-facts.ts`), and finding a kind's by name. */
import type { KindFacts } from '../contracts/kind-facts';
import { PEV_FACTS } from './pev/pev-facts';

export const REACT_FACTS: KindFacts = {
  name: 'react',
  workflowType: 'reactAgentWorkflow',
  masks: true,
  callSettings: 'all',
};

export const BUILT_IN_KIND_FACTS: readonly KindFacts[] = [REACT_FACTS, PEV_FACTS];

/** The default kind of a run and of a sub-agent. */
export const DEFAULT_KIND = REACT_FACTS.name;

/** The facts of the kind named `name` among `known` (default: the built-in kinds). */
export const kindFactsOf = (name: string, known: readonly KindFacts[] = BUILT_IN_KIND_FACTS): KindFacts | undefined =>
  known.find((k) => k.name === name);
