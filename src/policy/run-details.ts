/**
 * What a run's page says about it from its start (`staticSummary`, `staticDetails`): the one-line
 * summary and the Markdown details, for a run a client starts and a child run its parent starts.
 */
import { formatDuration } from '../common/duration';
import type { AgentConfig } from '../contracts/run-spec';
import { modelLabel } from '../contracts/model-ref';
import { markdownText } from './markdown';
import { firstLine } from './search-attribute-values';
import { clip } from './previews';

/** Characters of the summary line (the server caps it at a few hundred bytes). */
const SUMMARY_CHARS = 180;
/** Characters of the task quoted in the details. */
const DETAILS_TASK_CHARS = 600;

/** `1 turn`, `3 turns`. */
const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The Web UI's one-line summary: the agent kind and the task's first line. */
export function runSummary(kind: string, task: string): string {
  return clip(`${kind} · ${firstLine(task)}`, SUMMARY_CHARS);
}

/**
 * The Web UI's details (Markdown): kind, model, fallbacks, what the kind's own options or the
 * parent say (`ownLines`), limits, tools, sub-agents, workspace, and the task's start.
 */
export function runDetails(config: AgentConfig, task: string, ownLines: readonly string[] = []): string {
  const { limits, model, tools } = config;
  const limitParts = [
    count(limits.maxTurns, 'turn'),
    `${count(limits.maxToolCallsPerTurn, 'tool call')} per turn`,
    `approval timeout ${formatDuration(limits.approvalTimeoutMs)}`,
    ...(limits.maxTotalTokens !== undefined ? [count(limits.maxTotalTokens, 'token')] : []),
    ...(limits.maxCostUsd !== undefined ? [`$${limits.maxCostUsd}`] : []),
    ...Object.entries(limits.toolTimeoutsMs ?? {}).map(([name, ms]) => `${name} timeout ${formatDuration(ms)}`),
  ];
  const toolParts = [
    tools.allow ? `allowed: ${tools.allow.join(', ')}` : 'all tools',
    ...(tools.approve?.length ? [`approval needed: ${tools.approve.join(', ')}`] : []),
    ...(tools.mcpServers?.length ? [`MCP servers ${tools.mcpServers.join(', ')}`] : []),
    ...(tools.mcpConfigPath ? [`MCP config ${tools.mcpConfigPath}`] : []),
    ...(tools.mcpConfig ? [`run's MCP servers ${Object.keys(tools.mcpConfig.mcpServers).join(', ')}`] : []),
  ];
  const agents = Object.keys(config.agents ?? {});
  const lines = [
    `- **Agent** ${config.kind}`,
    `- **Model** ${modelLabel(model.primary)}`,
    `- **Fallbacks** ${model.fallbacks.length ? model.fallbacks.map(modelLabel).join(', ') : 'none'}`,
    ...ownLines,
    `- **Limits** ${markdownText(limitParts.join(' · '))}`,
    `- **Tools** ${markdownText(toolParts.join(' · '))}`,
    ...(agents.length > 0 ? [`- **Sub-agents** ${agents.join(', ')}`] : []),
    `- **Workspace** ${markdownText(tools.workspaceRoot ?? 'none (file tools refuse every path)')}`,
    ...(config.taskHash ? [`- **Task** stored by reference (${config.taskHash})`] : []),
    '',
    '**Task**',
    '',
    ...markdownText(clip(task, DETAILS_TASK_CHARS))
      .split('\n')
      .map((l) => `> ${l}`),
  ];
  return lines.join('\n');
}
