import crypto from 'node:crypto';
import net from 'node:net';
import { tcpConnect } from '../connection/connection-settings';

/**
 * Where {@link freePort} looks: below Linux's default range of ephemeral ports (32768–60999), from
 * which the OS gives outgoing connections their local port, so that no connection takes the port
 * between the check and the server's bind (or while a server restarts on it).
 */
export const FREE_PORT_RANGE = { from: 20_000, to: 32_000 } as const;

/** Whether a server can listen on `host:port` now (it is closed again at once). */
function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A free TCP port the OS chooses (from its ephemeral range). */
function osChosenPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free port'));
      });
    });
  });
}

/**
 * A free TCP port on `host`: a random one of {@link FREE_PORT_RANGE} that nothing listens on, so
 * that two callers rarely get the same; the OS's choice when 50 tries found none.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = crypto.randomInt(FREE_PORT_RANGE.from, FREE_PORT_RANGE.to);
    if (await canListen(host, port)) return port;
  }
  return osChosenPort(host);
}

/** True when something accepts TCP connections on `host:port` within `timeoutMs`. */
export function isListening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return tcpConnect(host, port, timeoutMs).then(
    () => true,
    () => false,
  );
}
