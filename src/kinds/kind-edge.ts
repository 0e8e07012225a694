/**
 * An agent kind at the edges (docs/design.md, Agent kinds): what the client and the CLI need of a
 * kind to start its runs and show them. Its loop is in its workflow; this is the rest: its own
 * start options and the workflow input built from them, the flags `run` takes for it, the lines
 * `state` prints of its own state, and what its runs wait for besides tool approvals. The client
 * and the CLI dispatch on the run's kind through a {@link KindRegistry}; they never name a kind.
 */
import type { AgentStateView } from '../contracts/agent-run';
import type { AgentConfig } from '../contracts/run-spec';
import type { AgentWorkflowInput } from '../contracts/agent-workflows';
import type { ModelName } from '../contracts/model-ref';
import type { KindFacts } from '../contracts/kind-facts';

/**
 * Each kind's own start options, under its {@link KindEdge.optionsKey}. A kind adds its entry by
 * declaration merging beside its edge (`declare module '…/kinds/kind-edge'`, or
 * `'durable-agents/client'` outside this package), so the client's start options type it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface KindStartOptions {}

/**
 * One flag `run` (and `schedule create`) takes for a kind. Its value goes into the kind's options;
 * any of a kind's flags given with another `--agent` is refused, naming the flags.
 */
export interface KindFlag<O = unknown, V = unknown> {
  /** As commander writes it: `--max-cycles <n>`, `--role-model <role=spec>` (see `parse`), `--confirm-plan`. */
  readonly flags: string;
  /** What it sets, for `--help`; the CLI puts `<kind> agent: ` before it. */
  readonly description: string;
  /**
   * Reads one value, given the values read before it (a flag whose parser collects is repeatable).
   * Throws with a one-line reason for a bad value, which the CLI shows as the flag's usage error.
   * Without it the value is the text (a boolean flag: `true`).
   */
  parse?(value: string, previous: V | undefined): V;
  /**
   * The kind's options with this flag's value in them. May read the files a flag names; throws with
   * a one-line reason naming the flag when it cannot, a usage error of the command.
   */
  apply(options: O, value: V): O;
}

/** A flag of a kind, its value type read from its parser. */
export const kindFlag = <O, V>(
  flags: string,
  description: string,
  parse: ((value: string, previous: V | undefined) => V) | undefined,
  apply: (options: O, value: V) => O,
): KindFlag<O, V> => ({ flags, description, ...(parse ? { parse } : {}), apply });

/** Something other than a tool call that a kind's run waits for a person to decide (pev: its plan). */
export interface KindWait {
  /** What waits, as the end of "waits for …": `a decision on the plan of cycle 2`. Announced once per text. */
  what: string;
  /** The progress line's words while it waits: `awaiting plan approval`. */
  words: string;
  /**
   * The commands that decide it, after the program's name, by what each does:
   * `{ approve: 'plan ID', reject: 'plan ID --reject --feedback TEXT' }`.
   */
  commands(id: string): Record<string, string>;
}

/**
 * A kind as the client and the CLI see it. `O` is its own start options. Every hook is optional
 * and pure of I/O except `KindFlag.apply`; none is called inside a workflow. A hook that throws
 * fails the client call or the command that called it, with its message; one that returns
 * nothing (`undefined`, no lines) adds nothing, as if the kind had no such hook.
 */
export interface KindEdge<O = unknown> {
  /**
   * What the kind is (`contracts/kind-facts.ts`): its name (`--agent NAME`, the spec's `kind`, the
   * `DurableAgentKind` search attribute), its workflow type, its defaults, whether each step has a
   * prompt of its own, and the role whose structured answer each phase streams.
   */
  readonly facts: KindFacts;
  /**
   * Where its own options are, in the start options ({@link KindStartOptions}) and in the workflow
   * input alike (pev: `pev`). Without it the kind takes none and the input is `{ config }`.
   */
  readonly optionsKey?: string;
  /** Problems with its own options, one readable line each; none when they are absent. */
  optionProblems?(options: O | undefined): string[];
  /**
   * The workflow input of a checked start (`options` after `optionProblems` found none). Default:
   * the config, and the options under `optionsKey` when given.
   */
  input?(config: AgentConfig, options: O | undefined): AgentWorkflowInput;
  /** The models its options name besides the run's (checked against the workers' providers and the registry). */
  models?(options: O): ModelName[];
  /** Markdown lines its options add to the run's details in the Web UI (`- **Mode** plan`). */
  details?(options: O): string[];
  /** The flags `run` takes for it (see {@link KindFlag}). */
  readonly flags?: readonly KindFlag<O>[];
  /** The lines `state` prints of the fields its `view` hook adds to the state view. */
  stateLines?(view: AgentStateView): string[];
  /** What its run waits for a person to decide besides tool calls, or nothing. */
  waiting?(view: AgentStateView): KindWait | undefined;
}
