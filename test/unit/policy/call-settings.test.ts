import {
  callSettingProblems,
  missingChoiceTool,
  modelSettingProblems,
  runModelProblems,
  toolChoiceOfCall,
} from '../../../src/policy/call-settings';
import { lookupModel } from '../../../src/policy/model-registry';

describe('callSettingProblems', () => {
  it('accepts every setting inside its range', () => {
    expect(
      callSettingProblems({
        maxTokens: 2048,
        temperature: 0,
        topP: 1,
        stopSequences: ['END', '###'],
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
        toolChoice: 'auto',
      }),
    ).toEqual([]);
    expect(callSettingProblems({ thinkingBudget: 1024, maxTokens: 2048 })).toEqual([]);
  });

  it('names each setting out of range with the value it got', () => {
    expect(
      callSettingProblems({
        maxTokens: 0,
        temperature: 2.5,
        topP: 0,
        stopSequences: ['a', 'b', 'c', 'd', 'e'],
        thinkingBudget: 500,
      }),
    ).toEqual([
      'temperature must be a number in [0, 2], got 2.5',
      'topP must be a number in (0, 1], got 0',
      'maxTokens (the most output tokens per call) must be a positive integer, got 0',
      'stopSequences must be at most 4 non-empty strings',
      'thinkingBudget must be a whole number of at least 1024 tokens, got 500',
      'thinkingBudget cannot go with temperature or topP: models refuse sampling settings while they think',
    ]);
  });

  it('refuses a schema without a usable name or object, and an unknown tool choice', () => {
    expect(
      callSettingProblems({
        responseFormat: { type: 'json_schema', name: 'has space', schema: [] as never },
        toolChoice: 'sometimes' as never,
      }),
    ).toEqual([
      'responseFormat.name must match ^[a-zA-Z0-9_-]{1,64}$, got "has space"',
      'responseFormat.schema must be a JSON Schema object',
      `toolChoice must be auto, none, required or { type: 'tool', name }, got "sometimes"`,
    ]);
  });

  it('refuses thinking with sampling settings', () => {
    expect(callSettingProblems({ thinkingBudget: 2048, topP: 0.9 })).toEqual([
      'thinkingBudget cannot go with temperature or topP: models refuse sampling settings while they think',
    ]);
  });

  it('refuses thinking with a forced tool choice', () => {
    expect(callSettingProblems({ thinkingBudget: 2048, toolChoice: 'required' })).toEqual([
      'thinkingBudget cannot go with a forced tool choice (required or a named tool): models refuse both',
    ]);
  });

  it('names a misspelt setting', () => {
    expect(callSettingProblems({ maxToken: 5 } as never)).toEqual(['unknown call setting "maxToken"']);
  });
});

describe('modelSettingProblems', () => {
  it('refuses a thinking budget for a registry model that does not think, not for unknown ones', () => {
    const models = [
      lookupModel({ provider: 'openai', model: 'gpt-4o-mini' }),
      lookupModel({ provider: 'anthropic', model: 'claude-sonnet-4-6' }),
      lookupModel({ provider: 'openai-compatible', model: 'local' }),
    ];
    expect(modelSettingProblems({ thinkingBudget: 2048 }, models)).toEqual([
      'openai/gpt-4o-mini does not think: a thinking budget needs a model that thinks',
    ]);
    expect(modelSettingProblems({}, models)).toEqual([]);
  });

  it("refuses an output length over the model's limit, and a budget that leaves the answer no room", () => {
    const claude = [lookupModel({ provider: 'anthropic', model: 'claude-sonnet-4-6' })];
    expect(modelSettingProblems({ maxTokens: 64_001 }, claude)).toEqual([
      'maxTokens 64001 is over the output limit of anthropic/claude-sonnet-4-6 (64000 tokens)',
    ]);
    expect(modelSettingProblems({ maxTokens: 4000, thinkingBudget: 60_001 }, claude)).toEqual([
      'thinkingBudget 60001 with maxTokens 4000 leaves no room for the answer in the output limit of ' +
        'anthropic/claude-sonnet-4-6 (64000 tokens)',
    ]);
    expect(modelSettingProblems({ maxTokens: 4000, thinkingBudget: 60_000 }, claude)).toEqual([]);
  });

  it("refuses sampling settings and stop sequences on OpenAI's reasoning models, not on others", () => {
    const settings = { temperature: 0.2, topP: 0.9, stopSequences: ['END'] };
    expect(modelSettingProblems(settings, [lookupModel({ provider: 'openai', model: 'o3' })])).toEqual([
      'openai/o3 is a reasoning model: it takes no temperature, topP, stopSequences (give it a thinkingBudget)',
    ]);
    expect(modelSettingProblems(settings, [lookupModel({ provider: 'openai', model: 'gpt-4.1' })])).toEqual([]);
  });
});

describe('tool choice and tools', () => {
  it('names a chosen tool the run does not have, with the tools it has', () => {
    const tools = [{ name: 'fs_read' }, { name: 'add' }];
    expect(missingChoiceTool({ type: 'tool', name: 'add' }, tools)).toEqual([]);
    expect(missingChoiceTool('required', tools)).toEqual([]);
    expect(missingChoiceTool({ type: 'tool', name: 'fs_raed' }, tools)).toEqual([
      'toolChoice names the tool "fs_raed", which this run does not have (its tools: add, fs_read)',
    ]);
  });

  it('forces a tool for the first answer to a user message only', () => {
    expect(toolChoiceOfCall('required', true)).toBe('required');
    expect(toolChoiceOfCall('required', false)).toBe('auto');
    expect(toolChoiceOfCall({ type: 'tool', name: 'add' }, false)).toBe('auto');
    expect(toolChoiceOfCall('none', false)).toBe('none');
    expect(toolChoiceOfCall(undefined, true)).toBeUndefined();
  });

  it('refuses a model that takes no tools only what the run asks for by name', () => {
    const textOnly = {
      ...lookupModel({ provider: 'openai', model: 'gpt-4.1' }),
      capabilities: {
        tools: false,
        thinking: false,
        vision: false,
        jsonMode: false,
      },
    };
    expect(runModelProblems({ tools: {}, call: {} }, [textOnly])).toEqual([]);
    expect(runModelProblems({ tools: { allow: [] }, call: {} }, [textOnly])).toEqual([]);
    expect(
      runModelProblems({ tools: { mcpConfigPath: '/m.json' }, call: { toolChoice: 'required' } }, [textOnly]),
    ).toEqual([
      'openai/gpt-4.1 takes no tools (its entry says capabilities.tools is false), but the run asks for MCP tools, ' +
        'a forced tool choice: leave them out or pick a model that takes tools',
    ]);
    expect(runModelProblems({ tools: { mcpServers: ['files'] }, call: {} }, [textOnly])).toEqual([
      'openai/gpt-4.1 takes no tools (its entry says capabilities.tools is false), but the run asks for MCP tools: ' +
        'leave them out or pick a model that takes tools',
    ]);
    expect(runModelProblems({ tools: { mcpServers: [] }, call: {} }, [textOnly])).toEqual([]);
  });
});
