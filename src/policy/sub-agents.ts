/**
 * Sub-agents as pure decisions (docs/subagents.md): what a declaration may hold, the config a
 * child run starts with (the parent's tools, approvals and its share of the budget), the
 * child's id and task, and the text the parent's model reads when the child ends.
 */
import type { AgentConfig, AgentResult } from '../contracts/agent-run';
import { AGENT_WORKFLOWS } from '../contracts/agent-workflows';
import {
  DEFAULT_MAX_AGENT_DEPTH,
  DEFAULT_MAX_PARALLEL_AGENTS,
  type ChildBudget,
  type ChildRun,
  type SubAgentSpec,
  type SubAgents,
} from '../contracts/sub-agents';
import type { ResolverPolicy } from '../contracts/model-resolution';
import type { ToolSelection } from '../contracts/tool-catalog';
import { DEFAULT_SYSTEM_PROMPT_TEXT } from './system-prompt';
import { modelNameProblem, modelRefOf } from './model-ref';
import { resolverPolicy } from './resolver';
import { TOOL_NAME, matchesToolPattern } from './tool-selection';

/** The parameters every sub-agent tool takes. */
export const SUB_AGENT_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    task: { type: 'string', description: 'What the sub-agent should do, self-contained.' },
    context: { type: 'string', description: 'Facts from this conversation the sub-agent needs.' },
  },
  required: ['task'],
};

/** Whether the parent's allow list covers a tool name or pattern the sub-agent asks for. */
function covered(pattern: string, allow: readonly string[] | undefined): boolean {
  if (allow === undefined) return true;
  if (!pattern.endsWith('*')) return matchesToolPattern(pattern, allow);
  const prefix = pattern.slice(0, -1);
  return allow.some((a) => a.endsWith('*') && prefix.startsWith(a.slice(0, -1)));
}

/** Whether a run of `tools` may give a sub-agent `pattern`: a tool (or pattern) it may use, or a client tool. */
function mayGrant(pattern: string, tools: ToolSelection): boolean {
  if (tools.clientTools?.some((t) => t.name === pattern)) return true;
  return covered(pattern, tools.allow) && !matchesToolPattern(pattern, tools.deny);
}

function specProblems(name: string, spec: SubAgentSpec, config: AgentConfig): string[] {
  const where = `sub-agent "${name}"`;
  if (typeof spec !== 'object' || spec === null) return [`${where}: must be an object`];
  const problems: string[] = [];
  if (typeof spec.description !== 'string' || spec.description.trim() === '')
    problems.push(`${where}: a description is required: the model reads it to decide when to delegate`);
  const kind = spec.kind ?? 'react';
  if (!Object.prototype.hasOwnProperty.call(AGENT_WORKFLOWS, kind))
    problems.push(`${where}: unknown kind "${kind}"; known: ${Object.keys(AGENT_WORKFLOWS).join(', ')}`);
  if (spec.model !== undefined) {
    const problem = modelNameProblem(spec.model);
    if (problem) problems.push(`${where}: model: ${problem}`);
  }
  if (spec.maxTurns !== undefined && !(Number.isInteger(spec.maxTurns) && spec.maxTurns >= 1))
    problems.push(`${where}: maxTurns must be a positive integer, got ${spec.maxTurns}`);
  if (spec.tools !== undefined && !Array.isArray(spec.tools)) problems.push(`${where}: tools must be a list of names`);
  const { allow, deny } = config.tools;
  const own = `its tools: ${allow?.join(', ') ?? 'all'}${deny ? `, not ${deny.join(', ')}` : ''}`;
  for (const tool of Array.isArray(spec.tools) ? spec.tools : []) {
    if (!mayGrant(tool, config.tools))
      problems.push(`${where} asks for the tool "${tool}", which this run may not use (${own})`);
  }
  if (config.tools.clientTools?.some((t) => t.name === name))
    problems.push(`${where} is named like a client tool of the run: give one of them another name`);
  return problems;
}

/** Problems with a run's sub-agents and their limits, one readable line each. */
export function subAgentProblems(config: AgentConfig): string[] {
  const problems: string[] = [];
  const { maxParallelAgents, maxAgentDepth } = config.limits;
  if (maxParallelAgents !== undefined && !(Number.isInteger(maxParallelAgents) && maxParallelAgents >= 1))
    problems.push(`maxParallelAgents must be a positive integer, got ${maxParallelAgents}`);
  if (maxAgentDepth !== undefined && !(Number.isInteger(maxAgentDepth) && maxAgentDepth >= 0))
    problems.push(`maxAgentDepth must be a whole number (0 or more), got ${maxAgentDepth}`);
  const agents = config.agents;
  if (agents === undefined) return problems;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents))
    return [...problems, 'agents must be an object of sub-agents by name'];
  for (const [name, spec] of Object.entries(agents)) {
    if (!TOOL_NAME.test(name))
      problems.push(`sub-agent name must match ${TOOL_NAME.source}, got ${JSON.stringify(name)}`);
    else problems.push(...specProblems(name, spec, config));
  }
  return problems;
}

export const maxParallelAgents = (config: AgentConfig): number =>
  config.limits.maxParallelAgents ?? DEFAULT_MAX_PARALLEL_AGENTS;

/** The depth a child of this run would run at, and why it may not, if it may not. */
export function depthRefusal(config: AgentConfig, agent: string): string | undefined {
  const depth = (config.parent?.depth ?? 0) + 1;
  const max = config.limits.maxAgentDepth ?? DEFAULT_MAX_AGENT_DEPTH;
  if (depth <= max) return undefined;
  return `Not run: the sub-agent "${agent}" would run at depth ${depth}, and sub-agents may nest ${max} deep.`;
}

/** The child's workflow id: derived from the parent's and the call, so a retried start finds the same child. */
export const childWorkflowId = (parentId: string, agent: string, toolCallId: string): string =>
  `${parentId}/${agent}-${toolCallId}`;

/**
 * The id of the child run that executes a pev todo: the todo's id, made safe for an id, and the
 * parent's turn when it started, which no later cycle or follow-up repeats.
 */
export const todoChildId = (parentId: string, todoId: string, turn: number): string =>
  `${parentId}/executor-${todoId.replace(/[^\w.-]/g, '_').slice(0, 64)}-t${turn}`;

/** What started a child, beside its agent's name: `call <id>` or `todo <id>`. */
export const childOrigin = (child: Pick<ChildRun, 'toolCallId' | 'todoId'>): string =>
  child.todoId !== undefined ? `todo ${child.todoId}` : `call ${child.toolCallId ?? '?'}`;

/** The same, shorter, where a call's id stands alone: `<call id>` or `todo <id>`. */
export const childTag = (child: Pick<ChildRun, 'toolCallId' | 'todoId'>): string =>
  child.todoId !== undefined ? `todo ${child.todoId}` : (child.toolCallId ?? '?');

/** The child's task: the call's task, then its context. */
export const childTask = (task: string, context: string | undefined): string =>
  context?.trim() ? `${task}\n\nContext:\n${context}` : task;

/** The task and context of a sub-agent call, or why the call cannot run. */
export function callTask(args: Record<string, unknown>): { task: string; context?: string } | { problem: string } {
  const { task, context } = args;
  if (typeof task !== 'string' || task.trim() === '')
    return { problem: 'Not run: a sub-agent call needs a non-empty string "task".' };
  if (context !== undefined && typeof context !== 'string')
    return { problem: 'Not run: "context" of a sub-agent call must be a string.' };
  return context === undefined ? { task } : { task, context };
}

/** The sub-agents whose tools fit a child's tools: a child delegates only within what it may use itself. */
function withinTools(agents: SubAgents | undefined, tools: ToolSelection): SubAgents | undefined {
  const kept = Object.entries(agents ?? {}).filter(([, spec]) =>
    (spec.tools ?? tools.allow ?? []).every((t) => mayGrant(t, tools)),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** Who a child is to its parent; `spec` and `resolver` stand in for a declared sub-agent (a pev todo's executor). */
export interface ChildLink {
  workflowId: string;
  agent: string;
  /** Default: the parent's declaration of `agent`. */
  spec?: SubAgentSpec;
  /** The child's model and fallbacks; default `spec.model`, else the parent's. */
  resolver?: ResolverPolicy;
}

/**
 * The config of a child run: the sub-agent's prompt, model (default the parent's), kind and turns;
 * the parent's tools narrowed to the sub-agent's (its client tools too), its approval list and
 * rules, its workspace and MCP servers, those of its sub-agents whose tools fit the child's, and
 * its share of the parent's budget.
 */
export function childConfig(parent: AgentConfig, link: ChildLink, task: string, budget: ChildBudget): AgentConfig {
  const spec = link.spec ?? (parent.agents ?? {})[link.agent];
  const kind = spec.kind ?? 'react';
  const { clientTools, ...tools } = parent.tools;
  const { maxTotalTokens: _tokens, maxCostUsd: _cost, ...limits } = parent.limits;
  const { mask, ...context } = parent.context;
  const budgeted = budget.maxTotalTokens !== undefined || budget.maxCostUsd !== undefined;
  // An inherited allow list loses the names of sub-agents the child cannot delegate to.
  const inherited = spec.tools ?? tools.allow;
  const candidates = withinTools(parent.agents, { ...tools, ...(inherited ? { allow: inherited } : {}) });
  const dropped = Object.keys(parent.agents ?? {}).filter((name) => !candidates?.[name]);
  const allow = spec.tools ?? tools.allow?.filter((name) => !dropped.includes(name));
  // The parent's client tools, as far as the sub-agent's own tools name them.
  const clients = clientTools?.filter((t) => spec.tools === undefined || matchesToolPattern(t.name, spec.tools));
  const childTools = { ...tools, ...(allow ? { allow } : {}), ...(clients?.length ? { clientTools: clients } : {}) };
  const agents = withinTools(parent.agents, childTools);
  const resolver =
    link.resolver ??
    (spec.model
      ? resolverPolicy(modelRefOf(spec.model), [], { attemptsPerProvider: parent.resolver.attemptsPerProvider })
      : parent.resolver);
  return {
    kind,
    task,
    ...(kind === 'pev' ? {} : { systemPrompt: spec.instructions ?? DEFAULT_SYSTEM_PROMPT_TEXT }),
    resolver,
    limits: { ...limits, maxTurns: spec.maxTurns ?? parent.limits.maxTurns, ...budget },
    tools: childTools,
    ...(parent.approvals ? { approvals: parent.approvals } : {}),
    context: kind === 'pev' || !mask ? context : { ...context, mask },
    ...(parent.stream ? { stream: true } : {}),
    ...(parent.searchAttributes === false ? { searchAttributes: false } : {}),
    ...(parent.activityTaskQueue ? { activityTaskQueue: parent.activityTaskQueue } : {}),
    ...(agents ? { agents } : {}),
    // A child works for its parent's tenant, at its priority.
    ...(parent.tenant !== undefined ? { tenant: parent.tenant } : {}),
    ...(parent.priority !== undefined ? { priority: parent.priority } : {}),
    parent: {
      workflowId: link.workflowId,
      depth: (parent.parent?.depth ?? 0) + 1,
      agent: link.agent,
      ...(budgeted ? { budgetFromParent: true } : {}),
    },
  };
}

const ENDINGS: Partial<Record<string, string>> = {
  budget: "it spent what was left of this run's budget",
  max_turns: 'it reached its turn limit',
  stopped: 'it was stopped',
  cancelled: 'it was cancelled',
  max_tool_calls: 'it asked for more tool calls in one answer than allowed',
  hook_stopped: 'a hook stopped it',
};

/** The tool result the parent's model reads when a child ends: its answer, or why it has none. */
export function childResultText(agent: string, result: AgentResult): { text: string; isError: boolean } {
  if (result.status === 'completed' && result.stopReason === 'completed')
    return { text: result.finalText || `The sub-agent "${agent}" ended without an answer.`, isError: false };
  const why =
    result.stopReason === 'error'
      ? `it failed: ${result.error?.message ?? 'unknown error'}`
      : (ENDINGS[result.stopReason] ?? `it stopped (${result.stopReason})`);
  const partial = result.finalText ? `\n\nIts last text:\n${result.finalText}` : '';
  return {
    text: `The sub-agent "${agent}" did not finish (stop reason ${result.stopReason}): ${why}.${partial}`,
    isError: true,
  };
}

/** The agents a run declares, as its catalogue pins them. */
export const subAgentTools = (
  agents: SubAgents | undefined,
): { name: string; description: string; tools?: string[] }[] =>
  Object.entries(agents ?? {}).map(([name, spec]) => ({
    name,
    description: spec.description,
    ...(spec.tools ? { tools: spec.tools } : {}),
  }));
