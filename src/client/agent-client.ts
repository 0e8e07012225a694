/**
 * The typed client API of the agent workflows: start a run, send steering and follow-ups,
 * decide approvals, submit client tool results, read state and results, stop, cancel, list.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InternalConnectionLikeSymbol, type Client, type InternalConnectionLike } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { argsHash as hashArgs } from '../policy/approval-rules';
import { DEFAULT_TASK_QUEUE } from '../contracts/agent-workflows';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import { childTraces, traceOf, type RunTrace } from './trace';
import type { WatchItem } from '../contracts/watch-topics';
import type { KindRegistry } from '../kinds';
import { explain } from './client-errors';
import { hasVersionedWorker } from '../connection/versioned-workers';
import { watchRun, type WatchOptions } from './watch';
import { listRuns, type AgentListEntry, type ListFilters } from './list-runs';
import { describeOrExplain, resultOfRun, startInput, type ClosedRunView, type EndedFromOutsideView } from './run-reads';
import { resolveOrigin } from './sessions';
import { RunControl } from './run-control';
import { RunAccess, type AgentClientOptions, type RunWorkers } from './run-access';
import { prepareStart, type ForkOptions, type PreparedStart, type StartAgentOptions } from './start-run';
import { messagesOfRun, readRunMessages } from './run-messages';
import { answerShapeOf, withAnswers, type AnswerItem } from './watch-answers';
import { withChildren, type ChildEventItem } from './watch-children';
import type { RunMessage } from '../contracts/run-message';
import type { LedgerView, TenantBudgetLimits } from '../contracts/tenant-budget';
import { setTenantBudget, tenantBudgetView, type TenantBudgetSet } from './tenant-budgets';
import { runScores, scoreRun } from './run-scores';
import type { RunScore } from '../contracts/run-scores';

export type { WatchOptions } from './watch';
export type { AnswerItem, AnswerRole, DeepPartial } from './watch-answers';
export type { AgentListEntry, ListFilters } from './list-runs';
export type { AgentClientOptions, RunWorkers } from './run-access';
export type { ClosedRunView, EndedFromOutsideView } from './run-reads';
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

export class AgentClient extends RunControl {
  readonly client: Client;
  readonly taskQueue: string;
  /** The kinds this client starts and shows runs of. */
  readonly kinds: KindRegistry;

  constructor(client: Client, taskQueue: string = DEFAULT_TASK_QUEUE, options: AgentClientOptions = {}) {
    super(new RunAccess(client, taskQueue, options));
    this.client = client;
    this.taskQueue = taskQueue;
    this.kinds = this.access.kinds;
  }

  /**
   * Refuses `value` at once (a `PayloadTooLargeError` naming `what` and `way`, how to get it through)
   * when it would not fit in one payload of the server; for a start of this client's own making.
   */
  checkPayload(value: unknown, what: string, way: string): Promise<void> {
    return this.access.payloadLimit.check(value, what, way);
  }

  /** This client with its options, starting runs on `taskQueue` (the workers of another build, say). */
  onTaskQueue(taskQueue: string): AgentClient {
    return new AgentClient(this.client, taskQueue, this.access.options);
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
    while (!(await describeOrExplain(this.client, id).catch(() => undefined))) {
      if (Date.now() > deadline) return;
      await sleep(100);
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
    const messages = store ? await readRunMessages(store, id).catch(() => undefined) : undefined;
    const trace = traceOf(view, messages);
    if (!options.children || !view.children?.length) return trace;
    return { ...trace, children: await childTraces(view, (child) => this.trace(child, options)) };
  }

  /** Agent runs, newest first: at most `limit` (default 50), or those the filters select. */
  async list(filters: number | ListFilters = {}): Promise<AgentListEntry[]> {
    return listRuns(this.client, typeof filters === 'number' ? { limit: filters } : filters, this.kinds);
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

  /**
   * Gives the run a score under `name` (docs/evals.md, Scores on production runs), open or closed;
   * scoring it again under the same name replaces the score. Indexed for visibility queries at once.
   */
  async score(id: string, name: string, value: number, options: { comment?: string } = {}): Promise<RunScore> {
    return scoreRun(this.client, id, { name, value, ...options });
  }

  /** The run's scores, the latest under each name. */
  async scores(id: string): Promise<RunScore[]> {
    return runScores(this.client, id);
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
   * A run terminated or timed out while it waited says so ({@link EndedFromOutsideView}) and waits for nothing.
   */
  state(id: string): Promise<AgentStateView | ClosedRunView | EndedFromOutsideView> {
    return this.access.state(id);
  }
}

/** Hash of arguments as the workflow computes it (for callers that show arguments themselves). */
export const approvalArgsHash = hashArgs;
