import { buildAgentConfig, configProblems, modelOptionProblems } from '../../../src/policy/agent-config';

describe('agent config', () => {
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
