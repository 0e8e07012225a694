/**
 * What a kind of agent is, as data every layer may read, the workflow sandbox included
 * (docs/design.md, Agent kinds): the workflow type its runs start as, and the defaults and rules
 * generic code applies to its runs. The built-in kinds' facts are in `policy/kind-facts.ts`; an
 * application's kind gives its own to its edge (`KindEdge.facts`), and a run that delegates to it
 * carries them in the sub-agent's declaration.
 */

/** Who gives a structured answer: a pev role, or (`answer`) a run with a JSON response format. */
export type AnswerRole = 'planner' | 'executor' | 'verifier' | 'answer';

export interface KindFacts {
  /** `--agent NAME`, the spec's `kind`, the DurableAgentKind search attribute. */
  name: string;
  /** The workflow type its runs start as (registered by the workers that run it). */
  workflowType: string;
  /** Old tool results are masked by default: its turns can call `read_tool_result` to read one back. */
  masks: boolean;
  /**
   * Set when each step has a system prompt of its own; says where it comes from. A run's
   * `systemPrompt` is then refused with this text, and a sub-agent's instructions are not its prompt.
   */
  ownPrompts?: string;
  /**
   * Whether the run's output format and tool choice apply (`all`), or only the settings of length,
   * sampling and thinking (`sampling`: its steps set their own format and tool choice).
   */
  callSettings: 'all' | 'sampling';
  /** Its own stop reasons, for runs that completed short of their goal (`list --stop-reason` takes them). */
  endReasons?: readonly string[];
  /** The role whose structured answer the model call of each phase streams, by phase. */
  answerRoles?: Record<string, AnswerRole>;
}
