import { runSpec } from '../../kit/run-spec';
import { KindRegistry, kindRegistry, pevEdge, reactEdge, type KindEdge } from '../../../src/kinds';
import type { AgentStateView } from '../../../src/contracts/agent-run';

const echo: KindEdge<{ times?: number }> = {
  facts: { name: 'echo', workflowType: 'echoAgentWorkflow', masks: true, callSettings: 'all' },
  optionsKey: 'echo',
  models: () => ['openai/gpt-4o-mini'],
  stateLines: (view) => [`echoes ${(view as AgentStateView & { echoes?: number }).echoes ?? 0}`],
};

const view = (kind: string, more: object = {}) => ({ kind, ...more }) as unknown as AgentStateView;

describe('KindRegistry', () => {
  it('knows the built-in kinds and the ones given, by name and workflow type', () => {
    const kinds = kindRegistry([echo]);
    expect(kinds.names).toEqual(['react', 'pev', 'echo']);
    expect(kinds.workflowTypes).toEqual(['reactAgentWorkflow', 'pevAgentWorkflow', 'echoAgentWorkflow']);
    expect(kinds.find('echo')).toBe(echo);
    expect(kinds.find('swarm')).toBeUndefined();
  });

  it('refuses two kinds of one name, or two that take their options under one key', () => {
    expect(() => new KindRegistry([reactEdge, { ...echo, facts: { ...echo.facts, name: 'react' } }])).toThrow(
      'two agent kinds are named "react"',
    );
    expect(() => new KindRegistry([pevEdge, { ...echo, optionsKey: 'pev' }])).toThrow(
      'two agent kinds take their options under "pev"',
    );
  });

  it("reads a start's own options under its kind's key and names the other kinds' options it gives", () => {
    const kinds = kindRegistry([echo]);
    const start = { echo: { times: 2 }, pev: { mode: 'plan' } };
    expect(kinds.ownOptions(echo, start)).toEqual({ times: 2 });
    expect(kinds.misplaced(echo, start)).toEqual([pevEdge]);
    expect(kinds.models('echo', start)).toEqual(['openai/gpt-4o-mini']);
    expect(kinds.models('echo', {})).toEqual([]);
  });

  it('builds the input with the own options under the key unless the kind builds it itself', () => {
    const kinds = kindRegistry([echo]);
    const config = runSpec({ kind: 'echo', model: 'anthropic/claude-sonnet-4-6', task: 't' }, [echo.facts]);
    expect(kinds.input(echo, config, { times: 2 })).toEqual({ config, echo: { times: 2 } });
    expect(kinds.input(echo, config, undefined)).toEqual({ config });
    expect(kinds.input(pevEdge, config, { models: { planner: 'openai/gpt-4o-mini' } })).toEqual({
      config,
      pev: { models: { planner: { provider: 'openai', model: 'gpt-4o-mini' } } },
    });
  });

  it("dispatches a state view to its kind's lines and waits", () => {
    const kinds = kindRegistry([echo]);
    expect(kinds.stateLines(view('echo', { echoes: 3 }))).toEqual(['echoes 3']);
    expect(kinds.stateLines(view('react'))).toEqual([]);
    expect(kinds.stateLines(view('unknown'))).toEqual([]);
    const confirming = view('pev', {
      pev: { phase: 'confirming', cycle: 2, round: 1, todos: [], improvements: [], trace: [] },
    });
    expect(kinds.waiting(confirming)).toMatchObject({ what: 'a decision on the plan of cycle 2' });
    expect(kinds.waiting(confirming)?.commands('r1')).toEqual({
      approve: 'plan r1',
      reject: 'plan r1 --reject --feedback TEXT',
    });
    expect(kinds.waiting(view('pev', { pev: { phase: 'executing', cycle: 1, round: 1, todos: [] } }))).toBeUndefined();
  });
});
