/**
 * What a client sends the runs it has started: steering and follow-ups, stop, cancel, terminate and
 * a switch of model, notes, plans and answers, and decisions on the calls that wait for a person.
 * `AgentClient` is one: the notes, plans and answers are its `RunInputs`, the decisions its `RunDecisions`.
 */
import crypto from 'node:crypto';
import { modelNameProblem, modelRefOf } from '../policy/model-ref';
import type { ModelName } from '../contracts/model-ref';
import { followUpSignal, steerSignal, stopSignal, switchModelSignal } from '../contracts/agent-workflows';
import { AgentClientError, alreadyEnded } from './client-errors';
import { RunInputs, TEXT_WAY } from './run-inputs';

export class RunControl extends RunInputs {
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
}
