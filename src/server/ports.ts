import net from 'node:net';

/** Asks the OS for a free TCP port on localhost. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
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

/** True when something accepts TCP connections on `host:port` within `timeoutMs`. */
export async function isListening(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Splits `host:port` (IPv6 in brackets allowed); the port defaults to Temporal's 7233. */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(address.trim());
  if (!match || !match[1])
    throw new Error(`Invalid Temporal address "${address}": expected host:port, e.g. localhost:7233`);
  return { host: match[1], port: match[2] ? Number(match[2]) : 7233 };
}
