/** Pure decisions of a lean, cheap turn: masking, fitting without a summary, search attributes, billing. */
import { buildAgentConfig, configProblems } from '../../src/policy/agent-config';
import { billingOf } from '../../src/policy/billing';
import { contextTokens, planFit } from '../../src/policy/context-plan';
import {
  DEFAULT_MASK_POLICY,
  MIN_MASKED_TOKENS,
  READ_RESULT_TOOL,
  STUB_TOKENS,
  fullMaskBefore,
  isMasked,
  maskStub,
  nextMaskBefore,
} from '../../src/policy/masking';
import { toProviderMessages } from '../../src/policy/provider-view';
import { attributeChanges, type AgentAttributeValues } from '../../src/policy/search-attribute-values';
import { estimateBodyTokens } from '../../src/policy/token-estimate';
import type { MessageMeta } from '../../src/contracts/agent-run';
import type { LoggedBody } from '../../src/contracts/stored-body';
import { emptyCost, emptyUsage, textOf, type ToolResultMessage } from '../../src/contracts/message-model';

const meta = (
  seq: number,
  kind: MessageMeta['kind'],
  tokens: number,
  extra: Partial<MessageMeta> = {},
): MessageMeta => ({
  seq,
  kind,
  hash: `h${seq}`,
  tokens,
  ...extra,
});

/** A task, then `turns` tool turns: an answer calling one tool and its result of `tokens` each. */
function toolLoop(turns: number, tokens = 1000): MessageMeta[] {
  const log = [meta(0, 'user', 20)];
  for (let t = 0; t < turns; t++) {
    const seq = 1 + 2 * t;
    log.push(meta(seq, 'assistant', 30, { toolCallIds: [`c${t}`] }));
    log.push(meta(seq + 1, 'tool_result', tokens, { toolCallId: `c${t}`, isError: false }));
  }
  return log;
}

describe('masking old tool results', () => {
  const policy = { keepResults: 3, batch: 5 };

  it('moves the boundary in batches, keeping the newest results whole', () => {
    const boundaries: number[] = [];
    let maskBefore = 0;
    for (let turns = 1; turns <= 20; turns++) {
      maskBefore = nextMaskBefore(toolLoop(turns), maskBefore, policy);
      boundaries.push(maskBefore);
    }
    // Nothing moves until 3 + 5 results exist; then it jumps past five results at once.
    expect(boundaries.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(boundaries[7]).toBe(12); // results 2, 4, 6, 8, 10 masked; 12, 14, 16 whole
    expect([...new Set(boundaries)]).toEqual([0, 12, 22, 32]); // then one move every five turns
    const log = toolLoop(20);
    const whole = log.filter((m) => m.kind === 'tool_result' && !isMasked(m, maskBefore));
    expect(whole.length).toBeGreaterThanOrEqual(3);
    expect(whole.length).toBeLessThan(3 + 5);
  });

  it('never masks failures, small results, or results the model has not answered yet', () => {
    expect(isMasked(meta(2, 'tool_result', 5000, { isError: true }), 10)).toBe(false);
    expect(isMasked(meta(2, 'tool_result', MIN_MASKED_TOKENS), 10)).toBe(false);
    expect(isMasked(meta(2, 'tool_result', 5000), 10)).toBe(true);
    expect(isMasked(meta(2, 'tool_result', 5000), 2)).toBe(false);
    // Twelve parallel calls in the last answer: none of their results may be masked.
    const parallel = [meta(0, 'user', 10), meta(1, 'assistant', 10)];
    for (let i = 0; i < 12; i++) parallel.push(meta(2 + i, 'tool_result', 1000));
    expect(nextMaskBefore(parallel, 0, { keepResults: 1, batch: 1 })).toBe(1);
    expect(fullMaskBefore(parallel, 0)).toBe(1);
  });

  it('counts a masked result as a stub in the context estimate', () => {
    const log = toolLoop(10);
    const whole = contextTokens(log, 0, 0);
    const masked = contextTokens(log, 0, 0, 15);
    expect(whole - masked).toBe(7 * (1000 - STUB_TOKENS));
  });

  it('shows a masked result as a stub naming the tool, its arguments, the size and how to read it again', () => {
    const result = (id: string, text: string): ToolResultMessage => ({
      role: 'tool_result',
      toolCallId: id,
      toolName: 'fs_read',
      content: [{ type: 'text', text }],
      isError: false,
      timestamp: 0,
    });
    const big = 'x'.repeat(4000);
    const logged: LoggedBody[] = [
      { kind: 'user', body: { role: 'user', content: 'read', timestamp: 0 } },
      {
        kind: 'assistant',
        body: {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'c1', name: 'fs_read', arguments: { path: 'README.md' } }],
          provider: 'anthropic',
          model: 'm',
          usage: emptyUsage(),
          cost: emptyCost(),
          stopReason: 'tool_use',
          timestamp: 0,
        },
      },
      { kind: 'tool_result', body: result('c1', big) },
      { kind: 'tool_result', body: { ...result('c2', 'boom'.repeat(1000)), isError: true } },
    ];
    expect(estimateBodyTokens(logged[2].body)).toBeGreaterThan(MIN_MASKED_TOKENS);
    const view = toProviderMessages(logged, 'anthropic', undefined, { fromSeq: 10, maskBefore: 13 });
    const stub = textOf(view[2] as ToolResultMessage);
    expect(stub).toBe(maskStub({ id: 'c1', name: 'fs_read', arguments: { path: 'README.md' } }, 4000));
    expect(stub).toContain('fs_read({"path":"README.md"})');
    expect(stub).toContain('4000 characters');
    expect(stub).toContain(`${READ_RESULT_TOOL} with tool_call_id "c1"`);
    expect(textOf(view[3] as ToolResultMessage)).toBe('boom'.repeat(1000));
    // Below the boundary only: the same entries a position later stay whole.
    const later = toProviderMessages(logged, 'anthropic', undefined, { fromSeq: 11, maskBefore: 13 });
    expect(textOf(later[2] as ToolResultMessage)).toBe(big);
  });

  it('masks a short result by its estimated tokens: 300 Latin characters stay whole, 150 CJK characters do not', () => {
    const result = (id: string, text: string): LoggedBody => ({
      kind: 'tool_result',
      body: {
        role: 'tool_result',
        toolCallId: id,
        toolName: 'fs_read',
        content: [{ type: 'text', text }],
        isError: false,
        timestamp: 0,
      },
    });
    const latin = 'a'.repeat(300);
    const cjk = '字'.repeat(150);
    expect(estimateBodyTokens(result('l', latin).body)).toBeLessThan(MIN_MASKED_TOKENS);
    expect(estimateBodyTokens(result('c', cjk).body)).toBeGreaterThan(MIN_MASKED_TOKENS);
    const view = toProviderMessages([result('l', latin), result('c', cjk)], 'anthropic', undefined, {
      fromSeq: 0,
      maskBefore: 2,
    });
    expect(textOf(view[0] as ToolResultMessage)).toBe(latin);
    expect(textOf(view[1] as ToolResultMessage)).toBe(maskStub({ id: 'c', name: 'fs_read' }, 150));
  });

  it('is on by default for ReAct runs and off for pev runs, and refuses nonsense', () => {
    expect(buildAgentConfig({ task: 't', model: 'a/b' }).context.mask).toEqual(DEFAULT_MASK_POLICY);
    expect(buildAgentConfig({ task: 't', model: 'a/b', kind: 'pev' }).context.mask).toBeUndefined();
    expect(buildAgentConfig({ task: 't', model: 'a/b', masking: false }).context.mask).toBeUndefined();
    expect(buildAgentConfig({ task: 't', model: 'a/b', masking: { keepResults: 8 } }).context.mask).toEqual({
      keepResults: 8,
      batch: DEFAULT_MASK_POLICY.batch,
      byCost: false,
    });
    const bad = buildAgentConfig({ task: 't', model: 'a/b', masking: { keepResults: -1, batch: 0 } });
    expect(configProblems(bad)).toEqual([
      'masking keepResults must be a whole number (0 or more), got -1',
      'masking batch must be a whole number of at least 1, got 0',
    ]);
  });
});

describe('fitting the context without a summary', () => {
  it('masks every answered result first, then leaves the oldest turns out of view at a safe point', () => {
    const log = toolLoop(10);
    const masked = planFit(log, 0, 0, 0, 2000);
    expect(masked).toEqual({ maskBefore: 19, dropIndex: 0, tokensAfter: contextTokens(log, 0, 0, 19) });
    const dropped = planFit(log, 0, 0, 0, 1500);
    expect(log[dropped.dropIndex].kind).toBe('assistant');
    expect(dropped.tokensAfter).toBeLessThanOrEqual(1500);
    // The fewest turns left out: one turn fewer would not fit.
    expect(contextTokens(log.slice(dropped.dropIndex - 2), 0, 0, 19)).toBeGreaterThan(1500);
    // The newest result stays whole however tight the target: the fit reports what it reached.
    const tight = planFit(log, 0, 0, 0, 10);
    expect(tight.tokensAfter).toBeGreaterThan(1000);
    expect(tight.dropIndex).toBe(log.length - 2);
  });
});

describe('search attributes', () => {
  const values = (over: Partial<AgentAttributeValues> = {}): AgentAttributeValues => ({
    kind: 'react',
    phase: 'running',
    model: 'anthropic/claude-sonnet-4-6',
    status: 'running',
    awaitingApproval: false,
    costUsd: 0,
    ...over,
  });

  it('upserts only what changed, and the cost only when it grew by a step or rides along', () => {
    expect(attributeChanges({}, values())).toEqual(values());
    expect(attributeChanges(values(), values())).toEqual({});
    expect(attributeChanges(values(), values({ costUsd: 0.01 }))).toEqual({ costUsd: 0.01 });
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.012 }))).toEqual({});
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.0125 }))).toEqual({ costUsd: 0.0125 });
    expect(attributeChanges(values({ costUsd: 0.01 }), values({ costUsd: 0.011, status: 'completed' }))).toEqual({
      status: 'completed',
      costUsd: 0.011,
    });
  });

  it('writes few cost upserts over a long run', () => {
    let published: Partial<AgentAttributeValues> = values();
    let upserts = 0;
    for (let turn = 1; turn <= 200; turn++) {
      const changes = attributeChanges(published, values({ costUsd: turn * 0.0075 }));
      if (Object.keys(changes).length > 0) upserts += 1;
      published = { ...published, ...changes };
    }
    expect(upserts).toBeLessThan(35);
  });
});

describe('billing', () => {
  it('counts every input token the provider billed and the share read from cache', () => {
    const usage = { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 3000, cacheWriteTokens: 0 };
    const cost = { input: 0.003, output: 0.00075, cacheRead: 0.0009, cacheWrite: 0, total: 0.00465 };
    expect(billingOf(usage, cost)).toEqual({
      inputTokens: 4000,
      uncachedInputTokens: 1000,
      cacheReadTokens: 3000,
      cacheWriteTokens: 0,
      outputTokens: 50,
      cacheReadShare: 0.75,
      cost,
    });
    expect(billingOf(emptyUsage(), emptyCost()).cacheReadShare).toBe(0);
  });
});
