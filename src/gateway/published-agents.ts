/**
 * The agents a gateway publishes: declared as sub-agents are (docs/subagents.md), with what a caller
 * from outside needs besides (the approvals its calls wait for, whether its model may ask the user).
 * Each becomes an MCP tool, an A2A skill, an AG-UI endpoint and a Responses `model`.
 */
import { isPlainObject } from '../common/type-helpers';
import type { SubAgentSpec } from '../contracts/sub-agents';

export interface PublishedAgent extends SubAgentSpec {
  /** Tool names or `prefix*` patterns whose calls wait for a person (the caller answers). */
  approve?: string[];
  /** Offer the model `ask_user`: its questions wait for the caller's answer. */
  askUser?: boolean;
  /** Cost limit of one run, USD. */
  maxCostUsd?: number;
}

export type PublishedAgents = Record<string, PublishedAgent>;

/** A published agent's name: what a URL path, a tool name and a Responses `model` may carry. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** What is wrong with a set of published agents, one line each (empty: nothing). */
export function publishedAgentProblems(agents: unknown): string[] {
  if (!isPlainObject(agents)) return ['the published agents must be a JSON object of agents by name'];
  const names = Object.keys(agents);
  if (names.length === 0) return ['no agent to publish: declare `agents` in the config file or pass --agents FILE'];
  return names.flatMap((name) => {
    const agent = agents[name];
    const at = `agent "${name}"`;
    if (!NAME.test(name)) return [`${at}: a name is 1 to 64 letters, digits, "_", "." or "-"`];
    if (!isPlainObject(agent)) return [`${at} must be an object`];
    const problems: string[] = [];
    if (typeof agent.description !== 'string' || !agent.description.trim()) problems.push(`${at} needs a description`);
    for (const key of ['instructions', 'model', 'kind'] as const)
      if (agent[key] !== undefined && typeof agent[key] !== 'string') problems.push(`${at}: ${key} must be a string`);
    for (const key of ['tools', 'approve'] as const)
      if (agent[key] !== undefined && !isStrings(agent[key])) problems.push(`${at}: ${key} must be a list of names`);
    if (agent.askUser !== undefined && typeof agent.askUser !== 'boolean')
      problems.push(`${at}: askUser must be true or false`);
    for (const key of ['maxTurns', 'maxCostUsd'] as const)
      if (agent[key] !== undefined && !(typeof agent[key] === 'number' && agent[key] > 0))
        problems.push(`${at}: ${key} must be a number above 0`);
    return problems;
  });
}

/** The JSON Schema of what a caller gives a published agent (an MCP tool's input, an A2A skill's). */
export const AGENT_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    task: { type: 'string', description: 'what the agent should do' },
    context: { type: 'string', description: 'facts the agent needs that are not in the task' },
  },
  required: ['task'],
} as const;

/** The task text of an agent's input: the task, then the context under it. */
export function taskText(task: string, context?: string): string {
  return context?.trim() ? `${task}\n\nContext:\n${context}` : task;
}
