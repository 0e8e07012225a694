/**
 * A TCP proxy on loopback that a test can cut (every connection dropped, new ones refused) and
 * restore; with `answerAfterMs` it accepts at once and passes bytes on only after that long (a
 * server that is slow but alive).
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every open connection and stops listening: clients see the server go away. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
  options: { answerAfterMs?: number } = {},
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    client.pause();
    const track = (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    };
    track(client);
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = net.connect(targetPort, targetHost);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.resume();
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    }, options.answerAfterMs ?? 0);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: () => listen(port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}
