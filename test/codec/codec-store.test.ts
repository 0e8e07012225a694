/**
 * The store a codec server reads when none is given: the one the worker's environment selects
 * (the PostgreSQL store of DURABLE_AGENTS_STORE_URL on the jest run's real server, else the file
 * store of DURABLE_AGENTS_STORE_DIR), opened by the server and closed when it stops.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCodecServer } from '../../src/codec';
import { storeConfig } from '../../src/worker/worker-config';
import { SetupError } from '../../src/connection/setup-error';
import { FileContentStore, PostgresContentStore } from '../../src/store';
import { createTestDatabase, queryDatabase } from '../kit/postgres';
import { jsonPayload, post, valueOf } from '../kit/codec';

const body = { role: 'summary', text: 'Earlier: the user asked for a sum.', timestamp: 1 };

/** Connections the store pools hold to the database (they name themselves `durable-agents`). */
async function storeConnections(url: string, name: string): Promise<number> {
  const rows = await queryDatabase<{ n: number }>(
    url,
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'durable-agents'",
    [name],
  );
  return rows[0].n;
}

describe('codec server store', () => {
  it('reads the PostgreSQL store of DURABLE_AGENTS_STORE_URL and closes it when it stops', async () => {
    const db = await createTestDatabase();
    try {
      const writer = await PostgresContentStore.open(db.url);
      const hash = await writer.put(body, 'run-1');
      await writer.close();
      const server = await startCodecServer({ port: 0, store: storeConfig({ DURABLE_AGENTS_STORE_URL: db.url }) });
      let closed = false;
      try {
        expect(server.store).toMatch(/^the PostgreSQL store at postgres/);
        const decoded = await post(`${server.url}/decode`, { payloads: [jsonPayload({ summaryHash: hash })] });
        expect(decoded.status).toBe(200);
        expect(valueOf(decoded.payloads[0])).toEqual({ summaryBody: body, summaryHash: hash });
        expect(await storeConnections(db.url, db.name)).toBeGreaterThan(0);
        await server.close();
        closed = true;
        expect(await storeConnections(db.url, db.name)).toBe(0);
      } finally {
        if (!closed) await server.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('reads the file store of DURABLE_AGENTS_STORE_DIR relative to its cwd', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-store-'));
    try {
      const hash = await new FileContentStore(path.join(dir, 'bodies-here')).put(body);
      const server = await startCodecServer({
        port: 0,
        store: storeConfig({ DURABLE_AGENTS_STORE_DIR: 'bodies-here' }, dir),
      });
      try {
        expect(server.store).toBe(`the file store in ${path.join(dir, 'bodies-here')}`);
        const decoded = await post(`${server.url}/decode`, { payloads: [jsonPayload({ summaryHash: hash })] });
        expect(valueOf(decoded.payloads[0]).summaryBody).toEqual(body);
      } finally {
        await server.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a store URL it cannot use, with one line naming the expected form', async () => {
    const started = startCodecServer({
      port: 0,
      store: storeConfig({ DURABLE_AGENTS_STORE_URL: 'mysql://u:p@localhost/db' }),
    });
    const error = await started.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(SetupError);
    expect((error as Error).message).toMatch(/^DURABLE_AGENTS_STORE_URL must start with postgres:\/\/.*DATABASE$/);
  });
});
