import globalSetup from './global-setup';
import globalTeardown from './global-teardown';
import { TEST_PG_URL_ENV, startPostgres } from './postgres';
import { startRealServer } from './real-temporal';

/**
 * The real tier's global setup (jest.real.config.js): a PostgreSQL server of the run's own, Temporal's
 * own server on it (./real-temporal.ts), then the global setup every tier runs, which finds that
 * server at TEMPORAL_ADDRESS, registers the search attributes through it and bundles the workflows.
 */
export default async function realGlobalSetup(): Promise<void> {
  try {
    globalThis.__durableAgentsPostgres = await startPostgres();
    process.env[TEST_PG_URL_ENV] = globalThis.__durableAgentsPostgres.url;
    const server = await startRealServer(globalThis.__durableAgentsPostgres.url);
    globalThis.__durableAgentsRealServer = server;
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_NAMESPACE = 'default';
    delete process.env.TEMPORAL_UI_URL;
  } catch (err) {
    await globalTeardown();
    throw err;
  }
  await globalSetup();
}
