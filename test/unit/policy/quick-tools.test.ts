import { runSpec } from '../../kit/run-spec';
import { DEFAULT_CONTEXT_WINDOW, maxResultChars, modelWindow } from '../../../src/policy/context-plan';
import { lookupModel } from '../../../src/policy/model-registry';
import { quickToolCalls, resultFitFor, runsInline } from '../../../src/policy/quick-tools';
import type { PinnedTool } from '../../../src/contracts/agent-run';
import { pinnedTool } from './pinned-tools';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const tool = (name: string, extra: Partial<PinnedTool> = {}): PinnedTool => pinnedTool(name, { local: true, ...extra });
const fit = { maxChars: 1000, readBack: false };

describe('quickToolCalls', () => {
  it("takes the server tools that run locally without side effects, with the run's timeouts and calls per turn", () => {
    const tools = [
      tool('lookup'),
      tool('write_note', { sideEffects: true }),
      tool('fetch', { local: undefined }),
      tool('ask_user', { mode: 'client' }),
      tool('fs_read'),
    ];
    const spec = runSpec({
      task: 't',
      model: MODEL,
      limits: { toolTimeoutsMs: { lookup: 900 }, maxToolCallsPerTurn: 4 },
    });
    expect(quickToolCalls(tools, spec, 'sel', fit)).toEqual({
      tools: { lookup: 'fp-lookup', fs_read: 'fp-fs_read' },
      timeoutsMs: { lookup: 900 },
      maxCalls: 4,
      selectionHash: 'sel',
      fit,
    });
  });

  it('gives none when no tool is quick', () => {
    const spec = runSpec({ task: 't', model: MODEL });
    expect(quickToolCalls([tool('w', { sideEffects: true })], spec, undefined, fit)).toBeUndefined();
  });
});

describe('runsInline: the approval gate decides each call a model call would run itself', () => {
  const inline = { tools: { fs_read: 'fp', lookup: 'fp' }, maxCalls: 3 };
  const call = (name: string, args: Record<string, unknown> = {}, id = name) => ({ id, name, arguments: args });

  it('runs well-formed calls of quick tools that the gate lets run at once', () => {
    expect(runsInline(inline, [call('fs_read', { path: 'a.md' }), call('lookup')], {})).toBe(true);
  });

  it('leaves every call to the workflow when the gate asks for a decision on one of them', () => {
    const rules = [{ tool: 'fs_read', when: [{ path: 'path', matches: '^/etc' }] }];
    const calls = [call('fs_read', { path: 'a.md' }, '1'), call('fs_read', { path: '/etc/passwd' }, '2')];
    expect(runsInline(inline, calls.slice(0, 1), { rules })).toBe(true);
    expect(runsInline(inline, calls, { rules })).toBe(false);
    expect(runsInline(inline, [call('lookup')], { approve: ['look*'] })).toBe(false);
  });

  it('leaves malformed calls, other tools and calls over the limit to the workflow', () => {
    expect(runsInline(inline, [{ ...call('lookup'), malformed: 'cut off' }], {})).toBe(false);
    expect(runsInline(inline, [call('write_note')], {})).toBe(false);
    expect(
      runsInline(
        inline,
        [call('lookup', {}, 'a'), call('lookup', {}, 'b'), call('lookup', {}, 'c'), call('lookup', {}, 'd')],
        {},
      ),
    ).toBe(false);
    expect(runsInline(inline, [], {})).toBe(false);
    // A record without maxCalls allows the default calls per turn.
    const many = (n: number) => Array.from({ length: n }, (_, i) => call('lookup', {}, `c${i}`));
    const { maxCalls: _maxCalls, ...byDefault } = inline;
    expect(runsInline(byDefault, many(16), {})).toBe(true);
    expect(runsInline(byDefault, many(17), {})).toBe(false);
  });
});

describe('modelWindow and resultFitFor', () => {
  it("takes the run's window, else the worker's entry, else the registry's", () => {
    const entry = { ...lookupModel(MODEL), contextWindow: 50_000 };
    expect(modelWindow(8_000, [entry], MODEL)).toBe(8_000);
    expect(modelWindow(undefined, [entry], MODEL)).toBe(50_000);
    expect(modelWindow(undefined, undefined, MODEL)).toBe(lookupModel(MODEL).contextWindow);
    expect(modelWindow(undefined, undefined, { provider: 'openai-compatible', model: 'mine' })).toBe(
      DEFAULT_CONTEXT_WINDOW,
    );
  });

  it('fits results to the window and says when they can be read back', () => {
    expect(resultFitFor(50_000, [tool('read_tool_result')])).toEqual({
      maxChars: maxResultChars(50_000),
      readBack: true,
    });
  });
});
