/**
 * A run in an eval (docs/evals.md): its tool calls are answered from a table of served results
 * instead of running the tools. Plain JSON: the `eval` record of the run spec, the run's tally in
 * its state and result.
 */

/** What a served call returns: a result the model reads, or an error as if the tool had thrown it. */
export type ServedResult = { text: string; isError?: boolean } | { throws: string };

/**
 * One row of the table: the calls of `tool` whose arguments hash to `argsHash` (the canonical
 * hash of `args`, or of any arguments when both are absent), answered in order: the call with
 * ordinal n (the n-th such call of the run, from 0) gets `results[n]`. Past the end of `results`
 * a call is unmatched, unless `repeat` serves the last result again.
 */
export interface ServedCall {
  tool: string;
  args?: Record<string, unknown>;
  argsHash?: string;
  results: ServedResult[];
  repeat?: boolean;
}

/**
 * The recorded children of a sub-agent's calls: the call of `agent` whose arguments hash to
 * `argsHash` with ordinal n (per agent and arguments, from 0) starts its child with `runs[n]`.
 */
export interface RecordedChildren {
  agent: string;
  argsHash: string;
  runs: EvalSpec[];
}

/**
 * The eval record of a run spec: what answers the run's tool calls. A sub-agent inherits it, or,
 * when it names `children`, gets its own child's record.
 */
export interface EvalSpec {
  served: ServedCall[];
  /** An unmatched call to a tool without side effects runs live; absent or false: it is drift too. */
  liveReads?: boolean;
  /** The case the run is (for the report). */
  caseName?: string;
  /** Follow-ups queued as the run starts: each starts a turn when the run would otherwise end. */
  followUps?: string[];
  /** Steering that arrives while turn `turn` works, as a person's would: it reaches the model from the next turn. */
  steer?: EvalSteer[];
  /**
   * The run decides its approvals itself: a call of a tool named here gets its decision, any other
   * is rejected. Absent: people decide, as in any run.
   */
  decisions?: EvalDecision[];
  /**
   * A replay's recorded children: each sub-agent call's child is served its own recorded table; a
   * call the recording has no child for starts one with an empty table (each of its calls drifts).
   */
  children?: RecordedChildren[];
}

/** The decision an eval gives the calls of a tool that need approval. */
export interface EvalDecision {
  tool: string;
  decision: 'approve' | 'reject';
  reason?: string;
}

/** A call that had no served result and did not run. */
export interface DriftCall {
  tool: string;
  argsHash: string;
  turn: number;
}

/** How the run's tool calls were answered; kept in state, returned in the result. */
export interface EvalTally {
  served: number;
  live: number;
  /** Calls that had no served result and did not run (exact, even when `driftCalls` is cut). */
  drift: number;
  /** The first of them. */
  driftCalls: DriftCall[];
  /** The run's tools that have side effects, as pinned (what a replay compares the calls of). */
  sideEffectTools?: string[];
  /** The tallies of its sub-agents' runs, as each ended (the first of them; `childDrift` stays exact). */
  children?: ChildTally[];
  /** Drift in its sub-agents' runs, theirs included. */
  childDrift?: number;
}

/** A sub-agent's run and how its calls were answered. */
export interface ChildTally {
  id: string;
  agent: string;
  served: number;
  /** Its drift and its own sub-agents'. */
  drift: number;
}

/** A steering message of an eval's run, and the turn while which it arrives. */
export interface EvalSteer {
  turn: number;
  text: string;
}

/** The run's tally with the ordinals used so far, by row (`row:argsHash`). */
export interface RunEval extends EvalTally {
  ordinals: Record<string, number>;
  /** How many of the record's follow-ups are queued so far. */
  followUpsQueued?: number;
  /** How many of the record's steering messages are queued so far. */
  steered?: number;
}
