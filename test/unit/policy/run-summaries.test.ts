import {
  decisionWaitSummary,
  modelCallSummary,
  roleStep,
  summariseSummary,
  tellingArgument,
  toolCallSummary,
  turnStep,
} from '../../../src/policy/run-summaries';

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
    expect(modelCallSummary('turn 1', 'anthropic/claude-sonnet-4-6', { movedTo: 'anthropic' })).toBe(
      "turn 1 · model anthropic/claude-sonnet-4-6 · moved to limit anthropic's queue",
    );
    expect(roleStep('executor', { round: 1, cycle: 1, todoId: '2' })).toBe('executor todo 2 round 1');
    expect(roleStep('verifier', { round: 1, cycle: 2 })).toBe('verifier round 1, cycle 2');
    expect(summariseSummary(40, 'openai/gpt-5-mini')).toBe('summarise 40 messages · model openai/gpt-5-mini');
    expect(decisionWaitSummary(['fs_write'], [])).toBe('waiting for approval of fs_write');
    expect(decisionWaitSummary(['fs_write', 'fs_write', 'delete_file'], ['pick_photo'])).toBe(
      "waiting for approval of fs_write, delete_file and the client's result of pick_photo",
    );
  });

  it("name in a model call's summary the quick calls the step before ran inside its own model call", () => {
    const read = { name: 'fs_read', arguments: { path: 'README.md' } };
    expect(modelCallSummary('turn 2', 'm', { ran: { step: 'turn 1', calls: [read] } })).toBe(
      'turn 2 · model m · turn 1 ran tool fs_read README.md',
    );
    const calls = [read, { name: 'fs_list', arguments: { path: 'src' } }, read, read, read];
    expect(modelCallSummary('turn 2', 'm', { ran: { step: 'turn 1', calls } })).toBe(
      'turn 2 · model m · turn 1 ran tools fs_read README.md, fs_list src, fs_read README.md and 2 more',
    );
    expect(modelCallSummary('turn 2', 'm', { ran: { step: 'turn 1', calls: [] } })).toBe('turn 2 · model m');
  });
});
