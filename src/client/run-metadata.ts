/**
 * What a run says about itself from the moment it is started: the Web UI's summary and details
 * (`staticSummary`, `staticDetails`), every project search attribute, and the short text that
 * stands for a task passed by reference.
 */
import crypto from 'node:crypto';
import { formatDuration } from '../common/duration';
import type { AgentConfig } from '../contracts/run-spec';
import { modelLabel } from '../contracts/model-ref';
import { TASK_ATTRIBUTE_CHARS } from '../contracts/search-attributes';
import { firstLine, startSearchAttributes } from '../policy/search-attribute-values';

/** Characters of the summary line (the server caps it at a few hundred bytes). */
const SUMMARY_CHARS = 180;
/** Characters of the task quoted in the details. */
const DETAILS_TASK_CHARS = 600;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export { firstLine, startSearchAttributes };

/** Characters of the task's words at the start of a run id. */
const ID_WORDS_CHARS = 48;

/**
 * A new run's id: the words of its task's first line, lower case and joined by `-`, then 12 random
 * hex digits (`which-items-of-checklist-md-are-still-open-3f9a1c2b7d4e`). The Web UI's list shows
 * ids and workflow types but no summary, so this is how a list tells runs apart. A task without
 * Latin letters or digits gives `agent-…`.
 */
export function newRunId(task: string): string {
  const words = firstLine(task)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = words.length <= ID_WORDS_CHARS ? words : words.slice(0, ID_WORDS_CHARS).replace(/-[^-]*$/, '');
  return `${cut || 'agent'}-${crypto.randomBytes(6).toString('hex')}`;
}

/** The Web UI's one-line summary: the agent kind and the task's first line. */
export function runSummary(kind: string, task: string): string {
  return clip(`${kind} · ${firstLine(task)}`, SUMMARY_CHARS);
}

/**
 * The Web UI's details (Markdown): kind, model, fallbacks, what the kind's own options say (`kindLines`), limits,
 * tools, workspace, and the task's start.
 */
export function runDetails(config: AgentConfig, task: string, kindLines: readonly string[] = []): string {
  const { limits, model, tools } = config;
  const limitParts = [
    `${limits.maxTurns} turns`,
    `${limits.maxToolCallsPerTurn} tool calls per turn`,
    `approval timeout ${formatDuration(limits.approvalTimeoutMs)}`,
    ...(limits.maxTotalTokens !== undefined ? [`${limits.maxTotalTokens} tokens`] : []),
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
  const lines = [
    `- **Agent** ${config.kind}`,
    `- **Model** ${modelLabel(model.primary)}`,
    `- **Fallbacks** ${model.fallbacks.length ? model.fallbacks.map(modelLabel).join(', ') : 'none'}`,
    ...kindLines,
    `- **Limits** ${limitParts.join(' · ')}`,
    `- **Tools** ${toolParts.join(' · ')}`,
    `- **Workspace** ${tools.workspaceRoot ?? 'none (file tools refuse every path)'}`,
    ...(config.taskHash ? [`- **Task** stored by reference (${config.taskHash})`] : []),
    '',
    '**Task**',
    '',
    ...clip(task, DETAILS_TASK_CHARS)
      .split('\n')
      .map((l) => `> ${l}`),
  ];
  return lines.join('\n');
}

/** What the run carries as its task when the whole task travels by reference. */
export function taskPointer(task: string, hash: string): string {
  return (
    `The request is the first user message of this conversation (${task.length} characters, stored as ` +
    `${hash.slice(0, 12)}). It begins: ${clip(firstLine(task), TASK_ATTRIBUTE_CHARS)}`
  );
}
