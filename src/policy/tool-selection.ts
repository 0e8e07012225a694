/** Which tools a run may use. Pure functions over the tool contract. */
import type { RunClientTool, ToolCatalog, ToolSelection } from '../contracts/tool-catalog';
import type { ToolSpec } from '../contracts/message-model';
import { isPlainObject } from '../common/type-helpers';

/** The idempotency key a side-effecting tool receives: the same on every retry of the same call. */
export function idempotencyKey(runId: string, toolCallId: string): string {
  return `${runId}:${toolCallId}`;
}

/** True when `name` matches one of the patterns (exact names, or prefixes ending in `*`). */
export function matchesToolPattern(name: string, patterns: readonly string[] | undefined): boolean {
  if (!patterns) return false;
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

/** Allow/deny decision of a selection for one tool name. Deny wins. */
export function isToolAllowed(name: string, selection: ToolSelection): boolean {
  if (matchesToolPattern(name, selection.deny)) return false;
  return selection.allow === undefined || matchesToolPattern(name, selection.allow);
}

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Problems with the client tools a run declares, one line each. */
export function clientToolProblems(tools: readonly RunClientTool[] | undefined): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, tool] of (tools ?? []).entries()) {
    const where = `clientTools[${i}]`;
    if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      problems.push(`${where}: name must match ${TOOL_NAME.source}, got ${JSON.stringify(tool?.name)}`);
      continue;
    }
    if (seen.has(tool.name)) problems.push(`${where}: the tool "${tool.name}" is declared twice`);
    seen.add(tool.name);
    if (typeof tool.description !== 'string' || tool.description.trim() === '')
      problems.push(`${where} (${tool.name}): a description is required: the model reads it to decide when to call`);
    if (!isPlainObject(tool.parameters) || tool.parameters.type !== 'object')
      problems.push(`${where} (${tool.name}): parameters must be a JSON Schema with "type": "object"`);
  }
  return problems;
}

/** The tool list a model request carries. */
export function toToolSpecs(catalog: ToolCatalog): ToolSpec[] {
  return catalog.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}
