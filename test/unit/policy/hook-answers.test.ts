import { hookModel, turnEndVerdict } from '../../../src/policy/hook-answers';
import { chooseModel, initialResolverState, resolverPolicy } from '../../../src/policy/resolver';

const SONNET = { provider: 'anthropic', model: 'claude-sonnet-4-6' };

describe('what the workflow makes of a hook answer', () => {
  it('a resolve-model answer names a model and a reason; nothing or null keeps the model', () => {
    expect(hookModel('resolve-model hook', { model: 'openai/gpt-4.1-nano', reason: ' credits low ' })).toEqual({
      model: { provider: 'openai', model: 'gpt-4.1-nano' },
      reason: 'resolve-model hook: credits low',
    });
    expect(hookModel('resolve-model hook', { model: SONNET })).toEqual({
      model: SONNET,
      reason: 'resolve-model hook: chosen by the application',
    });
    expect(hookModel('resolve-model hook', null)).toBeUndefined();
    expect(hookModel('resolve-model hook', undefined)).toBeUndefined();
    expect(hookModel('resolve-model hook', {})).toBeUndefined();
  });

  it('a model that names no model is a problem of one line', () => {
    expect(hookModel('resolve-model hook', { model: 'gpt-4' })).toEqual({
      problem: expect.stringMatching(/^resolve-model hook answered with a bad model: "gpt-4" is not a model spec/),
    });
  });

  it('on-turn-end: false or { stop: true } stops, { model } switches, true or anything else goes on', () => {
    expect(turnEndVerdict(false)).toEqual({ stop: true });
    expect(turnEndVerdict({ stop: true })).toEqual({ stop: true });
    expect(turnEndVerdict(true)).toEqual({ stop: false });
    expect(turnEndVerdict(undefined)).toEqual({ stop: false });
    expect(turnEndVerdict({ model: 'openai/gpt-4.1-nano', reason: 'allowance' })).toEqual({
      stop: false,
      model: { model: { provider: 'openai', model: 'gpt-4.1-nano' }, reason: 'on-turn-end hook: allowance' },
    });
  });

  it('a chosen model moves the resolver and counts as a switch; the current model is no switch', () => {
    const state = initialResolverState(resolverPolicy(SONNET));
    expect(chooseModel(state, SONNET, 'same')).toBeUndefined();
    expect(chooseModel(state, { provider: 'openai', model: 'gpt-4.1-nano' }, 'cheaper')).toEqual({
      from: 'anthropic/claude-sonnet-4-6',
      to: 'openai/gpt-4.1-nano',
      reason: 'cheaper',
    });
    expect(state).toMatchObject({ current: { provider: 'openai' }, switches: 1 });
  });
});
