import type { AgentEvent } from '../../src/contracts/agent-events';
import { emptyStats, recordStats } from '../../src/policy/run-stats';
import { AgentClient } from '../../src/client';
import { storedSteps, traceOf, traceSteps } from '../../src/client/trace';
import type { AgentStateView } from '../../src/contracts/agent-run';
import type { RunMessage } from '../../src/contracts/run-message';
import { emptyUsage } from '../../src/contracts/message-model';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { formatTrace } from '../../src/cli/render-run';
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
      // A failure that says nothing of its attempts counts as one.
      modelFailedAttempts: 1,
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
    expect(steps[0]).toMatchObject({ startedAt: 1_000, answeredAt: 1_400 });
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
        notesBefore: 1,
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
        notesBefore: 1,
      },
      {
        toolCallId: 'c',
        tool: 'add',
        durationMs: 0,
        isError: true,
        skipped: 'the user redirected',
        endedAt: 1_510,
        notesBefore: 2,
      },
    ]);
    // A trace whose oldest events were dropped starts at the first turn it still has.
    expect(traceSteps(events.slice(3)).map((s) => [s.turn, s.modelMs])).toEqual([
      [1, undefined],
      [2, 400],
    ]);
  });
});

describe('a trace as the CLI prints it', () => {
  const cached = { inputTokens: 3, outputTokens: 79, cacheReadTokens: 1_200, cacheWriteTokens: 20 };
  const approved: AgentEvent[] = [
    { type: 'phase', phase: 'planning', cycle: 1, at: 900, turn: 0 },
    { type: 'turn_start', model: PRIMARY, at: 1_000, turn: 1 },
    {
      type: 'turn_end',
      model: PRIMARY,
      provider: 'anthropic',
      stopReason: 'tool_use',
      toolCalls: 1,
      usage: cached,
      at: 1_400,
      turn: 1,
    },
    {
      type: 'approval_required',
      toolCallId: 'w',
      tool: 'write_note',
      argsHash: 'h',
      args: '{"t":"x"}',
      at: 1_410,
      turn: 1,
    },
    {
      type: 'approval_decided',
      toolCallId: 'w',
      tool: 'write_note',
      decision: 'approved',
      by: 'user',
      edited: true,
      at: 1_500,
      turn: 1,
    },
    { type: 'tool_start', toolCallId: 'w', tool: 'write_note', args: '{"t":"y"}', at: 1_510, turn: 1 },
    {
      type: 'tool_execution',
      toolCallId: 'w',
      tool: 'write_note',
      durationMs: 5,
      isError: false,
      preview: 'ok',
      at: 1_515,
      turn: 1,
    },
    { type: 'steering', messageId: 'm', text: 'Now stop.', skippedTools: [], at: 1_520, turn: 1 },
  ];
  const trace = (events: AgentEvent[]) =>
    formatTrace({
      id: 'r',
      kind: 'pev',
      status: 'completed',
      turns: 1,
      model: PRIMARY,
      usage: cached,
      costUsd: 0,
      finalText: '',
      tools: {},
      steps: traceSteps(events),
      droppedEvents: 0,
    });

  it('lists an approved call after its approval, and what came after the call after it', () => {
    const lines = trace(approved).split('\n');
    const at = (text: string) => lines.findIndex((l) => l.includes(text));
    expect(at('approval asked for write_note')).toBeLessThan(at('write_note (w) approved with edited arguments'));
    expect(at('write_note (w) approved with edited arguments')).toBeLessThan(at('write_note (w) {"t":"y"}'));
    expect(at('write_note (w) {"t":"y"}')).toBeLessThan(at('steered: Now stop.'));
  });

  it('counts every input token of a turn, the cached ones named', () => {
    expect(trace(approved)).toContain(`  turn 1: ${PRIMARY} · 400 ms · tool_use · 1223 in (1200 cached) / 79 out`);
  });

  it("names what came before the first turn's model call, not an empty turn 0", () => {
    const lines = trace(approved).split('\n');
    expect(lines).not.toContain('  turn 0: ');
    expect(lines.slice(lines.indexOf('  before turn 1:'), lines.indexOf('  before turn 1:') + 2)).toEqual([
      '  before turn 1:',
      '    planning (cycle 1)',
    ]);
  });
});

describe('trace steps from the stored conversation', () => {
  const answer = (
    seq: number,
    timestamp: number,
    calls: [string, Record<string, unknown>][],
    text = '',
  ): RunMessage => ({
    role: 'assistant',
    seq,
    model: PRIMARY,
    stopReason: calls.length ? 'tool_use' : 'stop',
    usage,
    text,
    thinking: [],
    toolCalls: calls.map(([id, args]) => ({ id, name: 'add', arguments: args })),
    timestamp,
  });
  const result = (seq: number, toolCallId: string, text: string, isError = false): RunMessage => ({
    role: 'tool_result',
    seq,
    toolCallId,
    toolName: 'add',
    isError,
    text,
    timestamp: 3_000 + seq,
  });
  const messages: RunMessage[] = [
    // Taken over from an earlier run: answered before this run started.
    { role: 'user', seq: 0, origin: 'task', text: 'Earlier task.', timestamp: 10 },
    answer(1, 20, [], 'Earlier answer.'),
    { role: 'user', seq: 2, origin: 'task', text: 'Add.', timestamp: 1_000 },
    answer(3, 1_100, [['c1', { a: 1, b: 2 }]], 'Adding   first.'),
    result(4, 'c1', '3'),
    answer(5, 1_200, [
      ['c2', { a: 'x' }],
      ['c3', { a: 2, b: 2 }],
    ]),
    result(6, 'c2', 'add failed: a is not a number', true),
    result(7, 'c3', '4'),
    answer(8, 1_300, [], 'Done.'),
  ];

  /** A closed 3-turn run's state view that keeps `kept` of its events, `dropped` others gone. */
  const viewOf = (kept: object[], dropped: number): AgentStateView =>
    ({
      id: 'r',
      kind: 'react',
      status: 'completed',
      turn: 3,
      model: PRIMARY,
      usage,
      costUsd: 0,
      finalText: 'Done.',
      stats: { ...emptyStats(900), lastEventAt: 1_300 },
      events: kept,
      droppedEvents: dropped,
    }) as unknown as AgentStateView;

  it("number the run's own answers as turns, with each call's arguments and stored result", () => {
    const steps = storedSteps(messages, 900, 99);
    expect(steps.map((s) => [s.turn, s.stopReason, s.thought, s.answeredAt])).toEqual([
      [1, 'tool_use', 'Adding first.', 1_100],
      [2, 'tool_use', undefined, 1_200],
      [3, 'stop', undefined, 1_300],
    ]);
    expect(steps[0].tools).toEqual([
      { toolCallId: 'c1', tool: 'add', isError: false, args: '{"a":1,"b":2}', observation: '3', endedAt: 3_004 },
    ]);
    expect(steps[1].tools[0]).toMatchObject({ isError: true, error: 'add failed: a is not a number' });
    expect(storedSteps(messages, 900, 3).map((s) => s.turn)).toEqual([1, 2]);
  });

  it('fill the turns the state no longer keeps, and what the first kept turn lost, into the trace', () => {
    // The window starts inside turn 2: its start and answer are gone, its call's result is kept.
    const view = viewOf(
      [{ ...events[6], toolCallId: 'c2', turn: 2 }, ...events.slice(9, 11).map((e) => ({ ...e, turn: 3 }))],
      7,
    );
    const trace = traceOf(view, messages);
    expect(trace.stepsFromStore).toBe(2);
    expect(trace.steps.map((s) => [s.turn, s.tools.map((t) => t.toolCallId)])).toEqual([
      [1, ['c1']],
      [2, ['c2', 'c3']],
      [3, []],
    ]);
    // Turn 2's answer comes from the store, its kept call's duration from the events.
    expect(trace.steps[1]).toMatchObject({ stopReason: 'tool_use', answeredAt: 1_200 });
    expect(trace.steps[1].tools[0]).toMatchObject({ durationMs: 70, error: 'Tool "constructor" failed: no such tool' });
    expect(trace.steps[1].tools[1]).toEqual(expect.objectContaining({ observation: '4', args: '{"a":2,"b":2}' }));
    expect(trace.steps[1].tools[1].durationMs).toBeUndefined();
    expect(traceOf(view).steps.map((s) => s.turn)).toEqual([2, 3]);
  });

  it('give each kept turn what the model thought, from its stored answer', () => {
    const view = viewOf(
      events.map((e) => ({ ...e })),
      0,
    );
    expect(traceOf(view, messages).steps.map((s) => [s.turn, s.thought])).toEqual([
      [1, 'Adding first.'],
      [2, undefined],
    ]);
    expect(traceOf(view).steps[0].thought).toBeUndefined();
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
      // With the store, the trace reads what the model thought from the stored answers.
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      const id = await agents.start({
        session: { continueAsNewAfterTurns: 1 },
        task: 'Add things.',
        model: { primary: PRIMARY, fallbacks: [FALLBACK] },
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

      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const text = await cli.run('trace', id);
      expect(text).toMatch(new RegExp(`^${id} \\(react\\): completed · 3 turns in \\d`));
      // The overloaded model failed over at once: one failed call, its attempts not more than it.
      expect(text).toMatch(/^model: 3 calls, .* waiting for answers, first answer after .*, 1 failed call$/m);
      expect(text).toMatch(/^ {2}add: 3 calls, .*, 1 error$/m);
      expect(text).toMatch(/^ {4}add \(call_t3\) \{"a":5,"b":"six"\} \d+ ms, error\n {6}-> .*add/m);
      expect(text).toMatch(/^ {4}thought: Adding both pairs first\.$/m);
      expect(text).toMatch(/^ {4}add \(call_t1\) \{"a":1,"b":2\} \d+ ms\n {6}-> 3$/m);
      expect(text).toContain('final: Sums done.');
      expect(JSON.parse(await cli.run('trace', id, '--json'))).toEqual(JSON.parse(JSON.stringify(trace)));
    });
  });

  it('counts a call that failed with a 5xx after all its attempts as one failed call of three attempts', async () => {
    fx.fake.script(reply.error(500), reply.error(500), reply.error(500), reply.text('Answered by the fallback.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Say something.', model: { primary: PRIMARY, fallbacks: [FALLBACK] } });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Answered by the fallback.' });
      expect(fx.fake.requests).toHaveLength(4);
      const trace = await agents.trace(id);
      expect(trace).toMatchObject({ modelCalls: 1, modelFailures: 1, modelFailedAttempts: 3 });
      expect(trace.steps[0].notes).toContain(`${PRIMARY} failed after 3 attempts: LlmServerError`);
      const cli = agentCli(client, taskQueue);
      const text = await cli.run('trace', id);
      expect(text).toMatch(
        /^model: 1 call, .* waiting for answers, first answer after .*, 1 failed call \(3 attempts\)$/m,
      );
      expect(text).toContain(`    ${PRIMARY} failed after 3 attempts: LlmServerError`);
      const watched = await cli.run('watch', id, '--no-tokens');
      expect(watched).toMatch(new RegExp(`${PRIMARY} failed after 3 attempts \\(LlmServerError, retryable\\): `));
    });
  });

  it('covers a run longer than the events it keeps, reading the early turns from the content store', async () => {
    const TURNS = 28;
    fx.fake.script(
      ...Array.from({ length: TURNS }, (_, i) =>
        reply.toolCalls([{ name: 'add', arguments: { a: i, b: 1 }, id: `call_w${i + 1}` }], {
          text: `Turn ${i + 1} adds.`,
        }),
      ),
      reply.text('All added.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      // Continuing as new after the 27th turn carries only the newest events.
      const id = await agents.start({
        session: { continueAsNewAfterTurns: TURNS - 1 },
        task: 'Add many.',
        model: PRIMARY,
      });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', turns: TURNS + 1 });
      const state = await agents.state(id);
      expect(state.droppedEvents).toBeGreaterThan(0);
      expect(traceOf(state).steps[0].turn).toBeGreaterThan(1);

      const trace = await agents.trace(id);
      expect(trace.steps.map((s) => s.turn)).toEqual(Array.from({ length: TURNS + 1 }, (_, i) => i + 1));
      expect(trace.stepsFromStore).toBeGreaterThan(0);
      expect(trace.steps[0]).toMatchObject({ model: PRIMARY, stopReason: 'tool_use', thought: 'Turn 1 adds.' });
      expect(trace.steps[0].tools).toEqual([
        expect.objectContaining({ toolCallId: 'call_w1', args: '{"a":0,"b":1}', observation: '1', isError: false }),
      ]);
      expect(trace.steps.at(-1)).toMatchObject({ turn: TURNS + 1, stopReason: 'stop' });

      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const text = await cli.run('trace', id);
      expect(text).toMatch(
        /^\(\d+ earlier events no longer kept: \d+ steps read from the content store, without durations or notes; the totals are whole\)$/m,
      );
      expect(text).toMatch(
        /^ {2}turn 1: .*tool_use.*\n {4}thought: Turn 1 adds\.\n {4}add \(call_w1\) \{"a":0,"b":1\}\n {6}-> 1$/m,
      );
    });
  });
});
