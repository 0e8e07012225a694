import crypto from 'node:crypto';
import net from 'node:net';
import { FREE_PORT_RANGE, freePort } from '../../../src/server/ports';

/** Listens on `port` until the returned function closes it. */
async function occupy(port: number): Promise<() => Promise<void>> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () => new Promise((resolve) => server.close(() => resolve()));
}

describe('freePort', () => {
  it('gives ports below the ephemeral range that a server can listen on, rarely the same twice', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(FREE_PORT_RANGE.from);
      expect(port).toBeLessThan(FREE_PORT_RANGE.to);
    }
    expect(new Set(ports).size).toBeGreaterThan(15);
    const close = await occupy(ports[0]);
    await close();
  });

  it('passes over a port something listens on', async () => {
    const taken = await freePort();
    const close = await occupy(taken);
    const free = taken + 1 < FREE_PORT_RANGE.to ? taken + 1 : taken - 1;
    // The random choice falls on the taken port first, then on the next one.
    const choice = jest.spyOn(crypto, 'randomInt') as unknown as jest.SpyInstance<number, []>;
    choice.mockReturnValueOnce(taken).mockReturnValueOnce(free);
    try {
      expect(await freePort()).toBe(free);
      expect(choice).toHaveBeenCalledTimes(2);
    } finally {
      choice.mockRestore();
      await close();
    }
  });
});
