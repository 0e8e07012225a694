import type { AgentEvent } from '../../../src/contracts/agent-events';
import type { AgentResult } from '../../../src/contracts/agent-run';
import type { RunMessage } from '../../../src/contracts/run-message';
import { caseRunOf, type RunReads } from '../../../src/evals/run-case';

const result = { finalText: 'Done.' } as AgentResult;
const logged: RunMessage[] = [
  { role: 'user', seq: 0, origin: 'task', text: 'Delete old.md.' },
  {
    role: 'assistant',
    seq: 1,
    text: '',
    thinking: [],
    toolCalls: [{ id: 'c1', name: 'delete_file', arguments: { path: 'old.md' } }],
  },
];
const asked: AgentEvent = { type: 'approval_required', tool: 'delete_file' } as AgentEvent;

/** What a case's run is read from, counting the state queries (each one a worker's replay of the run). */
function reads(messages: RunMessage[] | undefined) {
  const queried: string[] = [];
  const from: RunReads = {
    state: (id) => {
      queried.push(id);
      return Promise.resolve({ events: [asked] });
    },
    ...(messages ? { messages: () => Promise.resolve(messages) } : {}),
  };
  return { from, queried };
}

describe("a case's ended run, as its graders read it", () => {
  it('reads the calls from the conversation and asks for no state when no grader reads the events', async () => {
    const { from, queried } = reads(logged);
    const run = await caseRunOf(from, [{ type: 'tool_called' }, { type: 'within' }], 'r', result, 5);
    expect(queried).toEqual([]);
    expect(run).toMatchObject({ events: [], toolCalls: [{ name: 'delete_file', arguments: { path: 'old.md' } }] });
  });

  it('asks for the state when a grader reads the events, or the conversation cannot be read', async () => {
    for (const type of ['approval_requested', 'check']) {
      const { from, queried } = reads(logged);
      const run = await caseRunOf(from, [{ type }], 'r', result, 5);
      expect(queried).toEqual(['r']);
      expect(run.approvalsRequested).toEqual(['delete_file']);
    }
    const { from, queried } = reads(undefined);
    await caseRunOf(from, [{ type: 'tool_called' }], 'r', result, 5);
    expect(queried).toEqual(['r']);
  });
});
