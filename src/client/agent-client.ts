/**
 * The typed client API of the agent workflows: start a run, send steering and follow-ups,
 * decide approvals, submit client tool results, read state and results, stop, cancel, list.
 */
import crypto from 'node:crypto';
import { InternalConnectionLikeSymbol, type Client, type InternalConnectionLike } from '@temporalio/client';
import { WorkflowIdReusePolicy, type Priority, type SearchAttributePair } from '@temporalio/common';
import { argsHash as hashArgs } from '../policy/approval-rules';
import { buildAgentConfig, configProblems, modelOptionProblems } from '../policy/agent-config';
import { modelNameProblem, modelRefOf, runModels } from '../policy/model-ref';
import { runModelProblems } from '../policy/call-settings';
import { lookupModel } from '../policy/model-registry';
import { type AgentOptions } from '../contracts/agent-options';
import type { ModelName } from '../contracts/model-ref';
import {
  followUpSignal,
  steerSignal,
  stopSignal,
  switchModelSignal,
  type AgentWorkflowInput,
} from '../contracts/agent-workflows';
import type { AgentResult } from '../contracts/agent-run';
import { childTraces, traceOf, type RunTrace } from './trace';
import type { WatchItem } from '../contracts/watch-topics';
import type { KindStartOptions } from '../kinds';
import { AgentClientError, explain } from './client-errors';
import { hasVersionedWorker } from '../connection/versioned-workers';
import { watchRun, type WatchOptions } from './watch';
import { listRuns, type AgentListEntry, type ListFilters } from './list-runs';
import { resultOfRun } from './run-reads';
import { originMemo, resolveOrigin, startOptionsOf } from './sessions';
import { runDetails, runSummary, startSearchAttributes, taskPointer } from './run-metadata';
import { runPriority } from '../policy/tenancy';
import { RunInputs, TEXT_WAY } from './run-inputs';
import { messagesOfRun } from './run-messages';
import { answerShapeOf, withAnswers, type AnswerItem } from './watch-answers';
import { withChildren, type ChildEventItem } from './watch-children';
import type { RunMessage } from '../contracts/run-message';
import type { LedgerView, TenantBudgetLimits } from '../contracts/tenant-budget';
import { setTenantBudget, tenantBudgetView, type TenantBudgetSet } from './tenant-budgets';

export type { WatchOptions } from './watch';
export type { AnswerItem, AnswerRole, DeepPartial } from './watch-answers';
export type { AgentListEntry, ListFilters } from './list-runs';
export type { AgentClientOptions, RunWorkers } from './run-access';
export type { ClosedRunView } from './run-reads';

/** A run's start: the options of every kind, and its kind's own under that kind's key ({@link KindStartOptions}). */
export interface StartAgentOptions extends AgentOptions, KindStartOptions {
  /** Workflow id; default `agent-<uuid>`. An id any run has used before is refused. */
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

/** How long a watch of a run's children waits for a child its parent announced to exist. */
const CHILD_START_WAIT_MS = 15_000;

/** How long a watch waits for a worker to answer the state query of a run that has ended. */
const ENDED_RUN_QUERY_MS = 10_000;

const TASK_WAY = 'pass it by reference with `run --task-file FILE` (or `taskHash` with the client API)';

/**
 * Whether the client shares a worker's connection (a `NativeConnection`), so the server can hand a new run's first
 * workflow task straight back to that worker in the start call's reply instead of queueing it (eager start). The
 * SDK's core asks for it only when a worker of this process polls the run's task queue and has a free slot, so asking
 * is safe for unversioned workers; a client over a plain `Connection` cannot ask. A connection a versioned worker
 * polls through never asks (see connection/versioned-workers).
 */
function startsEagerly(client: Client): boolean {
  if (hasVersionedWorker(client.connection)) return false;
  return (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

export class AgentClient extends RunInputs {
  /**
   * Starts a run and returns its id without waiting. Bad options and payloads over the server's limit are refused
   * before anything starts; model names are parsed here, once, and the run carries the parsed refs. The run
   * carries its summary, details and every search attribute from the start.
   */
  async start(options: StartAgentOptions): Promise<string> {
    const { workflowType, workflowId: id, ...start } = await this.prepareStart(options);
    try {
      await this.client.workflow.start(workflowType, {
        ...start,
        workflowId: id,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        ...(startsEagerly(this.client) ? { requestEagerStart: true } : {}),
      });
    } catch (err) {
      throw explain(err, id);
    }
    return id;
  }

  /**
   * What {@link start} would start, checked and built but not sent: the workflow type and its input, with the
   * run's summary, details, memo and search attributes. A schedule keeps this as its action.
   */
  async prepareStart(startOptions: StartAgentOptions): Promise<PreparedStart> {
    const { continueFrom, ...rest } = startOptions;
    const options: StartAgentOptions = continueFrom
      ? { ...rest, from: (await resolveOrigin(this.client, continueFrom)).origin }
      : rest;
    const kind = options.kind ?? 'react';
    const edge = this.kinds.find(kind);
    if (!edge) throw new AgentClientError(`unknown agent kind "${kind}"; known: ${this.kinds.names.join(', ')}`);
    const own = this.kinds.ownOptions(edge, options);
    const kindProblems = [
      ...(edge.optionProblems?.(own) ?? []),
      ...(edge.ownPrompts && options.systemPrompt !== undefined
        ? [`systemPrompt does not apply to ${kind} runs: ${edge.ownPrompts}`]
        : []),
      ...this.kinds
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
    const problems = [...configProblems(config), ...kindProblems];
    if (problems.length === 0) {
      const models = runModels(config, this.kinds.models(kind, options).map(modelRefOf));
      problems.push(
        ...this.providerProblems(models),
        ...runModelProblems(
          config,
          models.map((m) => lookupModel(m, this.models)),
        ),
      );
    }
    if (problems.length > 0) throw new AgentClientError(`invalid run options: ${problems.join('; ')}`);
    const id = options.id ?? `agent-${crypto.randomUUID()}`;
    const input = this.kinds.input(edge, config, own);
    await this.payloadLimit.check(input, 'the task', TASK_WAY);
    return {
      workflowType: edge.workflowType,
      workflowId: id,
      taskQueue: options.taskQueue ?? this.taskQueue,
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

  /**
   * Starts a run from the first `atTurn` turns of the run `id` (which has ended), for a retry from
   * its last good turn with another model, prompt or task. Options not given are the earlier run's
   * (kind, model and fallbacks, tools, limits, call settings); without a task the new run answers
   * the tool results of turn `atTurn`.
   */
  async fork(id: string, options: ForkOptions): Promise<string> {
    const { origin, config } = await resolveOrigin(this.client, id, options.atTurn);
    const { atTurn: _atTurn, ...given } = options;
    const earlier: Partial<StartAgentOptions> = config ? startOptionsOf(config, this.kinds.find(config.kind)) : {};
    const model = given.model ?? earlier.model;
    if (!model) throw new AgentClientError(`run "${id}" does not say which model it used: give the fork a model`);
    return this.start({ ...earlier, ...given, model, task: given.task ?? '', from: origin });
  }

  /**
   * The options the run `id` (which has ended) started with, as far as a new run can take them
   * over: kind, model and fallbacks, tools, limits, call settings. Undefined when its history does
   * not hold its start input.
   */
  async startOptions(id: string): Promise<Omit<StartAgentOptions, 'task'> | undefined> {
    const { config } = await resolveOrigin(this.client, id);
    return config && startOptionsOf(config, this.kinds.find(config.kind));
  }

  /** Starts a run and waits for its result. */
  async run(options: StartAgentOptions): Promise<AgentResult> {
    return this.result(await this.start(options));
  }

  /**
   * Waits for the run (following continue-as-new) and returns its result. A run that closed as a failed
   * workflow with its result in the failure's details gives that result (status `failed`).
   */
  async result(id: string): Promise<AgentResult> {
    try {
      return await resultOfRun(this.handle(id), id);
    } catch (err) {
      throw explain(err, id);
    }
  }

  /**
   * Follows a run as it works: every trace event and, for streaming runs, the model's tokens,
   * across continue-as-new, until the run ends. Events recorded after the last poll of a run that
   * has just ended are read from its state, so a watch always ends with the run's last events.
   * For a run that has already ended, yields the events its state kept. With `answers`, also the
   * structured answers the tokens spell ({@link AnswerItem}), partial while they stream, then whole.
   */
  watch<T = Record<string, unknown>>(
    id: string,
    options: WatchOptions & { answers: true; children: true },
  ): AsyncGenerator<WatchItem | AnswerItem<T> | ChildEventItem, void, undefined>;
  watch<T = Record<string, unknown>>(
    id: string,
    options: WatchOptions & { answers: true },
  ): AsyncGenerator<WatchItem | AnswerItem<T>, void, undefined>;
  watch(
    id: string,
    options: WatchOptions & { children: true },
  ): AsyncGenerator<WatchItem | ChildEventItem, void, undefined>;
  watch(id: string, options?: WatchOptions): AsyncGenerator<WatchItem, void, undefined>;
  watch(
    id: string,
    options: WatchOptions = {},
  ): AsyncGenerator<WatchItem | AnswerItem | ChildEventItem, void, undefined> {
    const items = watchRun(this.client, id, options, {
      status: async () => (await this.call(id, (h) => h.describe())).status.name,
      state: () => this.client.connection.withDeadline(Date.now() + ENDED_RUN_QUERY_MS, () => this.state(id)),
      result: () => this.result(id),
    });
    const answered: AsyncGenerator<WatchItem | AnswerItem, void, undefined> = options.answers
      ? withAnswers(items, { id, shape: () => answerShapeOf(this.client, id, this.kinds), store: this.store })
      : items;
    return options.children ? withChildren(answered, (child) => this.watchChild(child)) : answered;
  }

  /** A child run's events, once the server knows it (its parent announces it as it starts it). */
  private async *watchChild(id: string): AsyncGenerator<WatchItem, void, undefined> {
    const deadline = Date.now() + CHILD_START_WAIT_MS;
    while (
      !(await this.handle(id)
        .describe()
        .then(
          () => true,
          () => false,
        ))
    ) {
      if (Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    yield* this.watch(id, { tokens: false });
  }

  /**
   * The run's trace: totals and timings of its model and tool calls, and its steps turn by turn;
   * with `children`, its child runs' traces too, at any depth.
   */
  async trace(id: string, options: { children?: boolean } = {}): Promise<RunTrace> {
    const view = await this.state(id);
    const trace = traceOf(view);
    if (!options.children || !view.children?.length) return trace;
    return { ...trace, children: await childTraces(view, (child) => this.trace(child, options)) };
  }

  /** Redirects the run; returns the message id (resending with the same id is harmless). */
  async steer(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('steering text is empty');
    await this.payloadLimit.check({ id: messageId, text }, 'the steering text', TEXT_WAY);
    await this.call(id, (h) => h.signal(steerSignal, { id: messageId, text }));
    return messageId;
  }

  async followUp(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('follow-up text is empty');
    await this.payloadLimit.check({ id: messageId, text }, 'the follow-up text', TEXT_WAY);
    await this.call(id, (h) => h.signal(followUpSignal, { id: messageId, text })).catch((err: unknown) => {
      if (!(err instanceof AgentClientError && / has already ended/.test(err.message))) throw err;
      throw new AgentClientError(
        `${err.message}: go on from its conversation with \`durable-agents run --continue ${id} TEXT\` ` +
          '(continueFrom), or start runs with --idle-wait to keep them open for follow-ups',
      );
    });
    return messageId;
  }

  /** Ends the run after its current step; open tool calls get results. */
  async stop(id: string, note?: string): Promise<void> {
    await this.call(id, (h) => h.signal(stopSignal, note ? { note } : {}));
  }

  /** Asks Temporal to cancel the run: it ends like a stop, with stop reason `cancelled`, and returns its result. */
  async cancel(id: string): Promise<void> {
    // The server accepts a cancellation of a closed run and does nothing with it.
    const { status } = await this.call(id, (h) => h.describe());
    if (status.name !== 'RUNNING')
      throw new AgentClientError(`run "${id}" has already ended (${status.name.toLowerCase()})`);
    await this.call(id, (h) => h.cancel());
  }

  /** Ends the run at once, without a result (Temporal's terminate). */
  async terminate(id: string, reason?: string): Promise<void> {
    await this.call(id, (h) => h.terminate(reason));
  }

  /** Asks the run to use another model from its next turn. */
  async switchModel(id: string, model: ModelName, note?: string): Promise<void> {
    const problem = modelNameProblem(model);
    if (problem) throw new AgentClientError(problem);
    const ref = modelRefOf(model);
    const [unknown] = this.providerProblems([ref]);
    if (unknown) throw new AgentClientError(unknown);
    await this.call(id, (h) => h.signal(switchModelSignal, { model: ref, ...(note ? { note } : {}) }));
  }

  /** Agent runs, newest first: at most `limit` (default 50), or those the filters select. */
  async list(filters: number | ListFilters = {}): Promise<AgentListEntry[]> {
    return listRuns(this.client, typeof filters === 'number' ? { limit: filters } : filters, this.kinds.workflowTypes);
  }

  /**
   * The run's conversation as the `transcript` command shows it: every message in log order,
   * across continue-as-new, with compaction summaries where they replaced the log. Read from the
   * content store the client was given (`store` option), so closed runs read the same.
   */
  async messages(id: string): Promise<RunMessage[]> {
    return messagesOfRun(this.client, this.store, id);
  }

  /**
   * Sets a tenant's budget across runs (docs/fleet.md): starts its ledger on the client's task queue,
   * or changes the budget of the one it has, and tells the tenant's open runs, so their next model
   * calls reserve against it too.
   */
  async setTenantBudget(tenant: string, limits: TenantBudgetLimits): Promise<TenantBudgetSet> {
    return setTenantBudget(this.client, this.taskQueue, tenant, limits);
  }

  /** A tenant's budget: the current period, and what its runs spent, hold reserved and have left. */
  async tenantBudget(tenant: string): Promise<LedgerView> {
    return tenantBudgetView(this.client, tenant);
  }
}

/** Hash of arguments as the workflow computes it (for callers that show arguments themselves). */
export const approvalArgsHash = hashArgs;

/** The run's priority as a start option: its workflow tasks are ordered like its activities. */
function priorityOf(config: { tenant?: string; priority?: number }): { priority?: Priority } {
  const priority = runPriority(config);
  return priority ? { priority } : {};
}
