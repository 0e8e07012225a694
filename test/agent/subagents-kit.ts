/** What the sub-agent tests share: a declared researcher, who sent a request, and the parent's id. */
import type { Client } from '@temporalio/client';
import type { AgentClient, StartAgentOptions } from '../../src/client';
import type { SubAgents } from '../../src/contracts/sub-agents';
import type { RecordedRequest } from '../../src/testing/fake-provider';
import { PRIMARY, anthropicMessages } from './agent-kit';

export const AGENTS: SubAgents = {
  researcher: {
    description: 'Looks one thing up and reports it.',
    instructions: 'You are the researcher. Answer in one line.',
    maxTurns: 5,
  },
};

/** Who sent a request: `parent`, or the sub-agent named in its prompt; its task; answers so far. */
export function who(request: RecordedRequest): { agent: string; task: string; answers: number } {
  const system = JSON.stringify(request.body.system ?? '');
  const agent = /You are the (\w+)\./.exec(system)?.[1] ?? 'parent';
  const messages = anthropicMessages(request.body);
  const first = messages[0]?.blocks.find((b) => b.type === 'text');
  return {
    agent,
    task: String(first?.text ?? ''),
    answers: messages.filter((m) => m.role === 'assistant').length,
  };
}

/** Waits until the run `id` has received a signal. */
export async function signalled(client: Client, id: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { events } = await client.workflow.getHandle(id).fetchHistory();
    if ((events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${id} was never signalled`);
}

/**
 * A parent's id: its history's name when recording, since the replay gate replays a history under
 * its file name and a child's id is derived from its parent's.
 */
export const parentId = (history: string): string =>
  process.env.RECORD_HISTORIES === '1' ? history : `${history}-${Date.now().toString(36)}`;

/** Starts a parent that may delegate to {@link AGENTS}. */
export const startParent = (agents: AgentClient, options: Partial<StartAgentOptions> = {}): Promise<string> =>
  agents.start({ task: 'Find out two things.', model: PRIMARY, agents: AGENTS, ...options });
