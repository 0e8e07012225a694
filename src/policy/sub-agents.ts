/**
 * Sub-agents as pure decisions (docs/subagents.md): what a declaration may hold, the config a
 * child run starts with (the parent's tools, approvals and its share of the budget), the
 * child's id and task, and the text the parent's model reads when the child ends.
 */
import type { AgentResult } from '../contracts/agent-run';
import type { AgentConfig } from '../contracts/run-spec';
import {
  DEFAULT_MAX_AGENT_DEPTH,
  DEFAULT_MAX_PARALLEL_AGENTS,
  type ChildBudget,
  type ChildRun,
  type SubAgentSpec,
  type SubAgents,
} from '../contracts/sub-agents';
import type { ResolverPolicy } from '../contracts/model-resolution';
import type { KindFacts } from '../contracts/kind-facts';
import type { CallSettings } from '../contracts/message-model';
import type { ToolSelection } from '../contracts/tool-catalog';
import { DEFAULT_SYSTEM_PROMPT_TEXT } from './system-prompt';
import { modelNameProblem } from './model-ref';
import { BUILT_IN_KIND_FACTS, DEFAULT_KIND, kindFactsOf } from './kind-facts';
import { layerRunSpec } from './run-spec';
import { reservedNameProblems } from './reserved-tool-names';
import { TOOL_NAME, matchesToolPattern } from './tool-selection';
import { childEval } from './served-tools';
import { isPlainObject } from '../common/type-helpers';

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

/**
 * Problems with a sub-agent's declaration on its own, not against a run (its tools, its kinds), one
 * readable line each: what a config file's `agents` are checked for where they are read.
 */
export function declarationProblems(name: string, spec: SubAgentSpec): string[] {
  if (!TOOL_NAME.test(name)) return [`sub-agent name must match ${TOOL_NAME.source}, got ${JSON.stringify(name)}`];
  const where = `sub-agent "${name}"`;
  if (!isPlainObject(spec)) return [`${where}: must be an object`];
  const problems: string[] = [];
  if (typeof spec.description !== 'string' || spec.description.trim() === '')
    problems.push(`${where}: a description is required: the model reads it to decide when to delegate`);
  const model = spec.model === undefined ? undefined : modelNameProblem(spec.model);
  if (model) problems.push(`${where}: model: ${model}`);
  if (spec.maxTurns !== undefined && !(Number.isInteger(spec.maxTurns) && spec.maxTurns >= 1))
    problems.push(`${where}: maxTurns must be a positive integer, got ${spec.maxTurns}`);
  if (spec.tools !== undefined && !Array.isArray(spec.tools)) problems.push(`${where}: tools must be a list of names`);
  return problems;
}

/** The tools a run of `tools` may not give a sub-agent that asks for them, and how the run's tools read. */
function toolsRefused(spec: SubAgentSpec, tools: ToolSelection): { refused: string[]; own: string } {
  const { allow, deny } = tools;
  const asked: unknown = spec.tools;
  return {
    refused: (Array.isArray(asked) ? (asked as string[]) : []).filter((tool) => !mayGrant(tool, tools)),
    own: `its tools: ${allow?.join(', ') ?? 'all'}${deny ? `, not ${deny.join(', ')}` : ''}`,
  };
}

function specProblems(name: string, spec: SubAgentSpec, config: AgentConfig): string[] {
  const problems = declarationProblems(name, spec);
  if (!TOOL_NAME.test(name) || !isPlainObject(spec)) return problems;
  const where = `sub-agent "${name}"`;
  if (!childFacts(spec))
    problems.push(`${where}: unknown kind "${spec.kind}"; known: ${BUILT_IN_KIND_FACTS.map((k) => k.name).join(', ')}`);
  const { refused, own } = toolsRefused(spec, config.tools);
  for (const tool of refused)
    problems.push(`${where} asks for the tool "${tool}", which this run may not use (${own})`);
  if (config.tools.clientTools?.some((t) => t.name === name))
    problems.push(`${where} is named like a client tool of the run: give one of them another name`);
  return problems;
}

/**
 * The run's sub-agents without those of `defaults` (names from a layer under every start, not the start's own)
 * that ask for a tool the run may not use, and a line for each one left out: a default that does not fit the
 * run's tools is not offered, where a sub-agent the start declares is refused (`subAgentProblems`).
 */
export function fittingDefaults(
  config: AgentConfig,
  defaults: readonly string[],
): { agents: SubAgents | undefined; left: string[] } {
  const agents = { ...config.agents };
  const left: string[] = [];
  for (const name of defaults) {
    const spec = agents[name];
    if (typeof spec !== 'object' || spec === null) continue;
    const { refused, own } = toolsRefused(spec, config.tools);
    if (refused.length === 0) continue;
    delete agents[name];
    const asked = refused.map((t) => `"${t}"`).join(', ');
    left.push(
      `sub-agent "${name}" is not offered to this run: it asks for ${asked}, which this run may not use (${own})`,
    );
  }
  return { agents: Object.keys(agents).length > 0 ? agents : undefined, left };
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
  if (!isPlainObject(agents)) return [...problems, 'agents must be an object of sub-agents by name'];
  problems.push(...reservedNameProblems(agents));
  for (const [name, spec] of Object.entries(agents)) problems.push(...specProblems(name, spec, config));
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
  /** The child's eval record; default the parent's, as a child inherits it. */
  eval?: AgentConfig['eval'];
}

/** What a sub-agent's kind is: as its declaration carries it, else a built-in kind's. */
export const childFacts = (spec: SubAgentSpec): KindFacts | undefined =>
  spec.facts ?? kindFactsOf(spec.kind ?? DEFAULT_KIND);

/** The parent's call settings as a child of `facts` takes them: not the format and tool choice its steps set. */
const inheritedCall = ({ responseFormat, toolChoice, ...sampling }: CallSettings, facts: KindFacts): CallSettings =>
  facts.callSettings === 'all'
    ? { ...sampling, ...(responseFormat ? { responseFormat } : {}), ...(toolChoice ? { toolChoice } : {}) }
    : sampling;

/**
 * The spec of a child run, one layering (`layerRunSpec`) of what it inherits from its parent under what its
 * declaration says: the parent's model and budget rules (the declaration's model instead, with the parent's rules),
 * call settings, tools narrowed to the sub-agent's (its client tools too), approval list and rules, workspace and
 * MCP servers, masking, fleet, those of its sub-agents whose tools fit the child's, its share of the parent's budget
 * and its eval record; then the sub-agent's prompt, turns and call settings.
 */
export function childConfig(parent: AgentConfig, link: ChildLink, task: string, budget: ChildBudget): AgentConfig {
  const spec = link.spec ?? (parent.agents ?? {})[link.agent];
  const facts = childFacts(spec);
  if (!facts) throw new Error(`sub-agent "${link.agent}" has a kind this run does not know: ${spec.kind}`);
  const { clientTools, ...tools } = parent.tools;
  const { maxTotalTokens: _tokens, maxCostUsd: _cost, ...limits } = parent.limits;
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
  const model = link.resolver ?? (spec.model ? { ...parent.model, primary: spec.model, fallbacks: [] } : parent.model);
  const child = layerRunSpec(facts, [
    {
      model,
      call: inheritedCall(parent.call, facts),
      tools: childTools,
      limits: { ...limits, ...budget },
      context: { ...parent.context, mask: (facts.masks && parent.context.mask) || false },
      ...(parent.fleet ? { fleet: parent.fleet } : {}),
      ...(agents ? { agents } : {}),
      ...(parent.stream ? { stream: true } : {}),
      ...(parent.searchAttributes === false ? { searchAttributes: false } : {}),
      ...(parent.eval ? { eval: link.eval ?? childEval(parent.eval) } : {}),
    },
    {
      task,
      ...(facts.ownPrompts ? {} : { systemPrompt: spec.instructions ?? DEFAULT_SYSTEM_PROMPT_TEXT }),
      ...(spec.maxTurns ? { limits: { maxTurns: spec.maxTurns } } : {}),
      ...(spec.call ? { call: spec.call } : {}),
    },
  ]);
  return {
    ...child,
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
