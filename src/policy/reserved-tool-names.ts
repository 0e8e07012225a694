/**
 * Names a run's sub-agents may not take: the worker's built-in tools and the tools the workflow
 * offers itself. A sub-agent named like a built-in tool is refused by the worker only when the
 * run pins its tools, at its first step; one named like a workflow's tool would hide that tool.
 */
import type { SubAgents } from '../contracts/sub-agents';
import { READ_RESULT_TOOL } from './masking';
import { PLAN_TOOL } from './plan';

/** The worker's built-in tools (`src/tools/builtin`), whether or not a worker turns them on. */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  'fs_read',
  'fs_write',
  'fs_list',
  'fs_search',
  'http_fetch',
  'web_search',
];

/** The tools the workflow itself offers a run (reading a cut result back, updating its plan). */
const WORKFLOW_TOOL_NAMES: readonly string[] = [READ_RESULT_TOOL, PLAN_TOOL];

/** One line for each sub-agent named like a built-in or workflow tool. */
export function reservedNameProblems(agents: SubAgents | undefined): string[] {
  if (typeof agents !== 'object' || agents === null) return [];
  return Object.keys(agents).flatMap((name) => {
    const what = BUILTIN_TOOL_NAMES.includes(name)
      ? "the worker's built-in tool"
      : WORKFLOW_TOOL_NAMES.includes(name)
        ? "the workflow's own tool"
        : undefined;
    return what ? [`sub-agent "${name}" is named like ${what} ${name}: give the sub-agent another name`] : [];
  });
}
