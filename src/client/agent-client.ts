/**
 * The typed client API of the agent workflows: start a run, send steering and follow-ups,
 * decide approvals, submit client tool results, read state and results, stop, cancel, list.
 */
import crypto from 'node:crypto';
import { InternalConnectionLikeSymbol, type Client, type InternalConnectionLike } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { argsHash as hashArgs } from '../policy/approval-rules';
import { modelNameProblem, modelRefOf } from '../policy/model-ref';
import type { ModelName } from '../contracts/model-ref';
import {
  followUpSignal,
  steerSignal,
  stopSignal,
  switchModelSignal,
  DEFAULT_TASK_QUEUE,
  type NoteKind,
  type PlanUpdate,
} from '../contracts/agent-workflows';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import type { PlanItem, PlanItemInput } from '../contracts/run-spec';
import type { WaitingCall } from '../contracts/sub-agents';
import type { ApprovalDecisionResult } from '../contracts/approval';
import { childTraces, needsStoredSteps, traceOf, type RunTrace } from './trace';
import type { WatchItem } from '../contracts/watch-topics';
import type { KindRegistry } from '../kinds';
import { AgentClientError, explain } from './client-errors';
import { hasVersionedWorker } from '../connection/versioned-workers';
import { watchRun, type WatchOptions } from './watch';
import { listRuns, type AgentListEntry, type ListFilters } from './list-runs';
import { resultOfRun, startInput, type ClosedRunView } from './run-reads';
import { resolveOrigin } from './sessions';
import { RunDecisions, type WaitingApproval } from './run-decisions';
import { RunAccess, type AgentClientOptions, type RunWorkers } from './run-access';
import { prepareStart, type ForkOptions, type PreparedStart, type StartAgentOptions } from './start-run';
import { messagesOfRun, readRunMessages } from './run-messages';
import { RunInputs, TEXT_WAY } from './run-inputs';
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
export type { ForkOptions, PreparedStart, StartAgentOptions } from './start-run';

/** How long a watch of a run's children waits for a child its parent announced to exist. */
const CHILD_START_WAIT_MS = 15_000;

/** How long a watch waits for a worker to answer the state query of a run that has ended. */
const ENDED_RUN_QUERY_MS = 10_000;

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

export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  /** The kinds this client starts and shows runs of. */
  readonly kinds: KindRegistry;
  private readonly access: RunAccess;
  private readonly decisions: RunDecisions;
  private readonly inputs: RunInputs;

  constructor(client: Client, taskQueue: string = DEFAULT_TASK_QUEUE, options: AgentClientOptions = {}) {
    this.access = new RunAccess(client, taskQueue, options);
    this.decisions = new RunDecisions(this.access);
    this.inputs = new RunInputs(this.access, this.decisions);
    this.client = client;
    this.taskQueue = taskQueue;
    this.kinds = this.access.kinds;
  }

  /**
   * Starts a run and returns its id without waiting. Bad options and payloads over the server's limit are refused
   * before anything starts; model names are parsed here, once, and the run carries the parsed refs. The run
   * carries its summary, details and every search attribute from the start.
   */
  async start(options: StartAgentOptions): Promise<string> {
    return this.send(await this.prepareStart(options));
  }

  private async send({ workflowType, workflowId: id, ...start }: PreparedStart): Promise<string> {
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
  prepareStart(options: StartAgentOptions): Promise<PreparedStart> {
    return prepareStart(this.access, options);
  }

  /**
   * Starts a run from the first `atTurn` turns of the run `id` (which has ended), for a retry from
   * its last good turn with another model, prompt or task. Options not given are the earlier run's
   * (as `continueFrom` takes them); without a task the new run answers the tool results of turn `atTurn`.
   */
  async fork(id: string, options: ForkOptions): Promise<string> {
    const earlier = await resolveOrigin(this.client, id, options.atTurn);
    const { atTurn: _atTurn, ...given } = options;
    return this.send(await prepareStart(this.access, { ...given, task: given.task ?? '' }, earlier));
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
      return await resultOfRun(this.access.handle(id), id);
    } catch (err) {
      throw explain(err, id);
    }
  }

  /**
   * Follows a run as it works: every trace event and, for streaming runs, the model's tokens (from
   * the client's `store`, or `tokenStream`), across continue-as-new, until the run ends. Events
   * recorded after the last read of a run that has just ended are read from its state, so a watch
   * always ends with the run's last events. For a run that has already ended, yields the events its
   * state kept. With `answers`, also the structured answers the tokens spell ({@link AnswerItem}).
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
    const items = watchRun(this.client, id, options, this.access.store, {
      status: async () => (await this.access.call(id, (h) => h.describe())).status.name,
      state: () => this.client.connection.withDeadline(Date.now() + ENDED_RUN_QUERY_MS, () => this.state(id)),
      result: () => this.result(id),
      streams: async () => (await startInput(this.client, id))?.config.stream === true,
    });
    const answered: AsyncGenerator<WatchItem | AnswerItem, void, undefined> = options.answers
      ? withAnswers(items, { id, shape: () => answerShapeOf(this.client, id, this.kinds), store: this.access.store })
      : items;
    return options.children ? withChildren(answered, (child) => this.watchChild(child)) : answered;
  }

  /** A child run's events, once the server knows it (its parent announces it as it starts it). */
  private async *watchChild(id: string): AsyncGenerator<WatchItem, void, undefined> {
    const deadline = Date.now() + CHILD_START_WAIT_MS;
    while (
      !(await this.access
        .handle(id)
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
   * with `children`, its child runs' traces too, at any depth. With the client's store, the turns
   * whose events the run no longer keeps are read from its stored conversation.
   */
  async trace(id: string, options: { children?: boolean } = {}): Promise<RunTrace> {
    const view = await this.state(id);
    const store = this.access.store;
    const messages =
      store && needsStoredSteps(view) ? await readRunMessages(store, id).catch(() => undefined) : undefined;
    const trace = traceOf(view, messages);
    if (!options.children || !view.children?.length) return trace;
    return { ...trace, children: await childTraces(view, (child) => this.trace(child, options)) };
  }

  /** Redirects the run; returns the message id (resending with the same id is harmless). */
  async steer(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('steering text is empty');
    await this.access.payloadLimit.check({ id: messageId, text }, 'the steering text', TEXT_WAY);
    await this.access.call(id, (h) => h.signal(steerSignal, { id: messageId, text }));
    return messageId;
  }

  async followUp(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('follow-up text is empty');
    await this.access.payloadLimit.check({ id: messageId, text }, 'the follow-up text', TEXT_WAY);
    await this.access
      .call(id, (h) => h.signal(followUpSignal, { id: messageId, text }))
      .catch((err: unknown) => {
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
    await this.access.call(id, (h) => h.signal(stopSignal, note ? { note } : {}));
  }

  /** Asks Temporal to cancel the run: it ends like a stop, with stop reason `cancelled`, and returns its result. */
  async cancel(id: string): Promise<void> {
    // The server accepts a cancellation of a closed run and does nothing with it.
    const { status } = await this.access.call(id, (h) => h.describe());
    if (status.name !== 'RUNNING')
      throw new AgentClientError(`run "${id}" has already ended (${status.name.toLowerCase()})`);
    await this.access.call(id, (h) => h.cancel());
  }

  /** Ends the run at once, without a result (Temporal's terminate). */
  async terminate(id: string, reason?: string): Promise<void> {
    await this.access.call(id, (h) => h.terminate(reason));
  }

  /** Asks the run to use another model from its next turn. */
  async switchModel(id: string, model: ModelName, note?: string): Promise<void> {
    const problem = modelNameProblem(model);
    if (problem) throw new AgentClientError(problem);
    const ref = modelRefOf(model);
    const [unknown] = this.access.providerProblems([ref]);
    if (unknown) throw new AgentClientError(unknown);
    await this.access.call(id, (h) => h.signal(switchModelSignal, { model: ref, ...(note ? { note } : {}) }));
  }

  /**
   * Adds a note to the run's conversation log (docs/hooks.md, Notes): a `context_note` (default) or
   * a `system_event`, written at its next turn or as it ends, never sent to the model. Returns the
   * note's id (resending with the same id writes it once).
   */
  addNote(id: string, text: string, options: { kind?: NoteKind; messageId?: string } = {}): Promise<string> {
    return this.inputs.addNote(id, text, options);
  }

  /**
   * Replaces the plan the run recites at the end of the context each turn (items without an id
   * get their position). A plan with problems is refused, naming them.
   */
  setPlan(id: string, plan: PlanItemInput[]): Promise<void> {
    return this.inputs.setPlan(id, plan);
  }

  /**
   * Marks items of the run's plan done or open, or adds items, by their ids; returns the plan as
   * it will be. Checked against the run's plan first: an unknown id is refused.
   */
  updatePlan(id: string, update: PlanUpdate): Promise<PlanItem[]> {
    return this.inputs.updatePlan(id, update);
  }

  /**
   * Answers a question the run's model asked the user (`ask_user`, a run started with `askUser`):
   * the one waiting in the run or its open children, or `callId` when several wait.
   */
  answer(id: string, text: string, callId?: string): Promise<{ toolCallId: string; question: string }> {
    return this.inputs.answer(id, text, callId);
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
    return messagesOfRun(this.client, this.access.store, id);
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

  /** The run's task queue, its Temporal status, and whether any worker polls that queue now. */
  workers(id: string): Promise<RunWorkers> {
    return this.access.workers(id);
  }

  /** Whether any worker polls `taskQueue` (default the client's) for workflow tasks now. */
  hasWorker(taskQueue: string = this.taskQueue): Promise<boolean> {
    return this.access.hasWorker(taskQueue);
  }

  /**
   * The run's state, answered by a worker. A closed run that no worker answers for is answered from its result and
   * start input (a {@link ClosedRunView}: no events or messages); for a running one that is a `NoWorkerError`.
   */
  state(id: string): Promise<AgentStateView | ClosedRunView> {
    return this.access.state(id);
  }

  /**
   * The run's pending approvals and those of its open child runs (sub-agents, at any depth), each
   * with the id of the run that waits for it.
   */
  pendingApprovals(id: string): Promise<WaitingApproval[]> {
    return this.decisions.pendingApprovals(id);
  }

  /**
   * The waiting call `toolCallId` in the run `id` or its family (see {@link RunDecisions.findWaiting}), with the
   * run's state, for a refusal that names what waits.
   */
  findWaiting<T extends WaitingCall>(
    id: string,
    toolCallId: string,
    of: (state: AgentStateView, id: string) => T[],
  ): Promise<{ state: AgentStateView; found?: T }> {
    return this.decisions.findWaiting(id, toolCallId, of);
  }

  /**
   * Approves a tool call, optionally with edited arguments. The decision quotes the hash of the
   * arguments it was shown (`argsHash`, read from the state when not given), so it cannot approve
   * different arguments than the approver saw.
   */
  approve(
    id: string,
    toolCallId: string,
    options: { args?: Record<string, unknown>; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    return this.decisions.approve(id, toolCallId, options);
  }

  /** Rejects a tool call, with a reason the run sees; `argsHash` as for {@link approve}. */
  reject(
    id: string,
    toolCallId: string,
    options: { reason?: string; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    return this.decisions.reject(id, toolCallId, options);
  }

  /**
   * Approves or rejects the plan a run waits on (a kind that has its plans confirmed, asked to with its options);
   * rejection feedback goes to the one that plans.
   */
  decidePlan(id: string, approve: boolean, feedback?: string): Promise<{ approved: boolean; cycle: number }> {
    return this.decisions.decidePlan(id, approve, feedback);
  }

  /**
   * The result of a client tool call the run waits for, or one of its open children (a sub-agent
   * that uses the run's client tools): it reaches the run that waits.
   */
  submitToolResult(id: string, toolCallId: string, content: string, isError = false): Promise<void> {
    return this.decisions.submitToolResult(id, toolCallId, content, isError);
  }
}

/** Hash of arguments as the workflow computes it (for callers that show arguments themselves). */
export const approvalArgsHash = hashArgs;
