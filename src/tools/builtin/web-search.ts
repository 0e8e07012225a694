import { z } from 'zod';
import { RetryableToolError, defineTool } from '../define';

export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A search backend. Its key comes from the worker's config, never from workflow input. */
export interface WebSearchProvider {
  name: string;
  search(query: string, options: { count: number; signal: AbortSignal }): Promise<WebSearchResult[]>;
}

/** Brave Search API (`X-Subscription-Token`). `baseUrl` can point at a compatible endpoint. */
export function braveSearchProvider(options: { apiKey: string; baseUrl?: string }): WebSearchProvider {
  const base = options.baseUrl ?? 'https://api.search.brave.com';
  return {
    name: 'brave',
    async search(query, { count, signal }) {
      const url = new URL('/res/v1/web/search', base);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      const res = await fetch(url, {
        headers: { accept: 'application/json', 'x-subscription-token': options.apiKey },
        signal,
      });
      if (res.status === 429 || res.status >= 500)
        throw new RetryableToolError(`Search service answered ${res.status}.`);
      if (!res.ok) throw new Error(`Search service answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const body = (await res.json()) as {
        web?: { results?: { title?: string; url?: string; description?: string }[] };
      };
      return (body.web?.results ?? []).map((r) => ({
        title: r.title ?? '',
        url: r.url ?? '',
        snippet: r.description ?? '',
      }));
    },
  };
}

export function createWebSearchTool(provider: WebSearchProvider) {
  return defineTool({
    name: 'web_search',
    description: 'Search the web. Returns titles, URLs and snippets; fetch a URL for its full text.',
    parameters: z.object({
      query: z.string().min(1).max(400),
      count: z.number().int().min(1).max(20).default(5),
    }),
    timeoutMs: 30_000,
    async execute({ query, count }, ctx) {
      const results = await provider.search(query, { count, signal: ctx.signal });
      if (results.length === 0) return `No results for "${query}".`;
      return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n');
    },
  });
}
