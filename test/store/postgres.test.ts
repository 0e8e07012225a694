/**
 * The PostgreSQL store on the jest run's real server: schema migration with several workers
 * starting at once, bad URLs and credentials at worker start, and the database going away mid-run.
 */
import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import { openStore, PostgresContentStore, SCHEMA_VERSION } from '../../src/store';
import { fakeProviderEnv, reply, startFakeProvider } from '../../src/testing/fake-provider';
import { createToolRegistry } from '../../src/tools';
import { storeConfig, workerConfig } from '../../src/worker/worker-config';
import { PRIMARY } from '../agent/agent-kit';
import { runCli } from '../kit/cli';
import { createTestDatabase, queryDatabase, testPostgresUrl } from '../kit/postgres';
import { startTcpProxy } from '../kit/tcp-proxy';
import { testConnection, workflowBundle, withWorker } from '../kit/temporal';

describe('PostgreSQL store', () => {
  it('creates the schema once when several workers start at once, and leaves it alone after', async () => {
    const db = await createTestDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresContentStore.open(db.url)));
      await Promise.all(stores.map((s) => s.close()));
      await (await PostgresContentStore.open(db.url)).close();
      const versions = await queryDatabase<{ version: number }>(
        db.url,
        'SELECT version FROM durable_agents_schema ORDER BY version',
      );
      expect(versions).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
      // A database migrated by a newer worker is not touched by an older one.
      await queryDatabase(db.url, `INSERT INTO durable_agents_schema (version) VALUES (${SCHEMA_VERSION + 1})`);
      await expect(PostgresContentStore.open(db.url)).rejects.toThrow(
        /newer than this worker knows.*upgrade the worker/,
      );
    } finally {
      await db.drop();
    }
  });

  it("brings a database of step 1 to the token streams' table, keeping what it holds", async () => {
    const db = await createTestDatabase();
    try {
      const store = await PostgresContentStore.open(db.url);
      await store.writeEntries('kept', [{ seq: 0, kind: 'user', hash: await store.put('task', 'kept') }]);
      await store.close();
      // As a worker before the token streams left it.
      await queryDatabase(
        db.url,
        'DROP FUNCTION durable_agents_append_stream; DROP TABLE durable_agents_stream; ' +
          'DELETE FROM durable_agents_schema WHERE version > 1',
      );
      const upgraded = await PostgresContentStore.open(db.url);
      try {
        expect((await upgraded.readLog('kept')).entries).toHaveLength(1);
        const call = { seq: 1, scheduledAt: 1, attempt: 1, model: 'anthropic/claude-sonnet-4-6' };
        await upgraded.appendTokens('kept', [{ ...call, type: 'start', at: 1 }]);
        expect((await upgraded.readTokens('kept', 0)).records).toMatchObject([{ type: 'start', seq: 1 }]);
      } finally {
        await upgraded.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('refuses a malformed URL with one line naming the expected form', async () => {
    for (const url of ['not a url', 'mysql://u:p@localhost/db', 'postgres://']) {
      const error = await openStore(storeConfig({ DURABLE_AGENTS_STORE_URL: url })).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(error?.message).toMatch(/DURABLE_AGENTS_STORE_URL .*postgres:\/\/USER:PASSWORD@HOST:5432\/DATABASE/);
      expect(error?.message).not.toContain('\n');
    }
  });

  it('stops a worker at start with one line for a wrong password or an unreachable database', async () => {
    const { address } = await testConnection();
    const good = new URL(testPostgresUrl());
    const wrong = new URL(good.toString());
    wrong.password = 'not-the-password';
    const closed = await startTcpProxy(1);
    const unreachable = new URL(good.toString());
    unreachable.port = String(closed.port);
    await closed.cut();
    const cases: [URL, RegExp][] = [
      [wrong, /password authentication failed/],
      [unreachable, /ECONNREFUSED/],
    ];
    for (const [url, cause] of cases) {
      const cli = await runCli(['worker', '--task-queue', `bad-store-${crypto.randomUUID()}`], {
        env: {
          TEMPORAL_ADDRESS: address,
          DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
          DURABLE_AGENTS_STORE_URL: url.toString(),
        },
      });
      expect(cli.code).toBe(1);
      const lines = cli.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^durable-agents: Cannot open the PostgreSQL store at postgres:\/\/postgres:\*\*\*@/);
      expect(lines[0]).toMatch(cause);
      expect(cli.stderr).not.toContain(good.password);
      expect(cli.stdout).not.toContain('Worker polling');
    }
  }, 60_000);

  it('retries a model call while the database is away and finishes the run when it is back', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(Number(new URL(db.url).port));
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxy.port);
    const fake = await startFakeProvider();
    const config = workerConfig({ file: null, env: fakeProviderEnv(fake) });
    const store = await PostgresContentStore.open(viaProxy.toString());
    const registry = createToolRegistry();
    try {
      let outage: Promise<void> | undefined;
      fake.respond(async () => {
        // The first answer arrives while the database is unreachable: storing it fails.
        outage ??= proxy.cut().then(() => new Promise<void>((r) => setTimeout(r, 2_000)).then(() => proxy.restore()));
        return reply.text('Stored once the database was back.');
      });
      const id = `db-outage-${crypto.randomUUID()}`;
      const result = await withWorker({ config, store, tools: registry }, async ({ client, taskQueue }) => {
        const agents = new AgentClient(client, taskQueue);
        await agents.start({ id, task: 'Answer once.', model: { primary: PRIMARY, attemptsPerProvider: 5 } });
        return agents.result(id);
      });
      await outage;
      expect(result).toMatchObject({ status: 'completed', finalText: 'Stored once the database was back.' });
      const { client } = await testConnection();
      const history = await client.workflow.getHandle(id).fetchHistory();
      const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
      const modelCall = started.find((e) => (e.activityTaskStartedEventAttributes!.attempt ?? 1) > 1);
      expect(modelCall?.activityTaskStartedEventAttributes?.lastFailure).toMatchObject({
        message: expect.stringContaining('the content store failed'),
        applicationFailureInfo: { type: 'AgentStoreUnavailable', nonRetryable: false },
      });
      expect((await store.readLog(id)).entries.map((e) => e.kind)).toEqual(['user', 'assistant']);
    } finally {
      await store.close();
      await registry.close();
      await fake.close();
      await proxy.close();
      await db.drop();
    }
  }, 60_000);
});
