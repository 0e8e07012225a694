import type { AgentEvent } from '../../src/contracts/agent-events';
import { emptyStats, recordStats } from '../../src/policy/run-stats';
import { traceSteps } from '../../src/client/trace';
import { emptyUsage } from '../../src/contracts/message-model';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture } from './agent-kit';

const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 2 };
const events: AgentEvent[] = [
  { type: 'turn_start', model: PRIMARY, at: 1_000, turn: 1 },
  {
    type: 'model_failure',
    model: PRIMARY,
    failureType: 'LlmOverloaded',
    retryable: true,
    message: '529',
    at: 1_100,
    turn: 1,
  },
  {
    type: 'turn_end',
    model: PRIMARY,
    provider: 'anthropic',
    stopReason: 'tool_use',
    toolCalls: 2,
    usage,
    thought: 'Two sums first.',
    at: 1_400,
    turn: 1,
  },
  { type: 'tool_start', toolCallId: 'a', tool: 'add', args: '{"a":1,"b":2}', at: 1_420, turn: 1 },
  { type: 'tool_start', toolCallId: 'b', tool: 'constructor', args: '{}', at: 1_430, turn: 1 },
  {
    type: 'tool_execution',
    toolCallId: 'a',
    tool: 'add',
    durationMs: 30,
    isError: false,
    preview: '3',
    resultHash: 'h-a',
    at: 1_450,
    turn: 1,
  },
  {
    type: 'tool_execution',
    toolCallId: 'b',
    tool: 'constructor',
    durationMs: 70,
    isError: true,
    preview: 'Tool "constructor" failed: no such tool',
    at: 1_500,
    turn: 1,
  },
  { type: 'steering', messageId: 'm', skippedTools: ['add'], at: 1_510, turn: 1 },
  {
    type: 'tool_execution',
    toolCallId: 'c',
    tool: 'add',
    durationMs: 0,
    isError: true,
    skipped: 'the user redirected',
    at: 1_510,
    turn: 1,
  },
  { type: 'turn_start', model: PRIMARY, at: 1_600, turn: 2 },
  {
    type: 'turn_end',
    model: PRIMARY,
    provider: 'anthropic',
    stopReason: 'stop',
    toolCalls: 0,
    usage,
    at: 2_000,
    turn: 2,
  },
  { type: 'done', stopReason: 'completed', finalText: 'ok', turns: 2, usage, costUsd: 0, at: 2_000, turn: 2 },
];

describe('trace statistics', () => {
  it("fold model time, failures and each tool's calls, errors, skips and time, whatever the tool is called", () => {
    const stats = emptyStats(900);
    for (const e of events) recordStats(stats, e);
    expect(stats).toMatchObject({
      modelCalls: 2,
      modelMs: 400 + 400,
      modelFailures: 1,
      firstAnswerMs: 500,
      lastEventAt: 2_000,
    });
    expect(stats.tools).toEqual({
      add: { calls: 1, errors: 0, skipped: 1, totalMs: 30, maxMs: 30 },
      constructor: { calls: 1, errors: 1, skipped: 0, totalMs: 70, maxMs: 70 },
    });
    expect(JSON.parse(JSON.stringify(stats))).toEqual(stats);
  });

  it('group the kept events into steps, one a turn', () => {
    const steps = traceSteps(events);
    expect(steps.map((s) => [s.turn, s.modelMs, s.stopReason, s.tools.map((t) => t.tool)])).toEqual([
      [1, 400, 'tool_use', ['add', 'constructor', 'add']],
      [2, 400, 'stop', []],
    ]);
    expect(steps[0].notes).toEqual([`${PRIMARY} failed: LlmOverloaded`, 'steered']);
    expect(steps[0]).toMatchObject({ thought: 'Two sums first.', startedAt: 1_000, answeredAt: 1_400 });
    expect(steps[0].tools).toEqual([
      {
        toolCallId: 'a',
        tool: 'add',
        durationMs: 30,
        isError: false,
        args: '{"a":1,"b":2}',
        startedAt: 1_420,
        endedAt: 1_450,
        observation: '3',
        resultHash: 'h-a',
      },
      {
        toolCallId: 'b',
        tool: 'constructor',
        durationMs: 70,
        isError: true,
        args: '{}',
        startedAt: 1_430,
        endedAt: 1_500,
        error: 'Tool "constructor" failed: no such tool',
      },
      { toolCallId: 'c', tool: 'add', durationMs: 0, isError: true, skipped: 'the user redirected', endedAt: 1_510 },
    ]);
    // A trace whose oldest events were dropped starts at the first turn it still has.
    expect(traceSteps(events.slice(3)).map((s) => [s.turn, s.modelMs])).toEqual([
      [1, undefined],
      [2, 400],
    ]);
  });
});

describe('trace of a run on a real server', () => {
  const fx = useAgentFixture();

  it('keeps whole totals across continue-as-new and failover, and shows them with the steps in the CLI', async () => {
    fx.fake.script(
      reply.error(529),
      reply.toolCalls(
        [
          { name: 'add', arguments: { a: 1, b: 2 }, id: 'call_t1' },
          { name: 'add', arguments: { a: 3, b: 4 }, id: 'call_t2' },
        ],
        { text: 'Adding   both\npairs first.' },
      ),
      reply.toolCalls([{ name: 'add', arguments: { a: 5, b: 'six' }, id: 'call_t3' }]),
      reply.text('Sums done.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add things.',
        model: PRIMARY,
        fallbacks: [FALLBACK],
        continueAsNewAfterTurns: 1,
      });
      await agents.result(id);
      const trace = await agents.trace(id);
      expect(trace).toMatchObject({
        status: 'completed',
        stopReason: 'completed',
        turns: 3,
        modelCalls: 3,
        modelFailures: 1,
        finalText: 'Sums done.',
      });
      // Two runs continued as new, yet every call is counted.
      expect(trace.tools).toEqual({
        add: { calls: 3, errors: 1, skipped: 0, totalMs: expect.any(Number), maxMs: expect.any(Number) },
      });
      expect(trace.elapsedMs).toBeGreaterThanOrEqual(trace.modelMs ?? 0);
      expect(trace.firstAnswerMs).toBeGreaterThan(0);
      // Independent calls of a turn run in parallel: they are listed as they finished.
      expect(
        trace.steps.map((s) => [s.turn, s.tools.map((t) => `${t.toolCallId}${t.isError ? '!' : ''}`).sort()]),
      ).toEqual([
        [1, ['call_t1', 'call_t2']],
        [2, ['call_t3!']],
        [3, []],
      ]);
      // Each step has what the model thought and, per call, its arguments and what it gave back.
      const [first, second] = trace.steps;
      expect(first.thought).toBe('Adding both pairs first.');
      const t1 = first.tools.find((t) => t.toolCallId === 'call_t1');
      expect(t1).toMatchObject({ args: '{"a":1,"b":2}', observation: '3', resultHash: expect.any(String) });
      expect(t1?.endedAt).toBeGreaterThanOrEqual(t1?.startedAt ?? Infinity);
      expect(second.tools[0]).toMatchObject({ args: '{"a":5,"b":"six"}', error: expect.stringContaining('add') });
      expect(second.tools[0].observation).toBeUndefined();
      expect(trace.steps[0].notes).toEqual(
        expect.arrayContaining([
          `${PRIMARY} failed: LlmOverloaded`,
          expect.stringMatching(/^switched .* -> openai\/gpt-4o-mini/),
        ]),
      );

      const cli = agentCli(client, taskQueue);
      const text = await cli.run('trace', id);
      expect(text).toMatch(new RegExp(`^${id} \\(react\\): completed · 3 turns in \\d`));
      expect(text).toMatch(/^model: 3 calls, .* waiting for answers, first answer after .*, 1 failure$/m);
      expect(text).toMatch(/^ {2}add: 3 calls, .*, 1 error$/m);
      expect(text).toMatch(/^ {4}add \(call_t3\) \{"a":5,"b":"six"\} \d+ ms, error\n {6}-> .*add/m);
      expect(text).toMatch(/^ {4}thought: Adding both pairs first\.$/m);
      expect(text).toMatch(/^ {4}add \(call_t1\) \{"a":1,"b":2\} \d+ ms\n {6}-> 3$/m);
      expect(text).toContain('final: Sums done.');
      expect(JSON.parse(await cli.run('trace', id, '--json'))).toEqual(JSON.parse(JSON.stringify(trace)));
    });
  });
});
