import { objectObjectFailures } from './failure-texts';

/**
 * Scans what the runs on the kit's own dev server said about their failures for "[object Object]"
 * (./failure-texts), then stops the dev server and the PostgreSQL server the global setup started.
 */
export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__durableAgentsDevServer;
  let found: string[] = [];
  try {
    if (server) ({ found } = await objectObjectFailures(server.address, 'default'));
  } finally {
    await server?.stop();
    globalThis.__durableAgentsDevServer = undefined;
    await globalThis.__durableAgentsPostgres?.stop();
    globalThis.__durableAgentsPostgres = undefined;
  }
  if (found.length > 0)
    throw new Error(
      `${found.length} run(s) of this test run wrote "[object Object]" where a message belongs:\n${found.slice(0, 10).join('\n')}`,
    );
}
