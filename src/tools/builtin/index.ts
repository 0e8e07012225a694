import type { ToolDefinition } from '../define';
import { createFetchTool, type FetchLimits } from './fetch';
import { fileTools } from './files';
import type { SsrfPolicy } from './ssrf';
import { createWebSearchTool, type WebSearchProvider } from './web-search';

export interface BuiltinToolOptions {
  /** Default true. The file tools still refuse everything in a run without a workspace root. */
  files?: boolean;
  /** Default true. */
  fetch?: boolean | { policy?: SsrfPolicy; limits?: Partial<FetchLimits> };
  /** The search backend of `web_search`; without one (the default) there is no such tool. */
  webSearch?: WebSearchProvider | false;
}

/**
 * The built-in tools: `fs_read`, `fs_write`, `fs_list`, `fs_search`, `http_fetch` and, with a
 * search provider, `web_search`. There is deliberately no command-execution tool.
 */
export function builtinTools(options: BuiltinToolOptions = {}): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (options.files !== false) tools.push(...fileTools);
  if (options.fetch !== false) tools.push(createFetchTool(typeof options.fetch === 'object' ? options.fetch : {}));
  if (options.webSearch) tools.push(createWebSearchTool(options.webSearch));
  return tools;
}
