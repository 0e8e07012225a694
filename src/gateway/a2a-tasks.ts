/**
 * Runs as A2A 1.0 tasks (`@a2a-js/sdk` types): a run's state as a task state, its answer as the
 * task's `answer` artifact, and what it waits for as an `INPUT_REQUIRED` status whose message holds
 * the waiting calls (a data part) the caller answers in its next message to the task.
 */
import crypto from 'node:crypto';
import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from '@a2a-js/sdk';
import type { AgentResult } from '../contracts/agent-run';
import { runEnd, type InputAnswer, type RunInput } from './run-bridge';

const part = (content: Part['content'], mediaType: string): Part => ({
  content,
  metadata: undefined,
  filename: '',
  mediaType,
});
export const textPart = (text: string): Part => part({ $case: 'text', value: text }, 'text/plain');
const dataPart = (value: unknown): Part => part({ $case: 'data', value }, 'application/json');

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export const statusOf = (state: TaskState, message?: Message): TaskStatus => ({
  state,
  message,
  timestamp: new Date().toISOString(),
});

export function answerArtifact(text: string): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: "the agent's answer",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** The task state of a run that has ended, by how it ended. */
const ENDED_STATES = {
  cancelled: TaskState.TASK_STATE_CANCELED,
  failed: TaskState.TASK_STATE_FAILED,
  completed: TaskState.TASK_STATE_COMPLETED,
} as const;

/** The status message of a task that waits for the caller: a line per waiting call, and the calls as data. */
function inputRequiredMessage(taskId: string, contextId: string, inputs: RunInput[]): Message {
  const lines = inputs.map((i) =>
    i.kind === 'question'
      ? `question ${i.toolCallId}: ${i.question}`
      : `approve ${i.tool} (${i.toolCallId}) with ${JSON.stringify(i.args)}? (argsHash ${i.argsHash})`,
  );
  return agentMessage(taskId, contextId, [textPart(lines.join('\n')), dataPart({ inputs })]);
}

/** The status of a task that waits for the caller, with {@link inputRequiredMessage} as its message. */
export const inputRequiredStatus = (taskId: string, contextId: string, inputs: RunInput[]): TaskStatus =>
  statusOf(TaskState.TASK_STATE_INPUT_REQUIRED, inputRequiredMessage(taskId, contextId, inputs));

/** The status of a task whose run has ended: its state by how the run ended, its answer as the message. */
export const endedStatus = (taskId: string, contextId: string, r: AgentResult): TaskStatus =>
  statusOf(ENDED_STATES[runEnd(r)], agentMessage(taskId, contextId, [textPart(r.finalText)]));

/** A task of a run. */
export function taskOf(id: string, contextId: string, status: TaskStatus, artifacts: Artifact[] = []): Task {
  return { id, contextId, status, artifacts, history: [], metadata: undefined };
}

/** The text of a message's text parts, and the values of its data parts. */
export function partsOf(message: Message): { text: string; data: Record<string, unknown>[] } {
  const text: string[] = [];
  const data: Record<string, unknown>[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === 'text') text.push(part.content.value);
    else if (part.content?.$case === 'data' && typeof part.content.value === 'object' && part.content.value)
      data.push(part.content.value as Record<string, unknown>);
  }
  return { text: text.join('\n'), data };
}

/**
 * The answers a message to a waiting task gives: each data part `{ toolCallId?, approved, reason?,
 * argsHash? }` or `{ toolCallId?, answer }` (without `toolCallId`, the first waiting call of its
 * kind); else the message's text answers the first question, or approves (`yes`, `approve`) or
 * rejects (anything else, as the reason) the first approval.
 */
export function answersOf(message: Message, waiting: RunInput[]): InputAnswer[] {
  const { text, data } = partsOf(message);
  const pick = (kind: RunInput['kind'], id: unknown) =>
    waiting.find((w) => (typeof id === 'string' ? w.toolCallId === id : w.kind === kind));
  if (data.length > 0)
    return data.flatMap((d): InputAnswer[] => {
      if (typeof d.answer === 'string') {
        const w = pick('question', d.toolCallId);
        return w ? [{ toolCallId: w.toolCallId, answer: d.answer }] : [];
      }
      const w = pick('approval', d.toolCallId);
      if (!w || typeof d.approved !== 'boolean') return [];
      return [
        {
          toolCallId: w.toolCallId,
          approve: d.approved,
          ...(typeof d.reason === 'string' ? { reason: d.reason } : {}),
          ...(typeof d.argsHash === 'string' ? { argsHash: d.argsHash } : {}),
        },
      ];
    });
  const first = waiting[0];
  if (!first || !text.trim()) return [];
  if (first.kind === 'question') return [{ toolCallId: first.toolCallId, answer: text }];
  const yes = /^\s*(y|yes|approve|approved|ok)\s*\.?\s*$/i.test(text);
  return [{ toolCallId: first.toolCallId, approve: yes, ...(yes ? {} : { reason: text }) }];
}

/** The stream updates of a task. */
export const taskUpdate = (task: Task): StreamResponse => ({ payload: { $case: 'task', value: task } });

export const statusUpdate = (taskId: string, contextId: string, status: TaskStatus): StreamResponse => ({
  payload: { $case: 'statusUpdate', value: { taskId, contextId, status, metadata: undefined } },
});

export const artifactUpdate = (
  taskId: string,
  contextId: string,
  artifact: Artifact,
  append: boolean,
  lastChunk: boolean,
): StreamResponse => ({
  payload: { $case: 'artifactUpdate', value: { taskId, contextId, artifact, append, lastChunk, metadata: undefined } },
});
