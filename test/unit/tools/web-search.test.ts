import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinTools, configuredToolRegistry } from '../../../src/tools';
import { workerConfig } from '../../../src/worker/worker-config';

/** The tools a worker with this environment offers, as its config sets them. */
const workerTools = (env: NodeJS.ProcessEnv) => configuredToolRegistry(workerConfig({ env, file: null }).tools);

describe('web_search', () => {
  it('is absent without a provider key', () => {
    expect(builtinTools().map((t) => t.name)).not.toContain('web_search');
    expect(
      workerTools({})
        .localEntries()
        .map((t) => t.name),
    ).not.toContain('web_search');
  });

  it('queries the Brave Search API with the key from the environment and lists the results', async () => {
    const seen: { url?: string; token?: string }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ url: req.url, token: req.headers['x-subscription-token'] as string });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          web: { results: [{ title: 'Temporal', url: 'https://temporal.io/', description: 'Durable execution' }] },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const registry = workerTools({
        BRAVE_SEARCH_API_KEY: 'k-123',
        BRAVE_SEARCH_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      const out = await registry.execute({
        runId: 'r',
        toolCallId: 'c',
        name: 'web_search',
        args: { query: 'durable agents', count: 3 },
        selection: {},
      });
      expect(out).toMatchObject({
        isError: false,
        content: '1. Temporal\n   https://temporal.io/\n   Durable execution',
      });
      expect(seen).toEqual([{ url: '/res/v1/web/search?q=durable+agents&count=3', token: 'k-123' }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
