import { runSpec } from '../../kit/run-spec';
import { callPrompt, callWaitsForPin, pinRequest, pinnedCall } from '../../../src/policy/pinning';
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
const config = (options: Partial<Parameters<typeof runSpec>[0]> = {}) =>
  runSpec({ task: 'Look it up.', model: MODEL, ...options });

describe('pinRequest', () => {
  it("asks the worker for what the run's spec names, and to write the task of a conversation of its own", () => {
    const spec = config({ tools: { allow: ['lookup'] }, fleet: { tenant: 'acme' }, plan: [{ title: 'Look' }] });
    expect(pinRequest(spec, [], 'c')).toMatchObject({
      conversationId: 'c',
      selection: { allow: ['lookup'] },
      readBack: true,
      models: [MODEL],
      tenant: 'acme',
      planTool: true,
      open: { startSeq: 0, drafts: [{ kind: 'user', text: 'Look it up.', origin: 'task' }] },
    });
    const from = { runId: 'r', conversationId: 'r' };
    expect(pinRequest(config({ session: { from } }), [], 'c').open).toBeUndefined();
  });
});

describe('callWaitsForPin', () => {
  const asks = config({ tools: { allow: ['lookup'] } });

  it('lets the call go on when the pin shows nothing the run decides first', () => {
    expect(callWaitsForPin(pinned(), asks, MODEL)).toBe(false);
  });

  it('holds the call for a model whose calls go through a limit', () => {
    const limited = { ...lookupModel(MODEL), limitKey: 'anthropic' };
    expect(callWaitsForPin(pinned({ models: [limited] }), asks, MODEL)).toBe(true);
  });

  it('holds the call when the run asks what its models or tools cannot give', () => {
    const noThinking = { ...lookupModel(MODEL), capabilities: { ...lookupModel(MODEL).capabilities, thinking: false } };
    expect(callWaitsForPin(pinned({ models: [noThinking] }), config({ call: { thinkingBudget: 2048 } }), MODEL)).toBe(
      true,
    );
    const missing = config({ call: { toolChoice: { type: 'tool', name: 'search' } } });
    expect(callWaitsForPin(pinned(), missing, MODEL)).toBe(true);
  });
});

describe('pinnedCall', () => {
  const pin = (extra: Partial<CallPin> = {}): CallPin => ({
    spec: config(),
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
    const quick = { fitModel: MODEL };
    // The default calls per turn are left out of the record.
    expect(pinnedCall(pinned(), call, pin({ quick })).inlineTools).toEqual({
      tools: { lookup: 'fp-lookup' },
      selectionHash: 'selection',
      fit: { maxChars: expect.any(Number), readBack: false },
    });
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
