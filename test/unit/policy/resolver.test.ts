import { parseModelRef as m } from '../../../src/policy/model-ref';
import {
  failoverAfter,
  initialResolverState,
  nonRetryableModelFailures,
  resolveTurnModel,
  resolverPolicy,
} from '../../../src/policy/resolver';
import { LLM_FAILURE } from '../../../src/contracts/failure-types';

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
