import { buildAgentConfig } from '../../src/policy/agent-config';
import {
  DEFAULT_CACHE_PRICES,
  DEFAULT_MASK_POLICY,
  STUB_TOKENS,
  costMaskBefore,
  isMasked,
  nextMaskBefore,
  type MaskCache,
} from '../../src/policy/masking';
import type { MessageMeta } from '../../src/contracts/agent-run';

const meta = (seq: number, kind: MessageMeta['kind'], tokens: number): MessageMeta => ({
  seq,
  kind,
  hash: `h${seq}`,
  tokens,
  ...(kind === 'tool_result' ? { isError: false } : {}),
});

/** A task, then `turns` tool turns: an answer calling one tool and its result of `tokens` each. */
function toolLoop(turns: number, tokens = 2600): MessageMeta[] {
  const log = [meta(0, 'user', 20)];
  for (let t = 0; t < turns; t++) log.push(meta(1 + 2 * t, 'assistant', 30), meta(2 + 2 * t, 'tool_result', tokens));
  return log;
}

const cached = (callsLeft: number, prices = DEFAULT_CACHE_PRICES): MaskCache => ({ prices, callsLeft });

/**
 * Input cost of a run's calls in uncached-token equivalents, as a prompt cache bills it: each call
 * reads the prefix it shares with the previous call and writes the rest.
 */
function cachedCost(boundaries: number[], turns: number, tokens = 2600): number {
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
    maskBefore = next(toolLoop(call), maskBefore, call);
    out.push(maskBefore);
  }
  return out;
}

describe('masking by the cost of the prompt cache', () => {
  it('masks an answered result at once when the saving over the remaining calls outweighs the rewrite', () => {
    // Call 3: results 2 and 4 answered, 6 new; masking both rewrites little beyond their stubs.
    expect(costMaskBefore(toolLoop(3), 0, cached(3))).toBe(5);
  });

  it('never passes the last answer, so the newest results reach the model whole', () => {
    const log = toolLoop(4);
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
    const log = toolLoop(4);
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
    expect(buildAgentConfig({ task: 't', model: 'a/b' }).context.mask).toEqual(DEFAULT_MASK_POLICY);
    expect(buildAgentConfig({ task: 't', model: 'a/b', masking: {} }).context.mask?.byCost).toBe(true);
    expect(buildAgentConfig({ task: 't', model: 'a/b', masking: { keepResults: 1 } }).context.mask).toEqual({
      keepResults: 1,
      batch: 5,
      byCost: false,
    });
    expect(
      buildAgentConfig({ task: 't', model: 'a/b', masking: { batch: 2, byCost: true } }).context.mask?.byCost,
    ).toBe(true);
  });
});
