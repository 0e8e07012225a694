/**
 * Starting a run: the start options of every kind, and the checks and the workflow start an
 * {@link AgentClient} builds from them before anything is sent.
 */
import type { Priority, SearchAttributePair } from '@temporalio/common';
import { buildAgentConfig, configProblems, modelOptionProblems } from '../policy/agent-config';
import { reservedNameProblems } from '../policy/reserved-tool-names';
import { modelRefOf, runModels } from '../policy/model-ref';
import { runModelProblems } from '../policy/call-settings';
import { lookupModel } from '../policy/model-registry';
import { runPriority } from '../policy/tenancy';
import type { AgentOptions } from '../contracts/agent-options';
import type { AgentWorkflowInput } from '../contracts/agent-workflows';
import type { KindStartOptions } from '../kinds';
import { AgentClientError } from './client-errors';
import type { RunAccess } from './run-access';
import { newRunId, runDetails, runSummary, startSearchAttributes, taskPointer } from './run-metadata';
import { originMemo, resolveOrigin } from './sessions';

const TASK_WAY = 'pass it by reference with `run --task-file FILE` (or `taskHash` with the client API)';

/** A run's start: the options of every kind, and its kind's own under that kind's key ({@link KindStartOptions}). */
export interface StartAgentOptions extends AgentOptions, KindStartOptions {
  /**
   * Workflow id; default the task's first words and 12 random hex digits (`add-2-and-3-5f0c…`).
   * An id any run has used before is refused.
   */
  id?: string;
  /**
   * Content-store hash under which the caller stored `task` (as a JSON string), so that it travels by
   * reference: the run writes the stored body as its first user message, and only a short pointer
   * text goes into its input. For tasks too big for one payload (the CLI's `run --task-file`).
   */
  taskHash?: string;
  /** Task queue of the worker; default the client's. */
  taskQueue?: string;
  /**
   * Go on from this run's whole conversation (a run that has ended): the new run's log starts with
   * it by reference, then the task. The new run names it in its memo (`continuedFrom`).
   */
  continueFrom?: string;
}

/** A fork: another run from the first turns of an earlier one; what is not given is taken from the earlier run. */
export type ForkOptions = Partial<Omit<StartAgentOptions, 'continueFrom' | 'from'>> & {
  /** The turns taken over: up to this turn's answer and its tool results. */
  atTurn: number;
};

/** A checked run start, not yet sent: what {@link AgentClient.prepareStart} builds. */
export interface PreparedStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: [AgentWorkflowInput];
  staticSummary: string;
  staticDetails: string;
  /** Set when the run goes on from an earlier one (`continuedFrom`, `forkedAtTurn`). */
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
}

/**
 * A run's start, checked and built but not sent: the workflow type and its input, with the run's summary,
 * details, memo and search attributes ({@link AgentClient.prepareStart}).
 */
export async function prepareStart(access: RunAccess, startOptions: StartAgentOptions): Promise<PreparedStart> {
  const { continueFrom, ...rest } = startOptions;
  const options: StartAgentOptions = continueFrom
    ? { ...rest, from: (await resolveOrigin(access.client, continueFrom)).origin }
    : rest;
  const kind = options.kind ?? 'react';
  const edge = access.kinds.find(kind);
  if (!edge) throw new AgentClientError(`unknown agent kind "${kind}"; known: ${access.kinds.names.join(', ')}`);
  const own = access.kinds.ownOptions(edge, options);
  const kindProblems = [
    ...(edge.optionProblems?.(own) ?? []),
    ...(edge.ownPrompts && options.systemPrompt !== undefined
      ? [`systemPrompt does not apply to ${kind} runs: ${edge.ownPrompts}`]
      : []),
    ...access.kinds
      .misplaced(edge, options)
      .map((other) => `${other.optionsKey} options apply to ${other.name} runs only, not ${kind}`),
  ];
  const modelProblems = modelOptionProblems(options);
  if (modelProblems.length > 0)
    throw new AgentClientError(`invalid run options: ${[...modelProblems, ...kindProblems].join('; ')}`);
  const config = buildAgentConfig({ ...options, kind });
  if (options.taskHash) {
    config.task = taskPointer(options.task, options.taskHash);
    config.taskHash = options.taskHash;
  }
  const problems = [...configProblems(config), ...reservedNameProblems(config.agents), ...kindProblems];
  if (problems.length === 0) {
    const models = runModels(config, access.kinds.models(kind, options).map(modelRefOf));
    problems.push(
      ...access.providerProblems(models),
      ...runModelProblems(
        config,
        models.map((m) => lookupModel(m, access.models)),
      ),
    );
  }
  if (problems.length > 0) throw new AgentClientError(`invalid run options: ${problems.join('; ')}`);
  const id = options.id ?? newRunId(options.task);
  const input = access.kinds.input(edge, config, own);
  await access.payloadLimit.check(input, 'the task', TASK_WAY);
  return {
    workflowType: edge.workflowType,
    workflowId: id,
    taskQueue: options.taskQueue ?? access.taskQueue,
    args: [input],
    staticSummary: runSummary(kind, options.task),
    staticDetails: runDetails(config, options.task, own === undefined ? [] : (edge.details?.(own) ?? [])),
    ...(config.from ? { memo: originMemo(config.from) } : {}),
    ...(config.searchAttributes === false
      ? {}
      : { typedSearchAttributes: startSearchAttributes(config, options.task) }),
    ...priorityOf(config),
  };
}

/** The run's priority as a start option: its workflow tasks are ordered like its activities. */
function priorityOf(config: { tenant?: string; priority?: number }): { priority?: Priority } {
  const priority = runPriority(config);
  return priority ? { priority } : {};
}
