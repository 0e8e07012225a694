import type { AgentResult } from '../../../src/contracts/agent-run';
import { grade, parseCases, type CaseRun, type Grader } from '../../../src/evals';

function caseRun(over: Partial<AgentResult> = {}, calls: CaseRun['toolCalls'] = []): CaseRun {
  const result: AgentResult = {
    id: 'r',
    kind: 'react',
    status: 'completed',
    stopReason: 'completed',
    finalText: 'The total is 3.',
    turns: 2,
    usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0.01,
    model: 'anthropic/claude-sonnet-4-6',
    messages: 5,
    ...over,
  };
  return { result, events: [], toolCalls: calls, approvalsRequested: ['send'], latencyMs: 5 };
}

const outcome = async (g: Grader, run = caseRun()) => (await grade([g], run))[0];

describe('graders', () => {
  const calls = [
    { name: 'read', arguments: { path: 'a' } },
    { name: 'add', arguments: { a: 1, b: 2 } },
    { name: 'send', arguments: { to: 'ada', body: 'x' } },
  ];
  const run = caseRun({}, calls);

  it('final text contains, matches, and parses against a JSON schema', async () => {
    expect(await outcome({ type: 'text_contains', text: 'total is 3' })).toMatchObject({ pass: true });
    expect(await outcome({ type: 'text_contains', text: '4' })).toMatchObject({
      pass: false,
      message: 'the final text does not contain "4"',
    });
    expect(await outcome({ type: 'text_matches', pattern: 'total is \\d' })).toMatchObject({ pass: true });
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    const json = caseRun({ finalText: 'Here:\n```json\n{"total": 3}\n```' });
    expect(await outcome({ type: 'text_json_schema', schema }, json)).toMatchObject({ pass: true });
    expect(await outcome({ type: 'text_json_schema', schema }, caseRun({ finalText: '{"total":"3"}' }))).toMatchObject({
      pass: false,
      message: expect.stringMatching(/^the final text does not fit the schema/),
    });
    expect(await outcome({ type: 'text_json_schema', schema })).toMatchObject({
      message: 'the final text is not JSON',
    });
  });

  it('tool called, not called, called with, in order', async () => {
    expect(await outcome({ type: 'tool_called', tool: 'add' }, run)).toMatchObject({ pass: true });
    expect(await outcome({ type: 'tool_called', tool: 'add', times: { min: 2 } }, run)).toMatchObject({
      pass: false,
      message: 'add calls 1 below 2',
    });
    expect(await outcome({ type: 'tool_not_called', tool: 'send' }, run)).toMatchObject({
      pass: false,
      message: 'send was called 1 time',
    });
    expect(await outcome({ type: 'tool_called_with', tool: 'send', args: { to: 'ada' } }, run)).toMatchObject({
      pass: true,
    });
    expect(await outcome({ type: 'tool_called_with', tool: 'send', args: { to: 'bob' } }, run)).toMatchObject({
      pass: false,
      message: 'no call of send had {"to":"bob"}; its calls had {"body":"x","to":"ada"}',
    });
    expect(await outcome({ type: 'tools_in_order', tools: ['read', 'send'] }, run)).toMatchObject({ pass: true });
    expect(await outcome({ type: 'tools_in_order', tools: ['send', 'read'] }, run)).toMatchObject({
      pass: false,
      message: 'read was not called after send (calls: read, add, send)',
    });
  });

  it('approval requested, stop reason, and bounds on turns, tokens, cost and drift', async () => {
    expect(await outcome({ type: 'approval_requested', tool: 'send' })).toMatchObject({ pass: true });
    expect(await outcome({ type: 'stop_reason', is: 'max_turns' })).toMatchObject({
      pass: false,
      message: 'the stop reason is completed, not max_turns',
    });
    expect(
      await outcome({ type: 'within', turns: { max: 2 }, tokens: { max: 120 }, costUsd: { max: 0.01 } }),
    ).toMatchObject({
      pass: true,
    });
    expect(await outcome({ type: 'within', tokens: { max: 100 } })).toMatchObject({ message: 'tokens 120 above 100' });
    const drifted = caseRun({ eval: { served: 1, live: 0, drift: 2, driftCalls: [] } });
    expect(await outcome({ type: 'within', drift: { max: 0 } }, drifted)).toMatchObject({ message: 'drift 2 above 0' });
    const childDrift = caseRun({ eval: { served: 1, live: 0, drift: 0, driftCalls: [], childDrift: 3 } });
    expect(await outcome({ type: 'within', drift: { max: 2 } }, childDrift)).toMatchObject({
      message: 'drift 3 above 2',
    });
  });

  it("the calls with side effects as recorded: the run's pinned tools with side effects, in order, with the same arguments", async () => {
    const effects = caseRun(
      { eval: { served: 3, live: 0, drift: 0, driftCalls: [], sideEffectTools: ['send'] } },
      calls,
    );
    const recorded = [calls[1], calls[2]];
    expect(await outcome({ type: 'effects_as_recorded', calls: recorded }, effects)).toMatchObject({ pass: true });
    expect(
      await outcome(
        { type: 'effects_as_recorded', calls: [{ name: 'send', arguments: { to: 'bob', body: 'x' } }] },
        effects,
      ),
    ).toEqual({
      name: 'calls with side effects as recorded',
      pass: false,
      message: 'call 1 with side effects: recorded send {"body":"x","to":"bob"}, replayed send {"body":"x","to":"ada"}',
    });
    expect(await outcome({ type: 'effects_as_recorded', calls: [] }, effects)).toMatchObject({
      message: 'call 1 with side effects: recorded no call, replayed send {"body":"x","to":"ada"}',
    });
  });

  it('a grader function passes with true or nothing, fails with false or its message, and a throw fails it with the message', async () => {
    const check = (fn: (r: CaseRun) => unknown): Grader => ({ type: 'check', name: 'mine', check: fn as never });
    expect(await outcome(check(() => undefined))).toEqual({ name: 'mine', pass: true });
    expect(await outcome(check(() => false))).toEqual({ name: 'mine', pass: false, message: 'mine returned false' });
    expect(await outcome(check(() => 'too slow'))).toEqual({ name: 'mine', pass: false, message: 'too slow' });
    expect(
      await outcome(
        check(() => {
          throw new Error('boom');
        }),
      ),
    ).toEqual({ name: 'mine', pass: false, message: 'the grader threw: boom' });
  });
});

describe('parseCases', () => {
  const base = { name: 'c', task: 't', graders: [{ type: 'stop_reason', is: 'completed' }] };

  it('reads one case or a list', () => {
    expect(parseCases(base, 'a.json')).toMatchObject({ cases: [{ name: 'c' }] });
    expect(parseCases([base, { ...base, name: 'd' }], 'a.json')).toMatchObject({
      cases: [{ name: 'c' }, { name: 'd' }],
    });
  });

  it('names the first problem of a malformed case in one line', () => {
    expect(parseCases({ ...base, graders: [{ type: 'text_contians', text: 'x' }] }, 'a.json')).toEqual({
      problem: expect.stringMatching(
        /^a\.json: graders\[0\]: unknown grader type "text_contians"; known: text_contains, /,
      ),
    });
    expect(parseCases({ ...base, graders: [base.graders[0], { type: 'tool_called' }] }, 'a.json')).toEqual({
      problem: 'a.json: graders[1]: tool: Invalid input: expected string, received undefined',
    });
    expect(parseCases([base, { ...base, task: '' }], 'a.json')).toEqual({
      problem: expect.stringMatching(/^a\.json\[1\]: task: /),
    });
    expect(parseCases({ ...base, tsak: 'x' }, 'a.json')).toEqual({ problem: 'a.json: unknown field "tsak"' });
    expect(parseCases({ ...base, graders: [{ type: 'text_matches', pattern: '(' }] }, 'a.json')).toEqual({
      problem: 'a.json: graders[0]: pattern: not a regular expression',
    });
    expect(parseCases([], 'a.json')).toEqual({ problem: 'a.json: no cases' });
  });
});
