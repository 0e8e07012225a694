/**
 * Reaching one run: its handle, calls whose SDK errors become one readable line, whether a worker
 * polls its task queue, payload checks against the server's limit, and its state.
 */
import { WorkflowNotFoundError, isGrpcServiceError, type Client, type WorkflowHandle } from '@temporalio/client';
import { stateQuery } from '../contracts/agent-workflows';
import type { ModelRef } from '../contracts/model-ref';
import type { ModelInfo } from '../contracts/model-info';
import type { ConversationReader } from '../contracts/conversation-log';
import { unknownProviderProblem } from '../policy/model-ref';
import type { AgentStateView } from '../contracts/agent-run';
import type { RunLayer } from '../contracts/agent-options';
import { kindRegistry, type KindEdge, type KindRegistry } from '../kinds';
import { NoWorkerError, alreadyEnded, explain, noWorkerFor, startWorkerHint } from './client-errors';
import { PayloadLimit } from './payload-limits';
import {
  closedRunView,
  closedView,
  describeOrExplain,
  hasWorkflowPollers,
  type ClosedRunView,
  type EndedFromOutsideView,
} from './run-reads';

export interface AgentClientOptions {
  /**
   * Payload size limit in bytes (the CLI passes `DURABLE_AGENTS_MAX_PAYLOAD_BYTES`, read with the
   * connection settings). Default: the limit the server reports for the namespace, else Temporal's
   * default of 2 MiB.
   */
  maxPayloadBytes?: number;
  /**
   * The providers the workers know: the built-in ones and those of their config file (the CLI
   * passes its own config's). When given, a run or a switch naming another provider is refused
   * before anything is sent, by the same check the worker makes before each call.
   */
  providers?: readonly string[];
  /**
   * The model entries of the workers' config file (`models`), beside the built-in registry: a run whose
   * settings or tools one of its models cannot take is refused before it starts (the CLI passes its own
   * config's). The run checks again with its worker's entries.
   */
  models?: readonly ModelInfo[];
  /**
   * The content store the workers write (`openStore(storeConfig())` or a store class of `durable-agents/worker`),
   * for reads of what only the store holds: {@link AgentClient.messages}, answers read whole, the
   * trace's steps of turns whose events the run no longer keeps, and (both content stores are a
   * `TokenStreamReader` too) the tokens a watch shows.
   */
  store?: ConversationReader;
  /**
   * Agent kinds beyond the built-in ones (a workflow of your own, with its edge): runs of these
   * start, list and show like the built-in kinds' (docs/design.md, Agent kinds).
   */
  kinds?: readonly KindEdge[];
  /**
   * The layer of run options under every start's own (the config file's sub-agents, a default
   * model): `layerRunSpec` lays a start's options over it, field by field (docs/design.md, The run spec).
   */
  defaults?: RunLayer;
  /**
   * Told, one line each, what a start left out of the defaults: a default sub-agent that asks for a tool the run
   * may not use is not offered to it (one the start declares is refused).
   */
  notice?: (line: string) => void;
}

/** Where a run is polled from: its task queue, and whether any worker polls it now. */
export interface RunWorkers {
  taskQueue: string;
  polling: boolean;
  /** Temporal status of the run (`RUNNING`, `COMPLETED`, …). */
  status: string;
}

/**
 * How long a closed run's state query may take before the result answers instead: a worker that
 * answers replays the closed run's history, which takes well under this.
 */
const CLOSED_RUN_QUERY_MS = 2_500;
/** How long a running run's state query may take before it counts as unanswered. */
const RUNNING_RUN_QUERY_MS = 10_000;

/** Reaching one run, for {@link AgentClient} and its parts. */
export class RunAccess {
  readonly payloadLimit: PayloadLimit;
  readonly store?: ConversationReader;
  /** The kinds this client starts and shows runs of. */
  readonly kinds: KindRegistry;

  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    readonly options: AgentClientOptions,
  ) {
    this.payloadLimit = new PayloadLimit(client, options.maxPayloadBytes);
    this.store = options.store;
    this.kinds = kindRegistry(options.kinds);
  }

  /** Why the workers cannot call these models, one line each (none when the client was not told their providers). */
  providerProblems(models: readonly ModelRef[]): string[] {
    const { providers } = this.options;
    if (!providers) return [];
    return [...new Set(models.flatMap((ref) => unknownProviderProblem(ref, providers) ?? []))];
  }

  handle(id: string): WorkflowHandle {
    return this.client.workflow.getHandle(id);
  }

  async call<T>(id: string, op: (h: WorkflowHandle) => Promise<T>): Promise<T> {
    try {
      return await op(this.handle(id));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        // Signals to a closed run are refused as "not found"; say which it is.
        const status = (await describeOrExplain(this.client, id).catch(() => undefined))?.status.name;
        if (status && status !== 'RUNNING') throw alreadyEnded(id, status);
      }
      throw explain(err, id);
    }
  }

  /** The run's task queue, its Temporal status, and whether any worker polls that queue now. */
  async workers(id: string): Promise<RunWorkers> {
    const described = await this.call(id, (h) => h.describe());
    const polling = await hasWorkflowPollers(this.client, described.taskQueue);
    return { taskQueue: described.taskQueue, polling, status: described.status.name };
  }

  /** Whether any worker polls `taskQueue` for workflow tasks now. */
  hasWorker(taskQueue: string): Promise<boolean> {
    return hasWorkflowPollers(this.client, taskQueue);
  }

  /**
   * Refuses a run that has ended, since `what` is for a run that waits; and, with a {@link NoWorkerError}, one whose
   * queue nobody polls, since `what` needs a worker now.
   */
  async requireWorker(id: string, what: string): Promise<RunWorkers> {
    const w = await this.workers(id);
    if (w.status !== 'RUNNING') throw alreadyEnded(id, w.status);
    if (!w.polling) throw noWorkerFor(w.taskQueue, `take ${what} for run "${id}"`);
    return w;
  }

  /** The state query, given up after `ms` (a worker that polled lately may be gone). */
  private async queryState(id: string, ms: number): Promise<AgentStateView> {
    try {
      return await this.client.connection.withDeadline(Date.now() + ms, () => this.handle(id).query(stateQuery));
    } catch (err) {
      if (isDeadlineExceeded(err)) throw new QueryTimeout();
      throw explain(err, id);
    }
  }

  /**
   * The run's state, answered by a worker. A closed run that no worker answers for is answered from its result and
   * start input (a {@link ClosedRunView}: no events or messages); for a running one that is a {@link NoWorkerError}.
   * A run ended from outside while it waited says so ({@link EndedFromOutsideView}).
   */
  async state(id: string): Promise<AgentStateView | ClosedRunView | EndedFromOutsideView> {
    const w = await this.workers(id);
    if (w.status !== 'RUNNING') {
      if (w.polling) {
        try {
          return closedView(await this.queryState(id, CLOSED_RUN_QUERY_MS), w.status);
        } catch {
          // No worker answered: a worker gone lately stays listed a while, and the server then
          // refuses the query ("no poller seen recently") or lets it time out. The result answers.
        }
      }
      return closedRunView(this.client, this.handle(id), id);
    }
    if (!w.polling) await this.requireWorker(id, 'the state query');
    try {
      return await this.queryState(id, RUNNING_RUN_QUERY_MS);
    } catch (err) {
      if (!(err instanceof QueryTimeout)) throw err;
      throw new NoWorkerError(
        `no worker answered the state query of run "${id}" within ${RUNNING_RUN_QUERY_MS / 1000} s (task queue ` +
          `"${w.taskQueue}"): check that a worker runs there; ${startWorkerHint(w.taskQueue)}`,
        w.taskQueue,
      );
    }
  }
}

/** A state query nobody answered in time. */
class QueryTimeout extends Error {}

/** gRPC's DEADLINE_EXCEEDED. */
const GRPC_DEADLINE_EXCEEDED = 4;
/** Whether `err`, or an error it was caused by, is a call that ran out of time. */
function isDeadlineExceeded(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (isGrpcServiceError(e) && e.code === GRPC_DEADLINE_EXCEEDED) return true;
    if (/deadline exceeded|timeout expired/i.test(e.message)) return true;
  }
  return false;
}
