import type { ToolDefinition } from '../define';
import { createFetchTool, type FetchLimits } from './fetch';
import { fileTools } from './files';
import type { SsrfPolicy } from './ssrf';
import { createWebSearchTool, webSearchProviderFromEnv, type WebSearchProvider } from './web-search';

export interface BuiltinToolOptions {
  /** Default true. The file tools still refuse everything in a run without a workspace root. */
  files?: boolean;
  /** Default true. */
  fetch?: boolean | { policy?: SsrfPolicy; limits?: Partial<FetchLimits> };
  /** Default: from the environment; no provider means no `web_search` tool. */
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
  const search = options.webSearch === false ? undefined : (options.webSearch ?? webSearchProviderFromEnv());
  if (search) tools.push(createWebSearchTool(search));
  return tools;
}
