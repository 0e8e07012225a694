/**
 * PEV workflow tests on the agent fixture (fake provider behind the real adapters, real tools,
 * a file content store): answer builders for the three roles and a starter for the workflow.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { createPevActivities } from '../../src/activities/pev';
import { layerRunSpec } from '../../src/policy/run-spec';
import { type AgentOptions } from '../../src/contracts/agent-options';
import { PEV_FACTS } from '../../src/policy/pev/pev-facts';
import {
  pevProgressQuery,
  type PevAgentResult,
  type PevOptions,
  type PevWorkflowInput,
} from '../../src/contracts/pev-run';
import type { PevProgress } from '../../src/contracts/pev-progress';
import { reply, type FakeReply, type RecordedRequest } from '../../src/testing/fake-provider';
import { agentFixture, anthropicMessages, resetFixture, type AgentFixture } from '../agent/agent-kit';
import { useOnce } from '../kit/lifecycle';

export { PRIMARY, FALLBACK, waitFor } from '../agent/agent-kit';

export interface PevFixture extends AgentFixture {
  pevActivities: Record<string, unknown>;
}

async function pevFixture(): Promise<PevFixture> {
  const fx = await agentFixture();
  const pevActivities = { ...fx.activities, ...createPevActivities({ store: fx.store }) };
  return Object.assign(fx, { pevActivities });
}

type TodoIn = { id: string; description: string; priority?: number; status?: string };

/** Answers as the three roles write them. */
export const answer = {
  plan: (todos: TodoIn[], needsMorePlanning = false): FakeReply =>
    reply.text(
      JSON.stringify({
        type: 'component',
        component: 'planner-response',
        summary: `planned ${todos.length} tasks`,
        needsMorePlanning,
        todos: todos.map((t, i) => ({ priority: i + 1, status: 'pending', ...t })),
      }),
    ),
  executed: (
    summary: string,
    fields: Record<string, unknown> = { taskCompleted: true, nextAction: 'complete' },
  ): FakeReply => reply.text(JSON.stringify({ type: 'component', component: 'executor-response', summary, ...fields })),
  verified: (summary: string): FakeReply =>
    reply.text(
      JSON.stringify({
        type: 'component',
        component: 'verifier-response',
        allCompleted: true,
        userNeedsSatisfied: true,
        overallFeedback: 'ok',
        summary,
        tasks: [],
      }),
    ),
  improve: (...improvements: string[]): FakeReply =>
    reply.text(
      JSON.stringify({
        type: 'component',
        component: 'verifier-response',
        allCompleted: false,
        userNeedsSatisfied: false,
        overallFeedback: 'not yet',
        improvements,
        tasks: [],
      }),
    ),
};

export interface StartPev {
  task: string;
  options?: Partial<AgentOptions>;
  pev?: PevOptions;
  id?: string;
}

/** Starts `pevAgentWorkflow` with a config built the way the client builds it. */
export async function startPev(client: Client, taskQueue: string, start: StartPev): Promise<string> {
  const config = layerRunSpec(PEV_FACTS, [
    { model: 'anthropic/claude-sonnet-4-6' },
    { ...start.options, task: start.task, kind: 'pev' },
  ]);
  const input: PevWorkflowInput = { config, ...(start.pev ? { pev: start.pev } : {}) };
  const id = start.id ?? `pev-${crypto.randomUUID()}`;
  await client.workflow.start(PEV_FACTS.workflowType, { workflowId: id, taskQueue, args: [input] });
  return id;
}

export const pevResult = (client: Client, id: string): Promise<PevAgentResult> =>
  client.workflow.getHandle(id).result() as Promise<PevAgentResult>;

export const pevProgress = (client: Client, id: string): Promise<PevProgress> =>
  client.workflow.getHandle(id).query(pevProgressQuery);

/** The system prompt of a recorded request (Anthropic's `system`, OpenAI's system or developer message). */
export function systemOf(request: RecordedRequest): string {
  if (request.api === 'openai') {
    const messages = request.body.messages as { role: string; content: unknown }[];
    const first = messages.find((m) => m.role === 'system' || m.role === 'developer');
    const content = first?.content;
    return typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => b.text).join('\n') : '';
  }
  const system = request.body.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: { text?: string }) => b.text ?? '').join('\n') : '';
}

/** Which role a recorded request was made for, read from its system prompt. */
export function roleOf(request: RecordedRequest): string {
  const system = systemOf(request);
  return system.startsWith('# Planner')
    ? 'planner'
    : system.startsWith('# Executor')
      ? 'executor'
      : system.startsWith('# Verifier')
        ? 'verifier'
        : 'unknown';
}

/** All text a recorded Anthropic request sends in its messages. */
export function messageText(request: RecordedRequest): string {
  return anthropicMessages(request.body)
    .flatMap((m) => m.blocks)
    .map((b) => (typeof b.text === 'string' ? b.text : JSON.stringify(b.content ?? '')))
    .join('\n');
}

/** The PEV fixture for the enclosing describe block: started once, reset before each test, closed after. */
export const usePevFixture = (): PevFixture => useOnce(pevFixture, (fx) => fx.close(), resetFixture);
