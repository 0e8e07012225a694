import { reply } from '../../src/testing/fake-provider';
import type { HookErrorInput, HookMessageInput, HookTurnEndInput } from '../../src/contracts/agent-hooks';
import type { AgentEvent } from '../../src/contracts/agent-events';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { CHEAP, FALLBACK, PRIMARY, useAgentFixture } from './agent-kit';
import type { StartAgentOptions } from '../../src/client';

const hookLog: {
  turnEnds: HookTurnEndInput[];
  messages: HookMessageInput[];
  errors: HookErrorInput[];
  stopAtTurn?: number;
} = {
  turnEnds: [],
  messages: [],
  errors: [],
};

/** User-supplied hook activities, registered on the worker like any activity. */
const hooks = {
  async creditCheck(input: HookTurnEndInput): Promise<boolean> {
    hookLog.turnEnds.push(input);
    return hookLog.stopAtTurn === undefined || input.turn < hookLog.stopAtTurn;
  },
  async brokenCreditCheck(): Promise<boolean> {
    throw new Error('credit service down');
  },
  async persistMessage(input: HookMessageInput): Promise<void> {
    hookLog.messages.push(input);
    if (input.message.kind === 'tool_result') throw new Error('database unavailable');
  },
  async notifyError(input: HookErrorInput): Promise<void> {
    hookLog.errors.push(input);
    throw new Error('notifier down');
  },
};

const switches = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: 'provider_switch' }> => e.type === 'provider_switch');

describe('provider switching', () => {
  const fx = useAgentFixture(hooks);

  async function run(options: Omit<StartAgentOptions, 'task'> & { task?: string }, history?: string) {
    return withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Work on it.', ...options });
      const result = await agents.result(id);
      if (history) await saveHistoryIfRecording(client.workflow.getHandle(id), history);
      return { result, state: await agents.state(id) };
    });
  }

  it('a 529 storm on the primary fails over to the fallback, recorded as an event with its reason', async () => {
    fx.fake.script(
      reply.error(529),
      reply.error(529),
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
      reply.text('3'),
    );
    fx.fake.respond(() => reply.error(529));
    const { result, state } = await run({ model: { primary: PRIMARY, fallbacks: [FALLBACK] } }, 'agent-failover');
    expect(result).toMatchObject({ status: 'completed', finalText: '3', model: FALLBACK });
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'openai', 'openai', 'openai']);
    expect(switches(state.events)).toEqual([
      expect.objectContaining({ fromModel: PRIMARY, toModel: FALLBACK, reason: expect.stringContaining('overloaded') }),
    ]);
    const failure = state.events.find((e) => e.type === 'model_failure');
    expect(failure).toMatchObject({ model: PRIMARY, failureType: 'LlmOverloaded', retryable: true });
    expect(state.messages.filter((m) => m.kind === 'assistant').map((m) => m.model)).toEqual([FALLBACK, FALLBACK]);
    expect(state.messages.map((m) => m.kind)).toEqual([
      'user',
      'context_note',
      'assistant',
      'tool_result',
      'assistant',
    ]);
  });

  it('server errors use up the attempts of one provider before the run moves on', async () => {
    fx.fake.script(reply.error(500), reply.error(500), reply.text('from the fallback'));
    const { result, state } = await run({ model: { primary: PRIMARY, fallbacks: [FALLBACK], attemptsPerProvider: 2 } });
    expect(result).toMatchObject({ status: 'completed', finalText: 'from the fallback', model: FALLBACK });
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'anthropic', 'openai']);
    expect(switches(state.events)[0].reason).toContain('LlmServerError after 2 attempts');
  });

  it('a budget threshold switches to a cheaper model mid-run', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }], { usage: { input: 600, output: 20 } }),
      reply.text('4', { usage: { input: 50, output: 5 } }),
    );
    const { result, state } = await run(
      { model: { primary: PRIMARY, budget: [{ afterTokens: 500, model: CHEAP }] } },
      'agent-budget-switch',
    );
    expect(result).toMatchObject({ status: 'completed', model: CHEAP, turns: 2 });
    expect(fx.fake.requests.map((r) => [r.api, r.body.model])).toEqual([
      ['anthropic', 'claude-sonnet-4-6'],
      ['openai', 'gpt-4.1-nano'],
    ]);
    expect(fx.fake.requests[1].error).toBeUndefined();
    expect(switches(state.events)).toEqual([
      expect.objectContaining({
        fromModel: PRIMARY,
        toModel: CHEAP,
        reason: 'budget: 620 tokens spent (threshold 500)',
      }),
    ]);
    expect(state.messages.filter((m) => m.kind === 'assistant').map((m) => m.model)).toEqual([PRIMARY, CHEAP]);
  });

  it('a failure no provider can recover from ends the run with an error stop reason and calls the on-error hook', async () => {
    hookLog.errors.length = 0;
    fx.fake.script(reply.error(401));
    const { result, state } = await run({ model: PRIMARY, hooks: { onError: 'notifyError' } });
    expect(result).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { type: 'LlmAuthentication', retryable: false },
    });
    expect(state.events.find((e) => e.type === 'error')).toMatchObject({
      failureType: 'LlmAuthentication',
      retryable: false,
    });
    expect(hookLog.errors).toEqual([expect.objectContaining({ failureType: 'LlmAuthentication', retryable: false })]);
  });
});

describe('limits and hooks', () => {
  const fx = useAgentFixture(hooks);

  async function run(options: Omit<StartAgentOptions, 'task'>, history?: string) {
    return withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Keep adding.', ...options });
      const result = await agents.result(id);
      if (history) await saveHistoryIfRecording(client.workflow.getHandle(id), history);
      return { result, state: await agents.state(id) };
    });
  }
  const adding = (usage?: { input: number; output: number }) =>
    reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }], usage ? { usage } : {});

  it('max turns', async () => {
    fx.fake.script(adding(), adding(), adding());
    const { result } = await run({ model: PRIMARY, limits: { maxTurns: 2 } }, 'agent-limit-max-turns');
    expect(result).toMatchObject({ status: 'completed', stopReason: 'max_turns', turns: 2 });
    expect(fx.fake.requests).toHaveLength(2);
  });

  it('token budget, at 95 %', async () => {
    fx.fake.script(adding({ input: 940, output: 10 }), adding());
    const { result, state } = await run({ model: PRIMARY, limits: { maxTotalTokens: 1000 } });
    expect(result).toMatchObject({ stopReason: 'token_budget', turns: 1 });
    expect(state.limits.usedTokensRatio).toBeCloseTo(0.95, 5);
  });

  it('cost budget, at 95 %', async () => {
    // claude-sonnet-4-6 input is $3 per million tokens: 4,000 tokens cost $0.012.
    fx.fake.script(adding({ input: 4000, output: 0 }), adding());
    const { result } = await run({ model: PRIMARY, limits: { maxCostUsd: 0.0125 } }, 'agent-limit-cost');
    expect(result.stopReason).toBe('cost_budget');
    expect(result.costUsd).toBeCloseTo(0.012, 6);
  });

  it('max tool calls per turn: no call runs and each gets a result', async () => {
    fx.fake.script(reply.toolCalls([1, 2, 3].map((n) => ({ name: 'add', arguments: { a: n, b: n } }))));
    const { result, state } = await run({ model: PRIMARY, limits: { maxToolCallsPerTurn: 2 } });
    expect(result).toMatchObject({ stopReason: 'max_tool_calls', turns: 1 });
    expect(fx.calls).toEqual([]);
    expect(state.messages.map((m) => m.kind)).toEqual([
      'user',
      'assistant',
      'tool_result',
      'tool_result',
      'tool_result',
    ]);
  });

  it('on-turn-end returning false stops the run; a failing on-message hook is recorded and the run goes on', async () => {
    hookLog.turnEnds.length = 0;
    hookLog.messages.length = 0;
    hookLog.stopAtTurn = 2;
    fx.fake.script(adding({ input: 10, output: 5 }), adding(), adding());
    const { result, state } = await run(
      { model: PRIMARY, hooks: { onTurnEnd: 'creditCheck', onMessage: 'persistMessage' } },
      'agent-hooks',
    );
    hookLog.stopAtTurn = undefined;
    expect(result).toMatchObject({ stopReason: 'hook_stopped', turns: 2 });
    expect(hookLog.turnEnds.map((t) => t.turn)).toEqual([1, 2]);
    expect(hookLog.turnEnds[0]).toMatchObject({ model: PRIMARY, turnUsage: { inputTokens: 10, outputTokens: 5 } });
    // The failing hook was retried under its retry policy, then recorded; each message reached it.
    const seen = new Map(hookLog.messages.map((m) => [m.message.seq, m.message.kind]));
    expect([...seen.values()]).toEqual(['assistant', 'tool_result', 'assistant']);
    expect(state.events.filter((e) => e.type === 'hook_failed')).toHaveLength(1);
    // the second turn's tool call never ran, but has a result
    expect(fx.calls).toEqual(['add:1+1']);
    expect(state.messages.map((m) => m.kind)).toEqual(['user', 'assistant', 'tool_result', 'assistant', 'tool_result']);
  });

  it("an on-turn-end hook that keeps failing ends the run with an error, and the turn's tool calls get results", async () => {
    fx.fake.script(adding());
    const { result, state } = await run({ model: PRIMARY, hooks: { onTurnEnd: 'brokenCreditCheck' } });
    expect(result).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      turns: 1,
      error: { type: 'HookFailed', retryable: false },
    });
    expect(result.error?.message).toContain('credit service down');
    expect(state.events.find((e) => e.type === 'hook_failed')).toMatchObject({ hook: 'onTurnEnd' });
    expect(fx.calls).toEqual([]);
    expect(state.messages.map((m) => m.kind)).toEqual(['user', 'assistant', 'tool_result']);
  });

  it('a per-tool timeout override stops the tool itself: one attempt, an error result the model can read', async () => {
    fx.resetLatch();
    fx.fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'T' }, id: 'toolu_slow' }]),
      reply.text('It timed out.'),
    );
    const { result } = await run({ model: PRIMARY, limits: { toolTimeoutsMs: { slow_step: 1000 } } });
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'It timed out.' });
    const messages = fx.fake.requests[1].body.messages as {
      content: { type: string; content?: unknown; is_error?: boolean }[];
    }[];
    const toolResult = messages[2].content.find((b) => b.type === 'tool_result');
    expect(toolResult?.is_error).toBe(true);
    // The worker's own deadline (the run's 1000 ms, not the tool's default) answered, not an activity timeout.
    expect(JSON.stringify(toolResult?.content)).toContain('Tool \\"slow_step\\" timed out after 1000 ms.');
    expect(fx.calls).toEqual(['slow_step:T']);
  });
});
