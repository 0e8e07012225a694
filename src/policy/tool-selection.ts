/** Which tools a run may use and how a call finds its catalogue entry. Pure functions over the tool contract. */
import type { ExecuteToolOutput, ToolCatalog, ToolCatalogEntry, ToolSelection } from '../contracts/tool-catalog';
import type { ToolSpec } from '../contracts/message-model';

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

/** The tool list a model request carries. */
export function toToolSpecs(catalog: ToolCatalog): ToolSpec[] {
  return catalog.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
}

export function findTool(catalog: ToolCatalog, name: string): ToolCatalogEntry | undefined {
  return catalog.tools.find((t) => t.name === name);
}

/** The error result for a tool name the catalogue does not have. */
export function unknownToolResult(catalog: ToolCatalog, name: string): ExecuteToolOutput {
  const known = catalog.tools.map((t) => t.name).join(', ') || '(none)';
  return { content: `Unknown tool "${name}". Available tools: ${known}`, isError: true, durationMs: 0 };
}
