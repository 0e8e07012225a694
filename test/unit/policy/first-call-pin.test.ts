import { buildAgentConfig } from '../../../src/policy/agent-config';
import { runAsks } from '../../../src/policy/call-settings';
import { callPrompt, callWaitsForPin, pinnedCall, pinsWithFirstCall } from '../../../src/policy/first-call-pin';
import { lookupModel } from '../../../src/policy/model-registry';
import type { ModelCallInput } from '../../../src/contracts/agent-activities';
import type { CallPin, PinToolsOutput } from '../../../src/contracts/tool-pin';
import { pinnedTool } from './pinned-tools';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const pinned = (extra: Partial<PinToolsOutput> = {}): PinToolsOutput => ({
  tools: [pinnedTool('lookup', { local: true }), pinnedTool('write_note', { sideEffects: true })],
  toolSpecsHash: 'specs',
  promptHash: 'prompt',
  selectionHash: 'selection',
  models: [lookupModel(MODEL)],
  ...extra,
});
const call: ModelCallInput = { view: { fromSeq: 0, summaryTokens: 0 }, toSeq: 1, writeSeq: 1, model: MODEL };
const config = (options: Partial<Parameters<typeof buildAgentConfig>[0]> = {}) =>
  buildAgentConfig({ task: 'Look it up.', model: MODEL, ...options });

describe('pinsWithFirstCall', () => {
  it('leaves the pin to the first model call unless something before that call needs it', () => {
    expect(pinsWithFirstCall(config())).toBe(true);
    expect(pinsWithFirstCall(config({ tenant: 'acme' }))).toBe(false);
    expect(pinsWithFirstCall({ ...config(), from: { runId: 'r', conversationId: 'r' } })).toBe(false);
    expect(pinsWithFirstCall(config({ hooks: { resolveModel: 'pickModel' } }))).toBe(false);
    expect(pinsWithFirstCall(config({ hooks: { transformContext: 'trim' } }))).toBe(false);
    expect(pinsWithFirstCall(config({ hooks: { onTurnEnd: 'check', onMessage: 'save' } }))).toBe(true);
  });
});

describe('callWaitsForPin', () => {
  const asks = runAsks(config({ tools: { allow: ['lookup'] } }));

  it('lets the call go on when the pin shows nothing the run decides first', () => {
    expect(callWaitsForPin(pinned(), asks, MODEL)).toBe(false);
  });

  it('holds the call for a model whose calls go through a limit', () => {
    const limited = { ...lookupModel(MODEL), limitKey: 'anthropic' };
    expect(callWaitsForPin(pinned({ models: [limited] }), asks, MODEL)).toBe(true);
  });

  it('holds the call when the run asks what its models or tools cannot give', () => {
    const noThinking = { ...lookupModel(MODEL), capabilities: { ...lookupModel(MODEL).capabilities, thinking: false } };
    expect(callWaitsForPin(pinned({ models: [noThinking] }), runAsks(config({ thinkingBudget: 2048 })), MODEL)).toBe(
      true,
    );
    const missing = runAsks(config({ toolChoice: { type: 'tool', name: 'search' } }));
    expect(callWaitsForPin(pinned(), missing, MODEL)).toBe(true);
  });
});

describe('pinnedCall', () => {
  const pin = (extra: Partial<CallPin> = {}): CallPin => ({
    tools: { conversationId: 'c', selection: {} },
    asks: { settings: {}, tools: [] },
    prompt: 'run',
    ...extra,
  });

  it("names the run's stored prompt, which names the tool specs", () => {
    expect(pinnedCall(pinned(), call, pin())).toEqual({ ...call, promptHash: 'prompt' });
  });

  it('names the tool specs beside a prompt the call brings, or when the run has none', () => {
    const role = { ...call, promptHash: 'role-prompt' };
    expect(pinnedCall(pinned(), role, pin({ prompt: 'call' }))).toEqual({ ...role, toolSpecsHash: 'specs' });
    expect(pinnedCall(pinned({ promptHash: undefined }), call, pin())).toEqual({ ...call, toolSpecsHash: 'specs' });
  });

  it('lets the call run the quick tools the run would let it run', () => {
    const quick = { rules: { maxCalls: 16 }, fitModel: MODEL };
    expect(pinnedCall(pinned(), call, pin({ quick })).inlineTools).toEqual({
      tools: { lookup: 'fp-lookup' },
      maxCalls: 16,
      selectionHash: 'selection',
      fit: { maxChars: expect.any(Number), readBack: false },
    });
    const approved = { ...quick, rules: { ...quick.rules, approve: ['lookup'] } };
    expect(pinnedCall(pinned(), call, pin({ quick: approved })).inlineTools).toBeUndefined();
    expect(pinnedCall(pinned(), call, pin()).inlineTools).toBeUndefined();
  });
});

describe('callPrompt', () => {
  it("names the run's inline prompt beside the tool specs when no stored prompt names them", () => {
    expect(callPrompt({ toolSpecsHash: 'specs' }, 'run', 'Be brief.')).toEqual({
      systemPrompt: 'Be brief.',
      toolSpecsHash: 'specs',
    });
    expect(callPrompt({}, 'run')).toEqual({});
    expect(callPrompt({ promptHash: 'prompt', toolSpecsHash: 'specs' }, 'call', 'Be brief.')).toEqual({
      toolSpecsHash: 'specs',
    });
  });
});
