import {
  currentDetails,
  planDecisionDetails,
  shellWord,
  type CurrentDetailsInput,
} from '../../src/policy/current-details';
import {
  decisionWaitSummary,
  modelCallSummary,
  roleStep,
  summariseSummary,
  tellingArgument,
  toolCallSummary,
  turnStep,
} from '../../src/policy/run-summaries';

describe('timeline summaries', () => {
  it('name a tool call by its tool and most telling argument, kept short and on one line', () => {
    expect(toolCallSummary('fs_read', { path: 'README.md' })).toBe('tool fs_read README.md');
    expect(toolCallSummary('fs_write', { content: 'long text', path: 'notes/todo.md' })).toBe(
      'tool fs_write notes/todo.md',
    );
    expect(toolCallSummary('web_fetch', { url: 'https://example.com/a', maxChars: 100 })).toBe(
      'tool web_fetch https://example.com/a',
    );
    expect(toolCallSummary('write_note', { text: 'first line\nsecond line' })).toBe(
      'tool write_note first line second line',
    );
    expect(toolCallSummary('add', { a: 2, b: 3 })).toBe('tool add a=2 b=3');
    expect(toolCallSummary('now', {})).toBe('tool now');
    const long = tellingArgument({ query: 'x'.repeat(100) })!;
    expect(long).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
  });

  it('tell model calls, compactions and waits apart', () => {
    expect(modelCallSummary(turnStep(3), 'openai/gpt-5-mini')).toBe('turn 3 · model openai/gpt-5-mini');
    expect(roleStep('planner', { round: 2, cycle: 1 })).toBe('planner round 2');
    expect(roleStep('executor', { round: 1, cycle: 1, todoId: '2' })).toBe('executor todo 2 round 1');
    expect(roleStep('verifier', { round: 1, cycle: 2 })).toBe('verifier round 1, cycle 2');
    expect(summariseSummary(40, 'openai/gpt-5-mini')).toBe('summarise 40 messages · model openai/gpt-5-mini');
    expect(decisionWaitSummary(['fs_write'], [])).toBe('waiting for approval of fs_write');
    expect(decisionWaitSummary(['fs_write', 'fs_write', 'delete_file'], ['pick_photo'])).toBe(
      "waiting for approval of fs_write, delete_file and the client's result of pick_photo",
    );
  });
});

describe('current details', () => {
  const base: CurrentDetailsInput = {
    id: 'agent-1',
    kind: 'react',
    step: 'turn 3',
    phase: 'tools',
    turn: 3,
    model: 'openai/gpt-5-mini',
    running: [],
    approvals: [],
    clientTools: [],
  };

  it('show the step, phase, turn, model and the tools running with a short preview of their arguments', () => {
    const text = currentDetails({
      ...base,
      doing: 'running tools',
      running: [{ toolCallId: 'c1', tool: 'fs_read', args: { path: 'README.md' } }],
    });
    expect(text).toContain('**turn 3** · react run');
    expect(text).toContain('- phase: tools\n- turn: 3\n- model: `openai/gpt-5-mini`\n- now: running tools');
    expect(text).toContain('**Running tools**\n- `fs_read` README.md');
  });

  it('name a pending call with its arguments and the exact commands that approve or reject it', () => {
    const text = currentDetails({
      ...base,
      id: 'my run',
      approvals: [{ toolCallId: 'toolu_1', tool: 'fs_write', args: { path: 'a.md', content: 'has ``` inside' } }],
      clientTools: [{ toolCallId: 'c2', tool: 'pick_photo', args: { album: 'cats' } }],
    });
    expect(text).toContain('**Waiting for approval** of `fs_write` (call `toolu_1`)');
    // The fence is longer than any backtick run in the arguments.
    expect(text).toContain('````json\n{\n  "path": "a.md",\n  "content": "has ``` inside"\n}\n````');
    expect(text).toContain("- approve: `durable-agents approve 'my run' toolu_1`");
    expect(text).toContain("- reject: `durable-agents reject 'my run' toolu_1 --reason '…'`");
    expect(text).toContain("**Waiting for the client's result** of `pick_photo` (call `c2`)");
    expect(text).toContain(`- answer: \`durable-agents tool-result 'my run' c2 '"…"'\``);
  });

  it('show a plan awaiting its decision with the plan commands, and how a run ended', () => {
    const waiting = planDecisionDetails('pev-1', [
      { id: '1', description: 'Read the notes' },
      { id: '2', description: 'Write the summary' },
    ]);
    const text = currentDetails({ ...base, waiting });
    expect(text).toContain('**Waiting for plan decision** on these todos:\n\n1. Read the notes\n2. Write the summary');
    expect(text).toContain('- approve: `durable-agents plan pev-1`');
    expect(text).toContain("- reject: `durable-agents plan pev-1 --reject --feedback '…'`");

    const ended = currentDetails({
      ...base,
      doing: 'calling the model',
      ended: { stopReason: 'error', status: 'failed', error: 'authentication failed (401)' },
    });
    expect(ended).toContain('- ended: failed (error): authentication failed (401)');
    expect(ended).not.toContain('calling the model');
  });

  it('quote ids for the shell only when needed', () => {
    expect(shellWord('agent-1b2c')).toBe('agent-1b2c');
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
