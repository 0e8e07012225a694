/**
 * Starting a run: the start options of every kind, and the checks and the workflow start an
 * {@link AgentClient} builds from them before anything is sent.
 */
import { layerRunSpec, RunSpecError } from '../policy/run-spec';
import { runSpecProblems } from '../policy/run-spec-problems';
import { DEFAULT_KIND } from '../policy/kind-facts';
import { modelRefOf, runModels } from '../policy/model-ref';
import { lookupModel } from '../policy/model-registry';
import { runPriority } from '../policy/tenancy';
import { fittingDefaults } from '../policy/sub-agents';
import type { AgentOptions, RunLayer } from '../contracts/agent-options';
import type { AgentConfig } from '../contracts/run-spec';
import type { PreparedStart } from '../contracts/agent-workflows';

export type { PreparedStart };
import type { KindStartOptions } from '../kinds';
import { AgentClientError } from './client-errors';
import type { RunAccess } from './run-access';
import { runDetails, runSummary } from '../policy/run-details';
import { startSearchAttributes } from '../policy/search-attribute-values';
import { newRunId, taskPointer } from './run-metadata';
import { carriedLayer, originMemo, resolveOrigin, withStoredMessages, type ResolvedOrigin } from './sessions';

const withoutAgents = ({ agents: _agents, ...spec }: AgentConfig): AgentConfig => spec;

const TASK_WAY = 'pass it by reference with `run --task-file FILE` (or `taskHash` with the client API)';
const MESSAGES_WAY =
  'give the client the content store the workers read (`store`), which takes the messages by reference';

/** A run's start: the options of every kind, and its kind's own under that kind's key ({@link KindStartOptions}). */
export interface StartAgentOptions extends Omit<AgentOptions, 'model'>, KindStartOptions {
  /** Required unless a layer under the options gives it (the run it goes on from, the client's defaults). */
  model?: AgentOptions['model'];
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
   * it by reference, then the task, and it takes that run's options (its approvals, tools, workspace,
   * sub-agents, model, limits, tenant) under its own. The new run names it in its memo (`continuedFrom`).
   */
  continueFrom?: string;
}

/** A fork: another run from the first turns of an earlier one; what is not given is taken from the earlier run. */
export type ForkOptions = Partial<Omit<StartAgentOptions, 'continueFrom'>> & {
  /** The turns taken over: up to this turn's answer and its tool results. */
  atTurn: number;
};

/**
 * A run's start, checked and built but not sent: the workflow type and its input, with the run's summary,
 * details, memo and search attributes ({@link AgentClient.prepareStart}). `earlier` is the run it goes
 * on from, when a fork resolved it already.
 */
export async function prepareStart(
  access: RunAccess,
  startOptions: StartAgentOptions,
  earlier?: ResolvedOrigin,
): Promise<PreparedStart> {
  const { continueFrom, id: givenId, taskHash, taskQueue, ...options } = startOptions;
  const from = earlier ?? (continueFrom ? await resolveOrigin(access.client, continueFrom) : undefined);
  const kind = options.kind ?? from?.config?.kind ?? DEFAULT_KIND;
  const edge = access.kinds.find(kind);
  if (!edge) throw new AgentClientError(`unknown agent kind "${kind}"; known: ${access.kinds.names.join(', ')}`);
  const own = access.kinds.ownOptions(edge, options);
  const ownKeys = new Set(access.kinds.edges.flatMap((e) => (e.optionsKey ? [e.optionsKey] : [])));
  const runOptions = Object.fromEntries(Object.entries(options).filter(([key]) => !ownKeys.has(key))) as RunLayer;
  const kindProblems = [
    ...(edge.optionProblems?.(own) ?? []),
    ...access.kinds
      .misplaced(edge, options)
      .map((other) => `${other.optionsKey} options apply to ${other.facts.name} runs only, not ${kind}`),
  ];
  const { defaults, notice } = access.options;
  let spec: AgentConfig;
  try {
    spec = layerRunSpec(
      edge.facts,
      [
        defaults,
        from?.config && carriedLayer(from.config, edge.facts),
        { ...runOptions, ...(from ? { session: { ...runOptions.session, from: from.origin } } : {}) },
      ],
      access.kinds.facts,
    );
  } catch (err) {
    if (!(err instanceof RunSpecError)) throw err;
    throw new AgentClientError(`invalid run options: ${[...err.problems, ...kindProblems].join('; ')}`);
  }
  const defaultAgents = Object.keys(defaults?.agents ?? {}).filter((n) => !(n in (runOptions.agents ?? {})));
  const { agents, left } = fittingDefaults(spec, defaultAgents);
  spec = { ...withoutAgents(spec), ...(agents ? { agents } : {}) };
  for (const line of left) notice?.(line);
  if (taskHash) {
    spec.task = taskPointer(spec.task, taskHash);
    spec.taskHash = taskHash;
  }
  const problems = [...runSpecProblems(spec), ...kindProblems];
  if (problems.length === 0) {
    const models = runModels(spec, access.kinds.models(kind, options).map(modelRefOf));
    const infos = models.map((m) => lookupModel(m, access.options.models));
    problems.push(...runSpecProblems(spec, infos), ...access.providerProblems(models));
  }
  if (problems.length > 0) throw new AgentClientError(`invalid run options: ${problems.join('; ')}`);
  spec = await withStoredMessages(spec, access.store);
  const task = startOptions.task;
  const input = access.kinds.input(edge, spec, own);
  const inline = Array.isArray(spec.session?.initialMessages);
  await access.payloadLimit.check(
    input,
    inline ? 'the task with its initialMessages' : 'the task',
    inline ? MESSAGES_WAY : TASK_WAY,
  );
  const priority = runPriority(spec.fleet);
  return {
    workflowType: edge.facts.workflowType,
    workflowId: givenId ?? newRunId(task),
    taskQueue: taskQueue ?? access.taskQueue,
    args: [input],
    staticSummary: runSummary(kind, task),
    staticDetails: runDetails(spec, task, own === undefined ? [] : (edge.details?.(own) ?? [])),
    ...(from ? { memo: originMemo(from.origin) } : {}),
    ...(spec.searchAttributes === false ? {} : { typedSearchAttributes: startSearchAttributes(spec, task) }),
    ...(priority ? { priority } : {}),
  };
}
