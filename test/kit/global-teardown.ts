import { objectObjectFailures } from './failure-texts';
import { stopRealServer } from './real-temporal';

/**
 * Scans what the runs on the kit's own Temporal server (its dev server, or the real tier's server)
 * said about their failures for "[object Object]" (./failure-texts), then stops that server and the
 * PostgreSQL server the global setup started.
 */
export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__durableAgentsDevServer;
  const real = globalThis.__durableAgentsRealServer;
  const own = server ?? real;
  let found: string[] = [];
  try {
    if (own) ({ found } = await objectObjectFailures(own.address, 'default'));
  } finally {
    await server?.stop();
    globalThis.__durableAgentsDevServer = undefined;
    if (real) await stopRealServer(real);
    globalThis.__durableAgentsRealServer = undefined;
    await globalThis.__durableAgentsPostgres?.stop();
    globalThis.__durableAgentsPostgres = undefined;
  }
  if (found.length > 0)
    throw new Error(
      `${found.length} run(s) of this test run wrote "[object Object]" where a message belongs:\n${found.slice(0, 10).join('\n')}`,
    );
}
