import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import {
  DEFAULT_CACHE_PRICES,
  DEFAULT_MASK_POLICY,
  MIN_MASKED_TOKENS,
  READ_RESULT_TOOL,
  STUB_TOKENS,
  costMaskBefore,
  fullMaskBefore,
  isMasked,
  maskStub,
  nextMaskBefore,
  type MaskCache,
} from '../../../src/policy/masking';
import type { MessageMeta } from '../../../src/contracts/agent-run';
import type { LoggedBody } from '../../../src/contracts/stored-body';
import { emptyCost, emptyUsage, textOf, type ToolResultMessage } from '../../../src/contracts/message-model';
import { contextTokens } from '../../../src/policy/context-plan';
import { toProviderMessages } from '../../../src/policy/provider-view';
import { estimateBodyTokens } from '../../../src/policy/token-estimate';
import { meta, toolLoop } from './message-log';

/** Tokens of each tool result in the prompt-cache cases. */
const RESULT_TOKENS = 2600;

const cached = (callsLeft: number, prices = DEFAULT_CACHE_PRICES): MaskCache => ({ prices, callsLeft });

/**
 * Input cost of a run's calls in uncached-token equivalents, as a prompt cache bills it: each call
 * reads the prefix it shares with the previous call and writes the rest.
 */
function cachedCost(boundaries: number[], turns: number, tokens = RESULT_TOKENS): number {
  let cost = 0;
  let previous: number[] = [];
  for (let call = 1; call <= turns; call++) {
    const sent = toolLoop(call, tokens).map((m) => (isMasked(m, boundaries[call - 1]) ? STUB_TOKENS : m.tokens));
    let shared = 0;
    while (shared < previous.length && previous[shared] === sent[shared]) shared++;
    const read = sent.slice(0, shared).reduce((a, b) => a + b, 0);
    const written = sent.slice(shared).reduce((a, b) => a + b, 0);
    cost += read * DEFAULT_CACHE_PRICES.read + written * DEFAULT_CACHE_PRICES.write;
    previous = sent;
  }
  return cost;
}

/** The boundary at each call of a `turns`-call tool loop under a rule. */
function boundaries(turns: number, next: (log: MessageMeta[], current: number, call: number) => number): number[] {
  const out: number[] = [];
  let maskBefore = 0;
  for (let call = 1; call <= turns; call++) {
    maskBefore = next(toolLoop(call, RESULT_TOKENS), maskBefore, call);
    out.push(maskBefore);
  }
  return out;
}

describe('masking by the cost of the prompt cache', () => {
  it('masks an answered result at once when the saving over the remaining calls outweighs the rewrite', () => {
    // Call 3: results 2 and 4 answered, 6 new; masking both rewrites little beyond their stubs.
    expect(costMaskBefore(toolLoop(3, RESULT_TOKENS), 0, cached(3))).toBe(5);
  });

  it('never passes the last answer, so the newest results reach the model whole', () => {
    const log = toolLoop(4, RESULT_TOKENS);
    const boundary = costMaskBefore(log, 0, cached(10));
    expect(boundary).toBe(7);
    expect(log.filter((m) => m.seq >= 7 && m.kind === 'tool_result').every((m) => !isMasked(m, boundary))).toBe(true);
  });

  it('holds the boundary when the rewrite costs more than the remaining calls save', () => {
    // Two small answered results behind a large non-maskable message: the rewrite dwarfs the saving.
    const log = [
      meta(0, 'user', 20),
      meta(1, 'assistant', 30),
      meta(2, 'tool_result', 300),
      meta(3, 'user', 20_000),
      meta(4, 'assistant', 30),
      meta(5, 'tool_result', 300),
    ];
    expect(costMaskBefore(log, 0, cached(1))).toBe(0);
    expect(costMaskBefore(log, 0, cached(2_000))).toBe(4);
  });

  it('weighs a provider that charges no cache writes by its uncached input price', () => {
    const log = [meta(0, 'user', 20), meta(1, 'assistant', 30), meta(2, 'tool_result', 1_000), meta(3, 'user', 9_000)];
    log.push(meta(4, 'assistant', 30));
    // Saving 940 a call at 0.25 against rewriting 9,060 at 0.75 (OpenAI-like: write = input).
    const openai = { read: 0.25, write: 1 };
    expect(costMaskBefore(log, 0, cached(28, openai))).toBe(0);
    expect(costMaskBefore(log, 0, cached(30, openai))).toBe(4);
  });

  it('keeps the count rule without a cache, and for a policy that does not move by cost', () => {
    const log = toolLoop(4, RESULT_TOKENS);
    expect(nextMaskBefore(log, 0, DEFAULT_MASK_POLICY)).toBe(0);
    expect(nextMaskBefore(log, 0, { keepResults: 3, batch: 5 }, cached(10))).toBe(0);
    expect(nextMaskBefore(log, 0, DEFAULT_MASK_POLICY, cached(10))).toBe(7);
  });

  it('costs a 30-call tool loop at most 0.6 of the unmasked context under a prompt cache', () => {
    const turns = 30;
    const naive = cachedCost(new Array<number>(turns).fill(0), turns);
    const byCount = cachedCost(
      boundaries(turns, (log, current) => nextMaskBefore(log, current, { keepResults: 3, batch: 5 })),
      turns,
    );
    const byCost = cachedCost(
      boundaries(turns, (log, current, call) =>
        nextMaskBefore(log, current, DEFAULT_MASK_POLICY, cached(Math.min(call, turns - call + 1))),
      ),
      turns,
    );
    expect(byCost / naive).toBeLessThanOrEqual(0.6);
    expect(byCost).toBeLessThan(byCount);
  });
});

describe('the default masking policy', () => {
  it('moves by cost unless the caller counts results', () => {
    expect(runSpec({ task: 't', model: 'a/b' }).context.mask).toEqual(DEFAULT_MASK_POLICY);
    expect(runSpec({ context: { mask: {} }, task: 't', model: 'a/b' }).context.mask?.byCost).toBe(true);
    expect(runSpec({ context: { mask: { keepResults: 1 } }, task: 't', model: 'a/b' }).context.mask).toEqual({
      keepResults: 1,
      batch: 5,
      byCost: false,
    });
    expect(
      runSpec({ context: { mask: { batch: 2, byCost: true } }, task: 't', model: 'a/b' }).context.mask?.byCost,
    ).toBe(true);
  });
});

describe('masking old tool results', () => {
  const policy = { keepResults: 3, batch: 5 };

  it('moves the boundary in batches, keeping the newest results whole', () => {
    const boundaries: number[] = [];
    let maskBefore = 0;
    for (let turns = 1; turns <= 20; turns++) {
      maskBefore = nextMaskBefore(toolLoop(turns, 1000), maskBefore, policy);
      boundaries.push(maskBefore);
    }
    // Nothing moves until 3 + 5 results exist; then it jumps past five results at once.
    expect(boundaries.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(boundaries[7]).toBe(12); // results 2, 4, 6, 8, 10 masked; 12, 14, 16 whole
    expect([...new Set(boundaries)]).toEqual([0, 12, 22, 32]); // then one move every five turns
    const log = toolLoop(20, 1000);
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
    const log = toolLoop(10, 1000);
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
    expect(runSpec({ task: 't', model: 'a/b' }).context.mask).toEqual(DEFAULT_MASK_POLICY);
    expect(runSpec({ task: 't', model: 'a/b', kind: 'pev' }).context.mask).toBeUndefined();
    expect(runSpec({ context: { mask: false }, task: 't', model: 'a/b' }).context.mask).toBeUndefined();
    expect(runSpec({ context: { mask: { keepResults: 8 } }, task: 't', model: 'a/b' }).context.mask).toEqual({
      keepResults: 8,
      batch: DEFAULT_MASK_POLICY.batch,
      byCost: false,
    });
    const bad = runSpec({ context: { mask: { keepResults: -1, batch: 0 } }, task: 't', model: 'a/b' });
    expect(runSpecProblems(bad)).toEqual([
      'masking keepResults must be a whole number (0 or more), got -1',
      'masking batch must be a whole number of at least 1, got 0',
    ]);
  });
});
