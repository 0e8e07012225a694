/**
 * Temporal's own server keeps everything in PostgreSQL: SIGKILLed while a run's model call is in
 * flight and started again, it has the run, the worker process carries on, and the run finishes.
 * The test kills a server of its own (its own databases beside the tier's), so the other files of
 * the tier never see it go.
 */
import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import { connectClient, connectionSettingsFromEnv } from '../../src/connection/connection-settings';
import { serves } from '../../src/server/dev-server';
import { reply } from '../../src/testing/fake-provider';
import { testPostgresUrl } from '../kit/postgres';
import { startRealServer, startServer, stopRealServer, stopServer } from '../kit/real-temporal';
import { useWorkerHosts } from '../kit/worker-process';
import { Latch, PRIMARY, waitFor } from '../agent/agent-kit';

describe('the Temporal server killed mid-run', () => {
  const hosts = useWorkerHosts('server-kill');

  it('a run whose model call is in flight when the server is SIGKILLed finishes once the server is back', async () => {
    const server = await startRealServer(testPostgresUrl(), `temporal_kill_${crypto.randomBytes(4).toString('hex')}`);
    const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' };
    const client = await connectClient(connectionSettingsFromEnv(env));
    try {
      const taskQueue = `server-kill-${crypto.randomUUID()}`;
      await hosts.start(taskQueue, env);
      const held = new Latch();
      hosts.fake.respond(async () => {
        await held.opened;
        return reply.text('Survived the restart.');
      });
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'Say you survived.', model: PRIMARY });
      await waitFor(() => hosts.fake.requests.length > 0, 'the model call to reach the provider');

      await stopServer(server.stateDir, 'SIGKILL');
      expect(await serves(server.address)).toBe(false);
      await startServer(server.stateDir);
      held.open();

      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Survived the restart.' });
      expect(hosts.fake.requests.filter((r) => r.status === 200)).toHaveLength(1);
    } finally {
      await client.connection.close();
      await stopRealServer(server);
    }
  });
});
