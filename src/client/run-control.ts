/**
 * What a client sends the runs it has started: steering and follow-ups, stop, cancel, terminate and
 * a switch of model, notes, plans and answers, and decisions on the calls that wait for a person.
 * `AgentClient` is one.
 */
import crypto from 'node:crypto';
import { modelNameProblem, modelRefOf } from '../policy/model-ref';
import type { ModelName } from '../contracts/model-ref';
import {
  followUpSignal,
  steerSignal,
  stopSignal,
  switchModelSignal,
  type NoteKind,
  type PlanUpdate,
} from '../contracts/agent-workflows';
import type { AgentStateView } from '../contracts/agent-run';
import type { PlanItem, PlanItemInput } from '../contracts/run-spec';
import type { WaitingCall } from '../contracts/sub-agents';
import type { ApprovalDecisionResult } from '../contracts/approval';
import { AgentClientError, alreadyEnded } from './client-errors';
import { RunDecisions, type WaitingApproval } from './run-decisions';
import type { RunAccess } from './run-access';
import { RunInputs, TEXT_WAY } from './run-inputs';

export class RunControl {
  private readonly decisions: RunDecisions;
  private readonly inputs: RunInputs;

  constructor(protected readonly access: RunAccess) {
    this.decisions = new RunDecisions(access);
    this.inputs = new RunInputs(access, this.decisions);
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
    if (status.name !== 'RUNNING') throw alreadyEnded(id, status.name);
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
