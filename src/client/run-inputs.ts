/**
 * What a caller gives a run besides its task, steering and decisions: notes for its log (docs/hooks.md),
 * its plan, and answers to the questions its model asks the user (docs/plans.md).
 */
import crypto from 'node:crypto';
import {
  addNoteSignal,
  setPlanSignal,
  updatePlanSignal,
  type NoteKind,
  type PlanUpdate,
} from '../contracts/agent-workflows';
import type { PlanItem, PlanItemInput } from '../contracts/run-spec';
import { planOf, updatePlan } from '../policy/plan';
import { ASK_USER, questionOf } from '../policy/ask-user';
import { AgentClientError } from './client-errors';
import { RunDecisions, clientCallsIn } from './run-decisions';

/** How to pass a text over the payload limit (steering, a follow-up, a note). */
export const TEXT_WAY = "put the text in a file in the run's workspace and send a short note that points to it";

/** The inputs a caller sends a run besides its decisions, through the client's access to runs. */
export class RunInputs extends RunDecisions {
  /**
   * Adds a note to the run's conversation log (docs/hooks.md, Notes): a `context_note` (default) or
   * a `system_event`, written at its next turn or as it ends, never sent to the model. Returns the
   * note's id (resending with the same id writes it once).
   */
  async addNote(id: string, text: string, options: { kind?: NoteKind; messageId?: string } = {}): Promise<string> {
    if (!text.trim()) throw new AgentClientError('note text is empty');
    const kind = options.kind ?? 'context_note';
    if (kind !== 'context_note' && kind !== 'system_event')
      throw new AgentClientError(`a note is a context_note or a system_event, not "${String(kind)}"`);
    const messageId = options.messageId ?? crypto.randomUUID();
    await this.access.payloadLimit.check({ id: messageId, text }, 'the note', TEXT_WAY);
    await this.access.call(id, (h) => h.signal(addNoteSignal, { id: messageId, text, kind }));
    return messageId;
  }

  /**
   * Replaces the plan the run recites at the end of the context each turn (items without an id
   * get their position). A plan with problems is refused, naming them.
   */
  async setPlan(id: string, plan: PlanItemInput[]): Promise<void> {
    const read = planOf(plan);
    if ('problems' in read) throw new AgentClientError(`invalid plan: ${read.problems.join('; ')}`);
    await this.access.payloadLimit.check(read.plan, 'the plan', TEXT_WAY);
    await this.access.call(id, (h) => h.signal(setPlanSignal, read.plan));
  }

  /**
   * Marks items of the run's plan done or open, or adds items, by their ids; returns the plan as
   * it will be. Checked against the run's plan first (read from its state): an unknown id is refused.
   */
  async updatePlan(id: string, update: PlanUpdate): Promise<PlanItem[]> {
    const updated = updatePlan((await this.access.state(id)).plan ?? [], update);
    if (updated.problems) throw new AgentClientError(`invalid plan update: ${updated.problems.join('; ')}`);
    await this.access.call(id, (h) => h.signal(updatePlanSignal, update));
    return updated.plan;
  }

  /**
   * Answers a question the run's model asked the user (`ask_user`, a run started with `askUser`):
   * the one waiting in the run or its open children, or `callId` when several wait.
   */
  async answer(id: string, text: string, callId?: string): Promise<{ toolCallId: string; question: string }> {
    if (!text.trim()) throw new AgentClientError('the answer is empty');
    const questions = clientCallsIn(await this.access.state(id), id).filter((c) => c.tool === ASK_USER);
    const ids = questions.map((q) => q.toolCallId).join(', ');
    const call = callId ? questions.find((q) => q.toolCallId === callId) : questions[0];
    if (!call)
      throw new AgentClientError(
        questions.length === 0
          ? `run "${id}" is not waiting for an answer from the user`
          : `run "${id}" asks no question "${callId}" (waiting: ${ids})`,
      );
    if (!callId && questions.length > 1)
      throw new AgentClientError(`run "${id}" waits for ${questions.length} answers: name the call (${ids})`);
    await this.submitToolResult(id, call.toolCallId, text);
    return { toolCallId: call.toolCallId, question: questionOf(call.args) };
  }
}
