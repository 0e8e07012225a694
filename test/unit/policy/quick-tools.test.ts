import { buildAgentConfig } from '../../../src/policy/agent-config';
import { DEFAULT_CONTEXT_WINDOW, maxResultChars } from '../../../src/policy/context-plan';
import { lookupModel } from '../../../src/policy/model-registry';
import { modelWindow, quickToolCalls, quickToolRules, resultFitFor } from '../../../src/policy/quick-tools';
import type { PinnedTool } from '../../../src/contracts/agent-run';
import { pinnedTool } from './pinned-tools';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const tool = (name: string, extra: Partial<PinnedTool> = {}): PinnedTool => pinnedTool(name, { local: true, ...extra });
const fit = { maxChars: 1000, readBack: false };

describe('quickToolCalls', () => {
  it('takes the local tools without side effects that no call of can need a decision', () => {
    const tools = [
      tool('lookup'),
      tool('write_note', { sideEffects: true }),
      tool('fetch', { local: undefined }),
      tool('ask_user', { mode: 'client' }),
      tool('delete_file'),
      tool('fs_read'),
    ];
    const rules = quickToolRules(
      buildAgentConfig({
        task: 't',
        model: MODEL,
        approve: ['delete_file'],
        approvals: [{ tool: 'fs_read', when: [{ path: 'path', matches: '^/etc' }] }],
        limits: { toolTimeoutsMs: { lookup: 900 }, maxToolCallsPerTurn: 4 },
      }),
    );
    expect(quickToolCalls(tools, rules, 'sel', fit)).toEqual({
      tools: { lookup: 'fp-lookup' },
      timeoutsMs: { lookup: 900 },
      maxCalls: 4,
      selectionHash: 'sel',
      fit,
    });
  });

  it('gives none when no tool is quick', () => {
    expect(quickToolCalls([tool('w', { sideEffects: true })], { maxCalls: 16 }, undefined, fit)).toBeUndefined();
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
