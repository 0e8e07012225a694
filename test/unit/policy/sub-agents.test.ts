import type { PinnedTool } from '../../../src/contracts/agent-run';
import { fullUsage } from '../../../src/contracts/message-model';
import { runSpec } from '../../kit/run-spec';
import { runSpecProblems } from '../../../src/policy/run-spec-problems';
import {
  callTask,
  childConfig,
  childResultText,
  depthRefusal,
  fittingDefaults,
  subAgentProblems,
} from '../../../src/policy/sub-agents';
import { groups, type PlannedCall } from '../../../src/workflows/agent/tool-plan';

const MODEL = 'anthropic/claude-sonnet-4-6';

const parent = (extra: Parameters<typeof runSpec>[0] | object = {}) =>
  runSpec({
    task: 'Do it.',
    model: MODEL,
    tools: {
      allow: ['fs_*', 'add'],
      deny: ['fs_delete'],
      workspaceRoot: '/w',
      approve: ['fs_write'],
      approvals: [{ tool: 'add' }],
    },
    agents: { researcher: { description: 'Reads.', tools: ['fs_read'], maxTurns: 4 } },
    ...extra,
  });

describe('subAgentProblems', () => {
  it('accepts tools and patterns within what the run may use', () => {
    const config = parent({ agents: { r: { description: 'Reads.', tools: ['fs_read', 'fs_*', 'add'] } } });
    expect(subAgentProblems(config)).toEqual([]);
  });

  it('names a tool the run may not use, and one the run denies', () => {
    const config = parent({ agents: { r: { description: 'Reads.', tools: ['write_note', 'fs_delete', '*'] } } });
    expect(subAgentProblems(config)).toEqual([
      'sub-agent "r" asks for the tool "write_note", which this run may not use (its tools: fs_*, add, not fs_delete)',
      'sub-agent "r" asks for the tool "fs_delete", which this run may not use (its tools: fs_*, add, not fs_delete)',
      'sub-agent "r" asks for the tool "*", which this run may not use (its tools: fs_*, add, not fs_delete)',
    ]);
  });

  it('requires a description, a known kind, a model spec and a tool-like name', () => {
    const config = parent({
      agents: { 'bad name': { description: 'x' }, r: { description: ' ', kind: 'swarm', model: 'nomodel' } },
    });
    const problems = subAgentProblems(config);
    expect(problems[0]).toContain('sub-agent name must match');
    expect(problems.slice(1).join('\n')).toMatch(/description is required[\s\S]*model:[\s\S]*unknown kind "swarm"/);
  });

  it('is part of the config check a run is refused by', () => {
    expect(runSpecProblems(parent({ limits: { maxParallelAgents: 0 } }))).toContain(
      'maxParallelAgents must be a positive integer, got 0',
    );
  });
});

describe('fittingDefaults', () => {
  it("leaves out a default sub-agent that asks for a tool the run may not use, and keeps the run's own", () => {
    const config = parent({
      agents: {
        researcher: { description: 'Reads.', tools: ['fs_read'] },
        editor: { description: 'Edits.', tools: ['fs_read', 'write_note', 'fs_delete'] },
        own: { description: 'Writes.', tools: ['write_note'] },
      },
    });
    const { agents, left } = fittingDefaults(config, ['researcher', 'editor']);
    expect(Object.keys(agents ?? {})).toEqual(['researcher', 'own']);
    expect(left).toEqual([
      'sub-agent "editor" is not offered to this run: it asks for "write_note", "fs_delete", which this run ' +
        'may not use (its tools: fs_*, add, not fs_delete)',
    ]);
    // The start's own declaration is still refused by the check.
    expect(subAgentProblems({ ...config, agents })).toEqual([
      expect.stringContaining('sub-agent "own" asks for the tool "write_note"'),
    ]);
  });

  it('gives no sub-agents when every one is left out', () => {
    const config = parent({ agents: { editor: { description: 'Edits.', tools: ['write_note'] } } });
    expect(fittingDefaults(config, ['editor']).agents).toBeUndefined();
  });
});

describe('childConfig', () => {
  it("narrows the parent's tools, keeps its approvals, workspace and sub-agents, and passes its budget down", () => {
    const config = parent({
      tools: { allow: ['fs_*'], clientTools: [], approve: ['fs_write'], approvals: [{ tool: 'add' }] },
    });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', { maxTotalTokens: 900 });
    expect(child.tools).toEqual({ allow: ['fs_read'], approve: ['fs_write'], approvals: [{ tool: 'add' }] });
    expect(child.tools.approvals).toEqual(config.tools.approvals);
    expect(child.limits).toMatchObject({ maxTurns: 4, maxTotalTokens: 900 });
    expect(child.limits.maxCostUsd).toBeUndefined();
    expect(child.agents).toEqual(config.agents);
    expect(child.model).toEqual(config.model);
    expect(child.parent).toEqual({ workflowId: 'p', depth: 1, agent: 'researcher', budgetFromParent: true });
  });

  it("hands an eval's served results down to the child, not its follow-ups", () => {
    const served = [{ tool: 'add', results: [{ text: '3' }] }];
    const config = parent({ eval: { served, liveReads: true, followUps: ['Again.'] } });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(child.eval).toEqual({ served, liveReads: true });
  });

  it("passes down only the sub-agents whose tools fit the child's", () => {
    const config = parent({
      tools: { allow: ['fs_*'] },
      agents: {
        researcher: { description: 'Reads.', tools: ['fs_read'] },
        reader: { description: 'Reads too.', tools: ['fs_read'] },
        writer: { description: 'Writes.', tools: ['fs_write'] },
      },
    });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(Object.keys(child.agents ?? {})).toEqual(['researcher', 'reader']);
    expect(runSpecProblems(child)).toEqual([]);
  });

  it("inherits the parent's allow list without the sub-agents it cannot delegate to, and its tenant", () => {
    const config = parent({
      tools: { allow: ['fs_read', 'researcher', 'writer'] },
      agents: {
        researcher: { description: 'Reads.' },
        writer: { description: 'Writes.', tools: ['fs_write'] },
      },
      fleet: { tenant: 'acme', priority: 2 },
    });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(child.tools.allow).toEqual(['fs_read', 'researcher']);
    expect(Object.keys(child.agents ?? {})).toEqual(['researcher']);
    expect(child.fleet).toEqual({ tenant: 'acme', priority: 2 });
  });

  it("keeps the workspace and deny list, and the parent's client tools its sub-agent's tools name", () => {
    const ask = { name: 'ask', description: 'Asks the user.', parameters: { type: 'object' } };
    const pick = { name: 'pick', description: 'Picks a photo.', parameters: { type: 'object' } };
    const config = parent({
      tools: { allow: ['fs_*'], deny: ['fs_delete'], workspaceRoot: '/w', clientTools: [ask, pick] },
      agents: {
        researcher: { description: 'Reads.', tools: ['fs_read', 'ask'] },
        helper: { description: 'Helps.' },
      },
    });
    expect(subAgentProblems(config)).toEqual([]);
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(child.tools).toMatchObject({ deny: ['fs_delete'], workspaceRoot: '/w', clientTools: [ask] });
    expect(child.parent?.budgetFromParent).toBeUndefined();
    const helper = childConfig(config, { workflowId: 'p', agent: 'helper' }, 'Help.', {});
    expect(helper.tools.clientTools).toEqual([ask, pick]);
  });

  it("inherits the parent's call settings and budget rules unless the declaration says otherwise", () => {
    const config = parent({
      model: { primary: MODEL, budget: [{ afterCostUsd: 1, model: 'openai/gpt-5-mini' }] },
      call: { maxTokens: 500, temperature: 0.3, toolChoice: 'auto' },
      agents: {
        researcher: { description: 'Reads.', tools: ['fs_read'], model: 'openai/gpt-4o-mini' },
        terse: { description: 'Short.', tools: ['fs_read'], call: { maxTokens: 100 } },
        planner: { description: 'Plans.', tools: ['fs_read'], kind: 'pev' },
      },
    });
    const child = (agent: string) => childConfig(config, { workflowId: 'p', agent }, 'Look.', {});
    expect(child('researcher').call).toEqual({ maxTokens: 500, temperature: 0.3, toolChoice: 'auto' });
    expect(child('researcher').model.primary).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(child('researcher').model.budget).toEqual(config.model.budget);
    expect(child('terse').call.maxTokens).toBe(100);
    expect(child('planner').call).toEqual({ maxTokens: 500, temperature: 0.3 });
    expect(runSpecProblems(child('planner'))).toEqual([]);
  });

  it('runs a stand-in declaration on its own model, as a pev todo executor is', () => {
    const config = parent();
    const resolver = { ...config.model, primary: { provider: 'openai', model: 'gpt-4o-mini' } };
    const child = childConfig(
      config,
      {
        workflowId: 'p',
        agent: 'executor',
        spec: { description: 'Executes one todo.', instructions: 'Do it.' },
        resolver,
      },
      'Todo 1.',
      {},
    );
    expect(child).toMatchObject({ kind: 'react', systemPrompt: 'Do it.', model: resolver, tools: config.tools });
    expect(child.parent).toMatchObject({ agent: 'executor', depth: 1 });
  });
});

describe('depth', () => {
  it('refuses a call past the depth limit', () => {
    const config = parent({ limits: { maxAgentDepth: 1 } });
    expect(depthRefusal(config, 'researcher')).toBeUndefined();
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'x', {});
    expect(depthRefusal(child, 'researcher')).toBe(
      'Not run: the sub-agent "researcher" would run at depth 2, and sub-agents may nest 1 deep.',
    );
  });
});

describe('calls and results', () => {
  it('needs a task, and takes an optional context', () => {
    expect(callTask({ task: 'a', context: 'b' })).toEqual({ task: 'a', context: 'b' });
    expect(callTask({})).toEqual({ problem: 'Not run: a sub-agent call needs a non-empty string "task".' });
  });

  it("gives the child's answer, or an error naming its stop reason", () => {
    const base = { id: 'c', kind: 'react', turns: 1, usage: fullUsage({}), costUsd: 0, model: MODEL, messages: 2 };
    expect(childResultText('r', { ...base, status: 'completed', stopReason: 'completed', finalText: 'ok' })).toEqual({
      text: 'ok',
      isError: false,
    });
    const stopped = childResultText('r', { ...base, status: 'completed', stopReason: 'budget', finalText: '' });
    expect(stopped.isError).toBe(true);
    expect(stopped.text).toBe(
      'The sub-agent "r" did not finish (stop reason budget): it spent what was left of this run\'s budget.',
    );
  });

  it('groups sub-agent calls together up to the cap, apart from other tools', () => {
    const tool = (name: string, mode: PinnedTool['mode'], sideEffects = false): PinnedTool => ({
      name,
      mode,
      sideEffects,
      timeoutMs: 1000,
      fingerprint: name,
    });
    const call = (id: string, t: PinnedTool): PlannedCall => ({
      call: { id, name: t.name, arguments: {} },
      seq: 0,
      tool: t,
      mode: t.mode,
    });
    const agent = tool('researcher', 'agent');
    const add = tool('add', 'server');
    const planned = ['a1', 'a2', 'a3'].map((id) => call(id, agent));
    const shape = (gs: PlannedCall[][]) => gs.map((g) => g.map((p) => p.call.id));
    expect(shape(groups([...planned, call('t1', add)], { agent: 2 }))).toEqual([['a1', 'a2'], ['a3'], ['t1']]);
    expect(shape(groups([call('t1', add), ...planned], { agent: 4 }))).toEqual([['t1'], ['a1', 'a2', 'a3']]);
  });
});
