import { applyDecision, argsHash, callMode, decisionRefusal, expireApprovals } from '../../src/policy/approval-rules';
import { canonicalJson } from '../../src/common/canonical-json';
import { buildAgentConfig, configProblems, modelOptionProblems } from '../../src/policy/agent-config';
import { parseModelRef as m } from '../../src/policy/model-ref';
import { planCompaction, safeSplitPoints } from '../../src/policy/context-plan';
import { planRecitation, toProviderMessages } from '../../src/policy/provider-view';
import { type LoggedBody } from '../../src/contracts/stored-body';
import { pushEvent } from '../../src/policy/event-log';
import { type AgentEvent } from '../../src/contracts/agent-events';
import { defaultLimits, limitReached } from '../../src/policy/limits';
import { drain, enqueueOnce } from '../../src/policy/queues';
import {
  failoverAfter,
  initialResolverState,
  nonRetryableModelFailures,
  resolveTurnModel,
  resolverPolicy,
} from '../../src/policy/resolver';
import { carryState, initialState, restoreState, resultOf } from '../../src/policy/agent-state';
import { estimateBodyTokens, estimateTextTokens } from '../../src/policy/token-estimate';
import type { MessageMeta } from '../../src/contracts/agent-run';
import type { PendingApproval } from '../../src/contracts/approval';
import { LLM_FAILURE } from '../../src/contracts/failure-types';
import { emptyCost, emptyUsage, type AssistantMessage } from '../../src/contracts/message-model';

const pending = (over: Partial<PendingApproval> = {}): PendingApproval => ({
  toolCallId: 'c1',
  tool: 'delete_file',
  args: { path: 'a' },
  argsHash: argsHash({ path: 'a' }),
  turn: 1,
  state: 'pending',
  ...over,
});

describe('approvals', () => {
  it('hashes arguments independently of key order and distinguishes values', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: null } })).toBe('{"a":{"c":null,"d":[1,2]},"b":1}');
    expect(argsHash({ a: 1, b: 2 })).toBe(argsHash({ b: 2, a: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
    expect(argsHash({ path: '/tmp/x' })).toMatch(/^[0-9a-f]{14}$/);
  });

  it('refuses unknown, decided and mismatched decisions, accepts a bound one', () => {
    const list = [pending(), pending({ toolCallId: 'c2', state: 'approved' })];
    const hash = list[0].argsHash;
    expect(decisionRefusal(list, { toolCallId: 'nope', argsHash: hash, decision: 'approve' })).toMatch(
      /no approval is pending/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c2', argsHash: list[1].argsHash, decision: 'reject' })).toMatch(
      /already approved/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: 'deadbeef', decision: 'approve' })).toMatch(/differ/);
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'reject', editedArgs: {} })).toMatch(
      /only go with an approval/,
    );
    expect(
      decisionRefusal(list, {
        toolCallId: 'c1',
        argsHash: hash,
        decision: 'approve',
        editedArgs: [] as unknown as Record<string, unknown>,
      }),
    ).toMatch(/JSON object/);
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'maybe' as 'approve' })).toMatch(
      /approve" or "reject/,
    );
    expect(decisionRefusal(list, { toolCallId: 'c1', argsHash: hash, decision: 'approve' })).toBeUndefined();
    const applied = applyDecision(list, {
      toolCallId: 'c1',
      argsHash: hash,
      decision: 'approve',
      editedArgs: { path: 'b' },
    });
    expect(applied).toMatchObject({ state: 'approved', decidedBy: 'user', editedArgs: { path: 'b' } });
  });

  it('expires only pending approvals, as readable rejections', () => {
    const list = [pending(), pending({ toolCallId: 'c2', state: 'approved' })];
    expect(expireApprovals(list, 24 * 3_600_000).map((a) => a.toolCallId)).toEqual(['c1']);
    expect(list[0]).toMatchObject({ state: 'rejected', decidedBy: 'timeout', reason: 'no decision within 24 h' });
    expect(list[1].state).toBe('approved');
  });

  it('decides the mode of a call in one place: own mode, approve list and rules', () => {
    const run = { rules: [{ tool: 'fs_write', when: [{ path: 'path', matches: '^/etc/' }] }, { tool: 'shell_*' }] };
    const server = (name: string) => ({ name, mode: 'server' as const });
    expect(callMode(server('fs_write'), { path: '/etc/passwd' }, run)).toBe('approval');
    expect(callMode(server('fs_write'), { path: '/tmp/x' }, run)).toBe('server');
    expect(callMode(server('shell_run'), {}, run)).toBe('approval');
    expect(callMode({ name: 'shell_run', mode: 'client' }, {}, run)).toBe('client');
    expect(callMode(server('fs_read'), {}, { ...run, approve: ['fs_*'] })).toBe('approval');
    expect(callMode({ name: 'fs_read', mode: 'client' }, {}, { approve: ['*'] })).toBe('client');
    const pay = (when: object) => ({ rules: [{ tool: 'pay', when: [{ path: 'opts.amount', ...when }] }] });
    expect(callMode(server('pay'), { opts: { amount: 5 } }, pay({ exists: true }))).toBe('approval');
    expect(callMode(server('pay'), { opts: { amount: 6 } }, pay({ equals: 5 }))).toBe('server');
  });
});

describe('resolver policy', () => {
  it('switches once per budget rule crossed, with the reason', () => {
    const policy = resolverPolicy(m('a/big'), [], {
      budget: [
        { afterTokens: 100, model: m('a/small') },
        { afterCostUsd: 1, model: m('a/tiny') },
      ],
    });
    const state = initialResolverState(policy);
    expect(resolveTurnModel(policy, state, { totalTokens: 50, costUsd: 0 })).toBeUndefined();
    expect(resolveTurnModel(policy, state, { totalTokens: 150, costUsd: 0 })).toEqual({
      from: 'a/big',
      to: 'a/small',
      reason: 'budget: 150 tokens spent (threshold 100)',
    });
    expect(resolveTurnModel(policy, state, { totalTokens: 200, costUsd: 0.5 })).toBeUndefined();
    expect(resolveTurnModel(policy, state, { totalTokens: 300, costUsd: 1.2 })?.to).toBe('a/tiny');
    expect(state.switches).toBe(2);
  });

  it('walks the fallback chain on provider failures and stops on request errors', () => {
    const policy = resolverPolicy(m('a/one'), [m('b/two'), m('c/three')]);
    const state = initialResolverState(policy);
    expect(failoverAfter(policy, state, { type: LLM_FAILURE.badRequest, retryable: false })).toBeUndefined();
    expect(failoverAfter(policy, state, { type: LLM_FAILURE.overloaded, retryable: true })).toEqual({
      from: 'a/one',
      to: 'b/two',
      reason: 'failover: a/one overloaded',
    });
    expect(failoverAfter(policy, state, { type: LLM_FAILURE.serverError, retryable: true })?.reason).toBe(
      'failover: b/two LlmServerError after 3 attempts',
    );
    expect(failoverAfter(policy, state, { type: LLM_FAILURE.serverError, retryable: true })).toBeUndefined();
  });

  it('does not retry overload while a fallback remains', () => {
    const policy = resolverPolicy(m('a/one'), [m('b/two')]);
    const state = initialResolverState(policy);
    expect(nonRetryableModelFailures(policy, state, [])).toEqual([LLM_FAILURE.overloaded]);
    state.chainIndex = 1;
    expect(nonRetryableModelFailures(policy, state, [])).toEqual([]);
  });

  it('takes an operator request over the budget', () => {
    const policy = resolverPolicy(m('a/big'), [], { budget: [{ afterTokens: 1, model: m('a/small') }] });
    const state = initialResolverState(policy);
    expect(resolveTurnModel(policy, state, { totalTokens: 0, costUsd: 0 }, m('z/op'))?.reason).toBe('operator request');
    expect(resolveTurnModel(policy, state, { totalTokens: 10, costUsd: 0 }, m('z/op'))).toBeUndefined();
    expect(state.current).toEqual({ provider: 'z', model: 'op' });
  });
});

describe('token estimates', () => {
  it('counts CJK characters near one token each and Latin near four characters a token', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcdefgh')).toBe(2);
    expect(estimateTextTokens('你好世界')).toBe(4);
    expect(estimateTextTokens('こんにちは')).toBe(5);
    expect(estimateTextTokens('안녕하세요')).toBe(5);
    // The same meaning in Chinese costs far more per character than in English.
    expect(estimateTextTokens('用户想了解最佳实践')).toBeGreaterThan(estimateTextTokens('best practice') * 2);
  });

  it('counts text, tool arguments and images, not ids or usage', () => {
    const m: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'abcd'.repeat(10) },
        { type: 'tool_call', id: 'x'.repeat(400), name: 'add', arguments: { a: 1 } },
      ],
      provider: 'anthropic',
      model: 'm',
      usage: emptyUsage(),
      cost: emptyCost(),
      stopReason: 'tool_use',
      timestamp: 0,
    };
    expect(estimateBodyTokens(m)).toBe(4 + 10 + 1 + Math.ceil('{"a":1}'.length / 4));
    expect(
      estimateBodyTokens({
        role: 'user',
        content: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(10_000) }],
      }),
    ).toBe(4 + 1200);
  });
});

describe('context plan', () => {
  const meta = (
    seq: number,
    kind: MessageMeta['kind'],
    tokens: number,
    extra: Partial<MessageMeta> = {},
  ): MessageMeta => ({ seq, kind, hash: `h${seq}`, tokens, ...extra });
  const log = [
    meta(0, 'user', 100),
    meta(1, 'assistant', 500, { toolCallIds: ['a', 'b'] }),
    meta(2, 'tool_result', 500, { toolCallId: 'a' }),
    meta(3, 'tool_result', 500, { toolCallId: 'b' }),
    meta(4, 'assistant', 100),
    meta(5, 'user', 100),
  ];

  it('only splits where every earlier tool call has its result', () => {
    expect(safeSplitPoints(log)).toEqual([1, 4, 5, 6]);
  });

  it('compacts past the threshold, keeping as many recent tokens as allowed', () => {
    const policy = { thresholdRatio: 0.8, keepRecentRatio: 0.3 };
    expect(planCompaction(log, 0, 0, policy, 3000)).toBeUndefined();
    expect(planCompaction(log, 0, 0, policy, 2000)).toEqual({ splitIndex: 4, tokensBefore: 1800, keptTokens: 200 });
    // Nothing fits the keep budget: fold everything up to the last safe point.
    expect(planCompaction(log, 0, 0, { thresholdRatio: 0.5, keepRecentRatio: 0.01 }, 2000)?.splitIndex).toBe(5);
  });

  it('ignores kinds the model never sees', () => {
    const notes = [meta(0, 'user', 10), meta(1, 'context_note', 5000), meta(2, 'tool_log', 5000)];
    expect(planCompaction(notes, 0, 0, { thresholdRatio: 0.8, keepRecentRatio: 0.3 }, 1000)).toBeUndefined();
  });
});

describe('conversion to the provider view', () => {
  const assistant = (provider: string): AssistantMessage => ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'answer' },
    ],
    provider,
    model: 'm',
    usage: emptyUsage(),
    cost: emptyCost(),
    stopReason: 'stop',
    timestamp: 1,
  });

  it('drops app-only kinds, turns summaries into user messages and hands over signed reasoning only to its provider', () => {
    const logged: LoggedBody[] = [
      { kind: 'user', body: { role: 'user', content: 'hi', timestamp: 0 } },
      { kind: 'context_note', body: { role: 'context_note', text: 'switched queue', timestamp: 0 } },
      { kind: 'assistant', body: assistant('anthropic') },
      { kind: 'tool_log', body: { role: 'tool_log', text: 'ran', timestamp: 0 } },
    ];
    const same = toProviderMessages(logged, 'anthropic', { text: 'earlier', timestamp: 0 });
    expect(same.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(same[0].content).toBe('Summary of the earlier conversation:\nearlier');
    expect((same[2] as AssistantMessage).content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const other = toProviderMessages(logged, 'openai');
    expect((other[1] as AssistantMessage).content.map((b) => b.type)).toEqual(['text']);
  });

  it('recites a plan as a todo list', () => {
    expect(planRecitation(undefined)).toBeUndefined();
    expect(
      planRecitation([
        { id: '1', title: 'search', done: true },
        { id: '2', title: 'write', done: false },
      ]),
    ).toBe('Current plan (todo list):\n[x] 1. search\n[ ] 2. write');
  });
});

describe('limits, queues, events, state', () => {
  it('each limit has its own stop reason; budgets stop at 95 %', () => {
    const limits = defaultLimits({ maxTurns: 3, maxTotalTokens: 1000, maxCostUsd: 1 });
    const usage = (n: number) => ({ ...emptyUsage(), inputTokens: n });
    const cost = (c: number) => ({ ...emptyCost(), total: c });
    expect(limitReached(limits, { turn: 3, usage: usage(0), cost: cost(0) })).toBe('max_turns');
    expect(limitReached(limits, { turn: 1, usage: usage(949), cost: cost(0) })).toBeUndefined();
    expect(limitReached(limits, { turn: 1, usage: usage(950), cost: cost(0) })).toBe('token_budget');
    expect(limitReached(limits, { turn: 1, usage: usage(0), cost: cost(0.95) })).toBe('cost_budget');
  });

  it('drops duplicate message ids and malformed messages', () => {
    const owner = { seenMessageIds: [] as string[] };
    const queue: { id: string; text: string }[] = [];
    expect(enqueueOnce(owner, queue, { id: 'm1', text: 'a' })).toBe(true);
    expect(enqueueOnce(owner, queue, { id: 'm1', text: 'a' })).toBe(false);
    expect(enqueueOnce(owner, queue, { id: '', text: 'a' })).toBe(false);
    expect(enqueueOnce(owner, queue, { id: 'm2', text: '  ' })).toBe(false);
    expect(drain(queue)).toEqual([{ id: 'm1', text: 'a' }]);
    expect(queue).toEqual([]);
  });

  it('keeps a bounded event trace', () => {
    const events: AgentEvent[] = [];
    let dropped = 0;
    for (let i = 0; i < 5; i++) dropped += pushEvent(events, { type: 'turn_start', model: 'm', at: i, turn: i }, 3);
    expect(events.map((e) => e.turn)).toEqual([2, 3, 4]);
    expect(dropped).toBe(2);
  });

  it('carries the small state across continue-as-new and reports the result shape', () => {
    const config = buildAgentConfig({ task: 'do it', model: 'anthropic/x' });
    const state = initialState(config, 'conv-1');
    state.turn = 4;
    state.steering.push({ id: 's', text: 'later' });
    state.approvals.push(pending({ state: 'approved' }));
    const restored = restoreState(config, JSON.parse(JSON.stringify(carryState(state))));
    expect(restored).toMatchObject({
      conversationId: 'conv-1',
      turn: 4,
      turnsThisRun: 0,
      runs: 2,
      steering: [{ id: 's', text: 'later' }],
      approvals: [],
    });
    state.stopReason = 'max_turns';
    state.status = 'completed';
    expect(Object.keys(resultOf('id-1', state))).toEqual(
      expect.arrayContaining(['id', 'status', 'stopReason', 'finalText', 'turns', 'usage', 'costUsd']),
    );
  });

  it('explains bad options in one line each', () => {
    const config = buildAgentConfig({ task: ' ', model: 'a/model', limits: { maxTurns: 0 } });
    expect(configProblems(config)).toEqual(['maxTurns must be a positive integer, got 0', 'the task is empty']);
    expect(modelOptionProblems({ task: 't', model: 'nomodel', fallbacks: ['a/b', 'c d/e'] })).toEqual([
      'model: "nomodel" is not a model spec: expected provider/model, e.g. anthropic/claude-sonnet-4-6, ' +
        'openai/gpt-5-mini, minimax/MiniMax-M2.5 or openai-compatible/llama3.1',
      'fallbacks[1]: "c d/e" is not a model spec: expected provider/model, e.g. anthropic/claude-sonnet-4-6, ' +
        'openai/gpt-5-mini, minimax/MiniMax-M2.5 or openai-compatible/llama3.1',
    ]);
    expect(() => buildAgentConfig({ task: 't', model: 'nomodel' })).toThrow('"nomodel" is not a model spec');
  });
});
