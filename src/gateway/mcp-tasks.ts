/**
 * Runs as MCP tasks. The Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`:
 * `tasks/get` with the task's details, `tasks/update` with input responses, `tasks/cancel`) is not
 * in the TypeScript SDK (1.32 and 2.x speak 2025-11-25, where tasks are an experimental part of the
 * core), so the gateway answers its methods on the SDK server's request handlers. Each answer also
 * holds the 2025-11-25 fields, so a client of either generation reads it: `task` besides
 * `resultType: "task"` on creation, `ttl`/`pollInterval` besides `ttlMs`/`pollIntervalMs`.
 */
import type { AgentResult } from '../contracts/agent-run';
import type { InputAnswer, RunInput } from './run-bridge';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
/** Where an input request names the call it is about (tool, arguments, their hash). */
export const CALL_META = 'durable-agents/call';
const POLL_MS = 1000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** What a task is now: the run's status, and what it waits for or how it ended. */
export interface TaskFacts {
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  statusMessage?: string;
  inputs?: RunInput[];
  result?: AgentResult;
}

/** The task fields both generations share, with each one's names for the timings. */
function base(f: TaskFacts): Record<string, unknown> {
  return {
    taskId: f.taskId,
    status: f.status,
    createdAt: f.createdAt,
    lastUpdatedAt: f.lastUpdatedAt,
    ...(f.statusMessage ? { statusMessage: f.statusMessage } : {}),
    ttl: null,
    ttlMs: null,
    pollInterval: POLL_MS,
    pollIntervalMs: POLL_MS,
  };
}

/** The answer to a `tools/call` that made a task. */
export const createTaskResult = (f: TaskFacts): Record<string, unknown> => ({
  resultType: 'task',
  ...base(f),
  task: base(f),
});

/** The tool result of a run that has ended: its answer, and how it ended as structured content. */
export function callToolResult(
  runId: string,
  r: AgentResult,
): { content: { type: 'text'; text: string }[]; isError: boolean; structuredContent: Record<string, unknown> } {
  return {
    content: [{ type: 'text', text: r.finalText || (r.error?.message ?? '') }],
    isError: r.status === 'failed',
    structuredContent: { runId, status: r.status, stopReason: r.stopReason, turns: r.turns, costUsd: r.costUsd },
  };
}

/** The input requests of a waiting task: one form elicitation per call, keyed by the call's id. */
export function inputRequestsOf(inputs: RunInput[]): Record<string, unknown> {
  return Object.fromEntries(
    inputs.map((i) => [
      i.toolCallId,
      {
        method: 'elicitation/create',
        params:
          i.kind === 'question'
            ? {
                mode: 'form',
                message: i.question,
                requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
              }
            : {
                mode: 'form',
                message: `Approve ${i.tool} with ${JSON.stringify(i.args)}? (argsHash ${i.argsHash})`,
                requestedSchema: {
                  type: 'object',
                  properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
                  required: ['approved'],
                },
                _meta: { [CALL_META]: { tool: i.tool, args: i.args, argsHash: i.argsHash } },
              },
      },
    ]),
  );
}

/** The answer to `tasks/get`: the task, with what it waits for, its result or its error. */
export function detailedTask(f: TaskFacts): Record<string, unknown> {
  return {
    resultType: 'complete',
    ...base(f),
    ...(f.status === 'input_required' ? { inputRequests: inputRequestsOf(f.inputs ?? []) } : {}),
    ...(f.status === 'completed' && f.result ? { result: callToolResult(f.taskId, f.result) } : {}),
    ...(f.status === 'failed'
      ? { error: { code: -32603, message: f.result?.error?.message ?? 'the run failed' } }
      : {}),
  };
}

/**
 * The answers `tasks/update`'s input responses give, keyed by call id: `accept` with `{ approved,
 * reason? }` or `{ answer }`; `decline` and `cancel` reject an approval (a question gets no answer).
 */
export function answersOf(responses: Record<string, unknown>, waiting: RunInput[]): InputAnswer[] {
  return waiting.flatMap((w): InputAnswer[] => {
    const r = responses[w.toolCallId] as { action?: string; content?: Record<string, unknown> } | undefined;
    if (!r) return [];
    const content = r.content ?? {};
    if (w.kind === 'question')
      return r.action === 'accept' && typeof content.answer === 'string'
        ? [{ toolCallId: w.toolCallId, answer: content.answer }]
        : [];
    const approve = r.action === 'accept' && content.approved === true;
    const reason =
      typeof content.reason === 'string'
        ? content.reason
        : r.action === 'accept'
          ? undefined
          : `${r.action}ed by the client`;
    return [{ toolCallId: w.toolCallId, approve, argsHash: w.argsHash, ...(reason ? { reason } : {}) }];
  });
}

/** Whether a `tools/call` asks for a task: 2025-11-25's `task` parameter, or the 2026-07-28 client capability. */
export function wantsTask(params: { task?: unknown; _meta?: Record<string, unknown> }): boolean {
  if (params.task !== undefined) return true;
  const caps = params._meta?.[CLIENT_CAPABILITIES_META] as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}
