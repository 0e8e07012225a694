import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { ToolSelection } from '../../../src/contracts/tool-catalog';
import { createToolRegistry } from '../../../src/tools';
import { blockedAddressReason } from '../../../src/tools/builtin/ssrf';

/** A TCP listener on loopback that counts every connection made to it. */
async function countingListener(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nLEAKED');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function httpServer(handler: http.RequestListener): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('http_fetch SSRF guard', () => {
  let target: Awaited<ReturnType<typeof countingListener>>;
  let site: Awaited<ReturnType<typeof httpServer>>;
  const selection: ToolSelection = {};

  beforeAll(async () => {
    target = await countingListener();
    // A page server the operator explicitly trusts; it redirects into the internal target.
    site = await httpServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` });
        res.end();
      } else if (req.url === '/redirect-metadata') {
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (req.url === '/redirect-relative') {
        res.writeHead(302, { location: '/page' });
        res.end();
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('z'.repeat(50_000));
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          '<html><head><title>T</title><script>evil()</script></head><body><h1>Heading</h1><p>Some <b>bold</b> text.</p></body></html>',
        );
      }
    });
  });
  afterAll(async () => {
    await target.close();
    await site.close();
  });

  const registry = () =>
    createToolRegistry({
      builtins: {
        files: false,
        webSearch: false,
        fetch: { policy: { allow: [{ address: '127.0.0.1', port: site.port }] }, limits: { maxBytes: 10_000 } },
      },
    });
  const fetchUrl = (url: string) =>
    registry().execute({ runId: 'r', toolCallId: 'c', name: 'http_fetch', args: { url }, selection });

  it('fetches an allowed page, follows a relative redirect and extracts readable text from HTML', async () => {
    const out = await fetchUrl(`http://127.0.0.1:${site.port}/redirect-relative`);
    expect(out.isError).toBe(false);
    expect(out.content).toContain(`URL: http://127.0.0.1:${site.port}/page`);
    expect(out.content).toMatch(/HEADING\s+Some bold text\./);
    expect(out.content).not.toContain('evil()');
  });

  it('gives up on a server that never answers, after the time cap', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const registry = createToolRegistry({
        builtins: {
          files: false,
          webSearch: false,
          fetch: { policy: { allow: [{ address: '127.0.0.1', port }] }, limits: { timeoutMs: 300 } },
        },
      });
      const out = await registry.execute({
        runId: 'r',
        toolCallId: 'c',
        name: 'http_fetch',
        args: { url: `http://127.0.0.1:${port}/` },
        selection,
      });
      expect(out).toMatchObject({ isError: true });
      expect(out.content).toBe(
        `Tool "http_fetch" failed: No complete response from http://127.0.0.1:${port} within 300 ms.`,
      );
    } finally {
      silent.close();
    }
  });

  it('caps the body size', async () => {
    const out = await fetchUrl(`http://127.0.0.1:${site.port}/big`);
    expect(out.content).toContain('body truncated at 10000 bytes');
    expect(out.content.match(/z/g)?.length).toBe(10_000);
  });

  const refused = (port: () => number): [string, () => string][] => [
    ['loopback', () => `http://127.0.0.1:${port()}/`],
    ['loopback as 127.1', () => `http://127.1:${port()}/`],
    ['loopback as a decimal number', () => `http://2130706433:${port()}/`],
    ['loopback in hex', () => `http://0x7f.0.0.1:${port()}/`],
    ['loopback in octal', () => `http://0177.0.0.1:${port()}/`],
    ['loopback as IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${port()}/`],
    ['IPv6 loopback', () => `http://[::1]:${port()}/`],
    ['localhost by name (checked at connect time)', () => `http://localhost:${port()}/`],
    ['the unspecified address', () => `http://0.0.0.0:${port()}/`],
  ];

  it.each(refused(() => target.port))('refuses %s and never connects', async (_label, url) => {
    const before = target.connections();
    const out = await fetchUrl(url());
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/Refused to connect/);
    expect(out.content).not.toContain('LEAKED');
    expect(target.connections()).toBe(before);
  });

  const elsewhere: [string, string][] = [
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a 10/8 private address', 'http://10.0.0.1/'],
    ['a 172.16/12 private address', 'http://172.16.5.4/'],
    ['a 192.168/16 private address', 'http://192.168.1.1/'],
    ['a carrier-grade NAT address', 'http://100.64.0.1/'],
    ['an IPv6 unique-local address', 'http://[fd00::1]/'],
    ['an IPv6 link-local address', 'http://[fe80::1]/'],
    ['the Temporal frontend port on a public address', 'http://93.184.216.34:7233/'],
    ['the Temporal UI port on a public address', 'http://93.184.216.34:8233/'],
    ['the Temporal frontend port on localhost', 'http://localhost:7233/'],
    ['a non-http scheme', 'file:///etc/passwd'],
    ['credentials in the URL', 'http://user:pw@93.184.216.34/'],
  ];

  it.each(elsewhere)('refuses %s', async (_label, url) => {
    const out = await fetchUrl(url);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/Refused to connect|Only http and https|credentials/);
  });

  it('refuses a redirect to an internal address without connecting to it', async () => {
    const before = target.connections();
    const out = await fetchUrl(`http://127.0.0.1:${site.port}/redirect`);
    expect(out).toMatchObject({ isError: true });
    expect(out.content).toMatch(/Refused to connect: 127\.0\.0\.1 is a loopback address/);
    expect(target.connections()).toBe(before);
    const metadata = await fetchUrl(`http://127.0.0.1:${site.port}/redirect-metadata`);
    expect(metadata.content).toMatch(/169\.254\.169\.254 is a linkLocal address/);
  });

  it('classifies addresses by range, IPv4-mapped IPv6 by the IPv4 it carries', () => {
    expect(blockedAddressReason('93.184.216.34')).toBeUndefined();
    expect(blockedAddressReason('2606:4700::1111')).toBeUndefined();
    expect(blockedAddressReason('::ffff:10.1.2.3')).toMatch(/private/);
    expect(blockedAddressReason('::ffff:8.8.8.8')).toBeUndefined();
  });
});
