import type { PinnedTool } from '../../../src/contracts/agent-run';
import { emptyCost, fullUsage } from '../../../src/contracts/message-model';
import { buildAgentConfig, configProblems } from '../../../src/policy/agent-config';
import {
  budgetReason,
  callTask,
  childConfig,
  childResultText,
  depthRefusal,
  remainingBudget,
  subAgentProblems,
} from '../../../src/policy/sub-agents';
import { groups, type PlannedCall } from '../../../src/workflows/agent/tool-plan';

const MODEL = 'anthropic/claude-sonnet-4-6';

const parent = (extra: Parameters<typeof buildAgentConfig>[0] | object = {}) =>
  buildAgentConfig({
    task: 'Do it.',
    model: MODEL,
    tools: { allow: ['fs_*', 'add'], deny: ['fs_delete'], workspaceRoot: '/w' },
    approve: ['fs_write'],
    approvals: [{ tool: 'add' }],
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
    expect(problems.slice(1).join('\n')).toMatch(/description is required[\s\S]*unknown kind "swarm"[\s\S]*model:/);
  });

  it('is part of the config check a run is refused by', () => {
    expect(configProblems(parent({ limits: { maxParallelAgents: 0 } }))).toContain(
      'maxParallelAgents must be a positive integer, got 0',
    );
  });
});

describe('childConfig', () => {
  it("narrows the parent's tools, keeps its approvals, workspace and sub-agents, and passes its budget down", () => {
    const config = parent({ tools: { allow: ['fs_*'], clientTools: [] } });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', { maxTotalTokens: 900 });
    expect(child.tools).toEqual({ allow: ['fs_read'], approve: ['fs_write'] });
    expect(child.approvals).toEqual(config.approvals);
    expect(child.limits).toMatchObject({ maxTurns: 4, maxTotalTokens: 900 });
    expect(child.limits.maxCostUsd).toBeUndefined();
    expect(child.agents).toEqual(config.agents);
    expect(child.resolver).toEqual(config.resolver);
    expect(child.parent).toEqual({ workflowId: 'p', depth: 1, agent: 'researcher', budgetFromParent: true });
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
    expect(configProblems(child)).toEqual([]);
  });

  it("inherits the parent's allow list without the sub-agents it cannot delegate to, and its tenant", () => {
    const config = parent({
      tools: { allow: ['fs_read', 'researcher', 'writer'] },
      agents: {
        researcher: { description: 'Reads.' },
        writer: { description: 'Writes.', tools: ['fs_write'] },
      },
      tenant: 'acme',
      priority: 2,
    });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(child.tools.allow).toEqual(['fs_read', 'researcher']);
    expect(Object.keys(child.agents ?? {})).toEqual(['researcher']);
    expect(child).toMatchObject({ tenant: 'acme', priority: 2 });
  });

  it("keeps the workspace and deny list, and drops the parent's client tools", () => {
    const config = parent({
      tools: { allow: ['fs_*'], deny: ['fs_delete'], workspaceRoot: '/w', clientTools: [{ name: 'ask' }] },
    });
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'Look.', {});
    expect(child.tools).toMatchObject({ deny: ['fs_delete'], workspaceRoot: '/w' });
    expect(child.tools.clientTools).toBeUndefined();
    expect(child.parent?.budgetFromParent).toBeUndefined();
  });
});

describe('budgets and depth', () => {
  it("gives a child what is left of the parent's budgets, and says when one is spent", () => {
    const config = parent({ limits: { maxTotalTokens: 1000, maxCostUsd: 1 } });
    const spent = { usage: fullUsage({ inputTokens: 300, outputTokens: 100 }), cost: { ...emptyCost(), total: 0.25 } };
    expect(remainingBudget(config, spent)).toEqual({ maxTotalTokens: 600, maxCostUsd: 0.75 });
    const over = { usage: fullUsage({ inputTokens: 1000 }), cost: emptyCost() };
    expect(remainingBudget(config, over).spent).toBe("the run's token budget (1000) is spent");
  });

  it('calls a child reaching its share of the budget `budget`, and a top-level run by its own limit', () => {
    const config = parent();
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'x', { maxCostUsd: 1 });
    expect(budgetReason(child, 'cost_budget')).toBe('budget');
    expect(budgetReason(child, 'max_turns')).toBe('max_turns');
    expect(budgetReason(config, 'token_budget')).toBe('token_budget');
  });

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
    expect(shape(groups([...planned, call('t1', add)], 2))).toEqual([['a1', 'a2'], ['a3'], ['t1']]);
    expect(shape(groups([call('t1', add), ...planned], 4))).toEqual([['t1'], ['a1', 'a2', 'a3']]);
  });
});
