import type { KindFacts } from '../../../src/contracts/kind-facts';
import { PEV_FACTS } from '../../../src/policy/pev/pev-facts';
import { REACT_FACTS } from '../../../src/policy/kind-facts';
import { DEFAULT_MASK_POLICY } from '../../../src/policy/masking';
import { layerRunSpec, RunSpecError } from '../../../src/policy/run-spec';
import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import { DEFAULT_SYSTEM_PROMPT_TEXT } from '../../../src/policy/system-prompt';

const MODEL = 'anthropic/claude-sonnet-4-6';
const SONNET = { provider: 'anthropic', model: 'claude-sonnet-4-6' };
const MINI = { provider: 'openai', model: 'gpt-5-mini' };
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof RunSpecError) return err.problems;
    throw err;
  }
  return [];
};

describe('layerRunSpec', () => {
  it('fills in the defaults under every layer', () => {
    const spec = layerRunSpec(REACT_FACTS, [{ task: 't', model: MODEL }]);
    expect(spec).toMatchObject({
      kind: 'react',
      systemPrompt: DEFAULT_SYSTEM_PROMPT_TEXT,
      model: { primary: SONNET, fallbacks: [], attemptsPerProvider: 3, failoverOnOverload: true },
      call: {},
      tools: {},
      limits: { maxTurns: 50, maxToolCallsPerTurn: 16 },
      context: { thresholdRatio: 0.8, keepRecentRatio: 0.3, mask: DEFAULT_MASK_POLICY },
    });
    expect(runSpecProblems(spec)).toEqual([]);
  });

  it("takes the kind's facts over the defaults: masking and prompts", () => {
    const spec = layerRunSpec(PEV_FACTS, [{ task: 't', model: MODEL }]);
    expect(spec.context.mask).toBeUndefined();
    expect(spec.systemPrompt).toBeUndefined();
  });

  it("refuses what a kind's steps set themselves", () => {
    expect(
      problemsOf(() =>
        layerRunSpec(PEV_FACTS, [
          {
            task: 't',
            model: MODEL,
            systemPrompt: 'x',
            call: { responseFormat: { type: 'json' }, toolChoice: 'none' },
          },
        ]),
      ),
    ).toEqual([
      `systemPrompt does not apply to pev runs: ${PEV_FACTS.ownPrompts}`,
      'responseFormat does not apply to pev runs: each step sets its own',
      'toolChoice does not apply to pev runs: each step sets its own',
    ]);
  });

  it("lays a later layer's defined fields over an earlier's, record by record", () => {
    const spec = layerRunSpec(REACT_FACTS, [
      {
        model: { primary: MODEL, fallbacks: ['openai/gpt-5-mini'] },
        call: { maxTokens: 500, temperature: 0.5 },
        limits: { maxTurns: 5 },
      },
      { task: 't', model: MODEL, call: { temperature: 0.2, topP: undefined }, limits: { maxCostUsd: 1 } },
    ]);
    expect(spec.model).toMatchObject({ primary: SONNET, fallbacks: [MINI] });
    expect(spec.call).toEqual({ maxTokens: 500, temperature: 0.2 });
    expect(spec.limits).toMatchObject({ maxTurns: 5, maxCostUsd: 1 });
  });

  it('replaces lists, but adds up the tools that need approval and the rules that ask for it', () => {
    const spec = layerRunSpec(REACT_FACTS, [
      { tools: { allow: ['fs_*'], approve: ['fs_write'], approvals: [{ tool: 'http_fetch' }] } },
      { task: 't', model: MODEL, tools: { allow: ['fs_read'], approve: ['fs_read'] } },
    ]);
    expect(spec.tools).toEqual({
      allow: ['fs_read'],
      approve: ['fs_write', 'fs_read'],
      approvals: [{ tool: 'http_fetch' }],
    });
  });

  it('names misspelt options instead of dropping them', () => {
    expect(
      problemsOf(() =>
        layerRunSpec(REACT_FACTS, [{ task: 't', model: MODEL, maxTurns: 3, fleet: { tenat: 'a' } } as never]),
      ),
    ).toEqual(['unknown option "maxTurns"', 'unknown option "fleet.tenat" (did you mean "tenant"?)']);
  });

  it('names a misspelt field of every record with the field it likely meant, and takes a resolved spec as a layer', () => {
    const misspelt = {
      task: 't',
      model: { primry: MODEL },
      tools: { aprove: ['fs_write'] },
      limits: { maxTurn: 3 },
      context: { windowTokenz: 1000 },
      hooks: { onTurnEnds: 'x' },
      session: { idleWait: 5 },
    };
    expect(problemsOf(() => layerRunSpec(REACT_FACTS, [misspelt as never]))).toEqual([
      'unknown option "model.primry" (did you mean "primary"?)',
      'unknown option "tools.aprove" (did you mean "approve"?)',
      'unknown option "limits.maxTurn" (did you mean "maxTurns"?)',
      'unknown option "context.windowTokenz" (did you mean "windowTokens"?)',
      'unknown option "hooks.onTurnEnds" (did you mean "onTurnEnd"?)',
      'unknown option "session.idleWait" (did you mean "idleWaitMs"?)',
      'no model: name the model the run calls',
    ]);
    const spec = layerRunSpec(REACT_FACTS, [
      { task: 't', model: { provider: 'anthropic', model: 'claude-sonnet-4-6' }, tools: { approve: ['fs_write'] } },
    ]);
    expect(layerRunSpec(REACT_FACTS, [spec, { task: 'u' }])).toMatchObject({ task: 'u', tools: spec.tools });
  });

  it('names every model name that names no model, and a run without a model', () => {
    expect(
      problemsOf(() => runSpec({ task: 't', model: { primary: 'nomodel', fallbacks: ['a/b', 'c d/e'] } })),
    ).toEqual([
      'model: "nomodel" is not a model spec: expected provider/model, e.g. anthropic/claude-sonnet-4-6, ' +
        'openai/gpt-5-mini, minimax/MiniMax-M2.5 or openai-compatible/llama3.1',
      'fallbacks[1]: "c d/e" is not a model spec: expected provider/model, e.g. anthropic/claude-sonnet-4-6, ' +
        'openai/gpt-5-mini, minimax/MiniMax-M2.5 or openai-compatible/llama3.1',
    ]);
    expect(problemsOf(() => layerRunSpec(REACT_FACTS, [{ task: 't' }]))).toEqual([
      'no model: name the model the run calls',
    ]);
  });

  it('masks by count when a caller sets the counts, and not at all when told', () => {
    const counted = runSpec({ task: 't', model: MODEL, context: { mask: { keepResults: 1 } } });
    expect(counted.context.mask).toEqual({ ...DEFAULT_MASK_POLICY, keepResults: 1, byCost: false });
    expect(runSpec({ task: 't', model: MODEL, context: { mask: false } }).context.mask).toBeUndefined();
  });

  it('offers ask_user as a client tool', () => {
    const spec = runSpec({ task: 't', model: MODEL, tools: { askUser: true } });
    expect(spec.tools.clientTools?.map((t) => t.name)).toEqual(['ask_user']);
  });

  it("gives each sub-agent its kind's facts, an application's kind too", () => {
    const reflect: KindFacts = {
      name: 'reflect',
      workflowType: 'reflectAgentWorkflow',
      masks: true,
      callSettings: 'all',
    };
    const agents = { critic: { description: 'd', kind: 'reflect' }, helper: { description: 'h' } };
    const spec = layerRunSpec(REACT_FACTS, [{ task: 't', model: MODEL, agents }], [REACT_FACTS, reflect]);
    expect(spec.agents?.critic.facts).toEqual(reflect);
    expect(spec.agents?.helper.facts).toEqual(REACT_FACTS);
    expect(runSpecProblems(runSpec({ task: 't', model: MODEL, agents }))).toEqual([
      'sub-agent "critic": unknown kind "reflect"; known: react, pev',
    ]);
  });

  it('layers a resolved spec as itself, so a run can go on from another with its options', () => {
    const spec = runSpec({
      task: 't',
      model: { primary: MODEL, budget: [{ afterCostUsd: 1, model: 'openai/gpt-5-mini' }] },
      call: { maxTokens: 300 },
      tools: { approve: ['fs_write'], workspaceRoot: '/w' },
      context: { summaryModel: 'openai/gpt-5-mini' },
      fleet: { tenant: 'acme' },
      plan: [{ title: 'one' }],
    });
    expect(layerRunSpec(REACT_FACTS, [spec])).toEqual(spec);
  });
});
