import http from 'node:http';
import net from 'node:net';
import { connectClient, connectionSettingsFromEnv, parseAddress } from '../../src/connection/connection-settings';
import { freePort } from '../../src/server/ports';
import { startTcpProxy } from '../kit/tcp-proxy';
import { testConnection } from '../kit/temporal';

describe('connecting a client', () => {
  const settings = (address: string) => ({ ...connectionSettingsFromEnv({}), address, addressFromEnv: true });

  it('refuses an address where nothing listens at once, saying so, instead of retrying until the timeout', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const started = Date.now();
    await expect(connectClient(settings(address))).rejects.toThrow(
      `Cannot reach the Temporal server at TEMPORAL_ADDRESS=${address} (connection refused)`,
    );
    // The gRPC channel alone retried for its whole 5 s timeout and then said "no answer in time".
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect(connectClient(settings('nowhere.invalid:7233'))).rejects.toThrow('(host not found)');
  });

  it('still connects to a server that accepts at once and answers seconds later', async () => {
    const { address } = await testConnection();
    const target = parseAddress(address);
    const slow = await startTcpProxy(target.port, target.host, { answerAfterMs: 2_000 });
    try {
      const client = await connectClient(settings(`127.0.0.1:${slow.port}`));
      await client.workflowService.getSystemInfo({});
      await client.connection.close();
    } finally {
      await slow.close();
    }
  });
});

describe('connecting a client to a server of another kind', () => {
  const settings = (address: string) => ({ ...connectionSettingsFromEnv({}), address, addressFromEnv: true });

  it('says an HTTP/1.1 server is not a Temporal frontend, and so is one that closes the connection unanswered', async () => {
    const web = http.createServer((_req, res) => res.end('a web page'));
    const closer = net.createServer((socket) => socket.destroy());
    await Promise.all([
      new Promise<void>((r) => web.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => closer.listen(0, '127.0.0.1', r)),
    ]);
    const portOf = (s: http.Server | net.Server) => (s.address() as net.AddressInfo).port;
    try {
      await expect(connectClient(settings(`127.0.0.1:${portOf(web)}`))).rejects.toThrow(
        `(it answers HTTP/1.1, not gRPC: port ${portOf(web)} is not a Temporal frontend (the Web UI's?))`,
      );
      await expect(connectClient(settings(`127.0.0.1:${portOf(closer)}`))).rejects.toThrow(
        `(it closed the connection without answering plain gRPC: is port ${portOf(closer)} a Temporal frontend, and without TLS?)`,
      );
    } finally {
      web.close();
      closer.close();
    }
  });
});
