/**
 * The typed client API of the agent workflows: start a run, send steering and follow-ups,
 * decide approvals, submit client tool results, read state and results, stop, list.
 */
import crypto from 'node:crypto';
import { WorkflowFailedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { argsHash as hashArgs } from '../policy/approval-rules';
import { buildAgentConfig, configProblems, modelOptionProblems } from '../policy/agent-config';
import { modelNameProblem, modelRefOf, runModels, unknownProviderProblem } from '../policy/model-ref';
import { type AgentOptions } from '../contracts/agent-options';
import type { ModelName, ModelRef } from '../contracts/model-ref';
import {
  AGENT_WORKFLOWS,
  decideApprovalUpdate,
  followUpSignal,
  isAgentKind,
  setPlanSignal,
  stateQuery,
  steerSignal,
  stopSignal,
  submitToolResultUpdate,
  switchModelSignal,
  type AgentWorkflowInput,
} from '../contracts/agent-workflows';
import { type ApprovalDecisionResult } from '../contracts/approval';
import type { AgentResult, AgentStateView, PlanItem } from '../contracts/agent-run';
import { traceOf, type RunTrace } from './trace';
import type { WatchItem } from '../contracts/watch-topics';
import { DEFAULT_TASK_QUEUE } from '../contracts/agent-workflows';
import { decidePlanUpdate, type PevOptions, type PevWorkflowInput } from '../contracts/pev-run';
import { pevOptionProblems } from '../policy/pev/pev-options';
import { AgentClientError, explain } from './client-errors';
import { watchRun, type WatchOptions } from './watch';

export type { WatchOptions } from './watch';

export interface StartAgentOptions extends AgentOptions {
  /** Workflow id; default `agent-<uuid>`. */
  id?: string;
  /** Task queue of the worker; default the client's. */
  taskQueue?: string;
  /** Planner → Executor → Verifier options (kind `pev` only): mode, per-role models, limits, prompts directory. */
  pev?: PevOptions;
}

export interface AgentListEntry {
  id: string;
  runId: string;
  kind?: string;
  status: string;
  agentStatus?: string;
  model?: string;
  costUsd?: number;
  startTime: string;
}

const AGENT_TYPES: readonly string[] = Object.values(AGENT_WORKFLOWS);

const mapValues = <A, B>(record: Record<string, A>, fn: (value: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));

export interface AgentClientOptions {
  /**
   * The providers the workers know: the built-in ones and those of their config file (the CLI
   * passes its own config's). When given, a run or a switch naming another provider is refused
   * before anything is sent, by the same check the worker makes before each call.
   */
  providers?: readonly string[];
}

/** How long a watch waits for a worker to answer the state query of a run that has ended. */
const ENDED_RUN_QUERY_MS = 10_000;

export class AgentClient {
  constructor(
    readonly client: Client,
    readonly taskQueue: string = DEFAULT_TASK_QUEUE,
    readonly options: AgentClientOptions = {},
  ) {}

  /** Why the workers cannot call these models (when the client knows their providers). */
  private providerProblems(models: readonly ModelRef[]): string[] {
    const { providers } = this.options;
    if (!providers) return [];
    return [...new Set(models.map((ref) => unknownProviderProblem(ref, providers)).filter((p) => p !== undefined))];
  }

  /**
   * Starts a run and returns its id without waiting. Bad options are refused before anything
   * starts; model names are parsed here, once, and the run carries the parsed refs.
   */
  async start(options: StartAgentOptions): Promise<string> {
    const kind = options.kind ?? 'react';
    if (!isAgentKind(kind))
      throw new AgentClientError(`unknown agent kind "${kind}"; known: ${Object.keys(AGENT_WORKFLOWS).join(', ')}`);
    const pevProblems = pevOptionProblems(options.pev);
    const modelProblems = modelOptionProblems(options);
    if (modelProblems.length > 0)
      throw new AgentClientError(`invalid run options: ${[...modelProblems, ...pevProblems].join('; ')}`);
    const config = buildAgentConfig({ ...options, kind });
    const problems = [...configProblems(config), ...pevProblems];
    const roles = pevProblems.length ? {} : mapValues(options.pev?.models ?? {}, modelRefOf);
    if (problems.length === 0) problems.push(...this.providerProblems(runModels(config, Object.values(roles))));
    if (problems.length > 0) throw new AgentClientError(`invalid run options: ${problems.join('; ')}`);
    const id = options.id ?? `agent-${crypto.randomUUID()}`;
    const pev = options.pev && { ...options.pev, ...(options.pev.models ? { models: roles } : {}) };
    const input: AgentWorkflowInput | PevWorkflowInput = kind === 'pev' && pev ? { config, pev } : { config };
    await this.client.workflow.start(AGENT_WORKFLOWS[kind], {
      workflowId: id,
      taskQueue: options.taskQueue ?? this.taskQueue,
      args: [input],
    });
    return id;
  }

  /** Starts a run and waits for its result. */
  async run(options: StartAgentOptions): Promise<AgentResult> {
    return this.result(await this.start(options));
  }

  private handle(id: string): WorkflowHandle {
    return this.client.workflow.getHandle(id);
  }

  private async call<T>(id: string, op: (h: WorkflowHandle) => Promise<T>): Promise<T> {
    try {
      return await op(this.handle(id));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        // Signals to a closed run are refused as "not found"; say which it is.
        const status = await this.handle(id)
          .describe()
          .then((d) => d.status.name)
          .catch(() => undefined);
        if (status && status !== 'RUNNING')
          throw new AgentClientError(`run "${id}" has already ended (${status.toLowerCase()})`);
      }
      throw explain(err, id);
    }
  }

  /** Waits for the run (following continue-as-new) and returns its result. */
  async result(id: string): Promise<AgentResult> {
    try {
      return (await this.handle(id).result()) as AgentResult;
    } catch (err) {
      if (err instanceof WorkflowFailedError)
        throw new AgentClientError(`run "${id}" failed: ${err.cause?.message ?? err.message}`);
      throw explain(err, id);
    }
  }

  /**
   * Follows a run as it works: every trace event and, for streaming runs, the model's tokens,
   * across continue-as-new, until the run ends. Events recorded after the last poll of a run that
   * has just ended are read from its state, so a watch always ends with the run's last events.
   * For a run that has already ended, yields the events its state kept.
   */
  watch(id: string, options: WatchOptions = {}): AsyncGenerator<WatchItem, void, undefined> {
    return watchRun(this.client, id, options, {
      status: async () => {
        try {
          return (await this.handle(id).describe()).status.name;
        } catch (err) {
          throw explain(err, id);
        }
      },
      state: () => this.client.connection.withDeadline(Date.now() + ENDED_RUN_QUERY_MS, () => this.state(id)),
      result: () => this.result(id),
    });
  }

  state(id: string): Promise<AgentStateView> {
    return this.call(id, (h) => h.query(stateQuery));
  }

  /** The run's trace: totals and timings of its model and tool calls, and its steps turn by turn. */
  async trace(id: string): Promise<RunTrace> {
    return traceOf(await this.state(id));
  }

  /** Redirects the run; returns the message id (resending with the same id is harmless). */
  async steer(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('steering text is empty');
    await this.call(id, (h) => h.signal(steerSignal, { id: messageId, text }));
    return messageId;
  }

  async followUp(id: string, text: string, messageId: string = crypto.randomUUID()): Promise<string> {
    if (!text.trim()) throw new AgentClientError('follow-up text is empty');
    await this.call(id, (h) => h.signal(followUpSignal, { id: messageId, text }));
    return messageId;
  }

  /** The pending approval of a call, for binding a decision to the arguments it shows. */
  private async pending(id: string, toolCallId: string): Promise<{ argsHash: string; args: Record<string, unknown> }> {
    const state = await this.state(id);
    const found = state.pendingApprovals.find((a) => a.toolCallId === toolCallId);
    if (!found) {
      const ids = state.pendingApprovals.map((a) => a.toolCallId);
      throw new AgentClientError(
        `run "${id}" has no pending approval for tool call ` +
          `"${toolCallId}"${ids.length ? ` (pending: ${ids.join(', ')})` : ''}`,
      );
    }
    return found;
  }

  /**
   * Approves a tool call, optionally with edited arguments. The decision quotes the hash of the
   * arguments it was shown (`argsHash`, read from the state when not given), so it cannot approve
   * different arguments than the approver saw.
   */
  async approve(
    id: string,
    toolCallId: string,
    options: { args?: Record<string, unknown>; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    const argsHash = options.argsHash ?? (await this.pending(id, toolCallId)).argsHash;
    return this.call(id, (h) =>
      h.executeUpdate(decideApprovalUpdate, {
        args: [{ toolCallId, argsHash, decision: 'approve', ...(options.args ? { editedArgs: options.args } : {}) }],
      }),
    );
  }

  /**
   * Approves or rejects the plan a `pev` run with `confirmPlan` is waiting on; rejection feedback goes to the planner.
   */
  async decidePlan(id: string, approve: boolean, feedback?: string): Promise<{ approved: boolean; cycle: number }> {
    return this.call(id, (h) =>
      h.executeUpdate(decidePlanUpdate, { args: [{ approve, ...(feedback ? { feedback } : {}) }] }),
    );
  }

  async reject(
    id: string,
    toolCallId: string,
    options: { reason?: string; argsHash?: string } = {},
  ): Promise<ApprovalDecisionResult> {
    const argsHash = options.argsHash ?? (await this.pending(id, toolCallId)).argsHash;
    return this.call(id, (h) =>
      h.executeUpdate(decideApprovalUpdate, {
        args: [{ toolCallId, argsHash, decision: 'reject', ...(options.reason ? { reason: options.reason } : {}) }],
      }),
    );
  }

  async submitToolResult(id: string, toolCallId: string, content: string, isError = false): Promise<void> {
    await this.call(id, (h) => h.executeUpdate(submitToolResultUpdate, { args: [{ toolCallId, content, isError }] }));
  }

  async stop(id: string, note?: string): Promise<void> {
    await this.call(id, (h) => h.signal(stopSignal, note ? { note } : {}));
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

  /** Replaces the plan the run recites at the end of the context each turn. */
  async setPlan(id: string, plan: PlanItem[]): Promise<void> {
    await this.call(id, (h) => h.signal(setPlanSignal, plan));
  }

  /** Agent runs, newest first. */
  async list(limit = 50): Promise<AgentListEntry[]> {
    const query = AGENT_TYPES.map((t) => `WorkflowType = '${t}'`).join(' OR ');
    const out: AgentListEntry[] = [];
    for await (const wf of this.client.workflow.list({ query })) {
      const sa = wf.typedSearchAttributes;
      const get = (name: string): unknown => sa.getAll().find((p) => p.key.name === name)?.value;
      out.push({
        id: wf.workflowId,
        runId: wf.runId,
        kind: get('DurableAgentKind') as string | undefined,
        status: wf.status.name,
        agentStatus: get('DurableAgentStatus') as string | undefined,
        model: get('DurableAgentModel') as string | undefined,
        costUsd: get('DurableAgentCostUsd') as number | undefined,
        startTime: wf.startTime.toISOString(),
      });
      if (out.length >= limit) break;
    }
    return out;
  }
}

/** Hash of arguments as the workflow computes it (for callers that show arguments themselves). */
export const approvalArgsHash = hashArgs;
