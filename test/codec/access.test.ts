import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startCodecServer } from '../../src/codec';
import { SetupError } from '../../src/connection/setup-error';
import { freePort } from '../../src/server/ports';
import { FileContentStore } from '../../src/store';
import { runCli } from '../kit/cli';
import { jsonPayload, post } from '../kit/codec';

const TOKEN = 'codec-test-token-0123456789';
const UI = 'http://localhost:8233';

describe('codec server access', () => {
  let dir: string;
  let store: FileContentStore;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-access-'));
    store = new FileContentStore(dir);
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('takes a bearer token: missing or wrong is 401, right is 200; a preflight needs none', async () => {
    const server = await startCodecServer({ port: 0, store, token: TOKEN });
    try {
      const body = { payloads: [jsonPayload({ a: 1 })] };
      const missing = await post(`${server.url}/decode`, body);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
      expect(missing.text).toMatch(/^no bearer token: send Authorization: Bearer <token>.*\n$/);
      const wrong = await post(`${server.url}/decode`, body, { Authorization: `Bearer ${TOKEN}x` });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toMatch(/^a wrong bearer token: /);
      expect((await post(`${server.url}/decode`, body, { Authorization: TOKEN })).status).toBe(401);
      const right = await post(`${server.url}/decode`, body, { Authorization: `Bearer ${TOKEN}` });
      expect(right.status).toBe(200);
      expect(right.payloads).toEqual(body.payloads);
      const preflight = await fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.status).toBe(204);
    } finally {
      await server.close();
    }
  });

  it('answers on loopback only requests addressed to this machine (no DNS rebinding)', async () => {
    const server = await startCodecServer({ port: 0, store });
    try {
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const request = http.request(`${server.url}/decode`, { method: 'POST', headers: { Host: host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          request.on('error', reject);
          request.end('{}');
        });
      expect(await status('attacker.example:8081')).toBe(403);
      expect(await status(`localhost:${server.port}`)).toBe(200);
      expect(await status(`[::1]:${server.port}`)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses to bind beyond localhost without a token, and a token too short to be one', async () => {
    await expect(startCodecServer({ port: 0, host: '0.0.0.0', store })).rejects.toThrow(
      new SetupError(
        'Refusing to serve message bodies on 0.0.0.0 without a bearer token: set DURABLE_AGENTS_CODEC_TOKEN (or --token), or bind to 127.0.0.1.',
      ),
    );
    await expect(startCodecServer({ port: 0, store, token: 'short' })).rejects.toThrow(
      'The codec server token must be at least 16 characters without spaces.',
    );
    await expect(startCodecServer({ port: 0, store, origins: ['localhost:8233'] })).rejects.toThrow(
      '"localhost:8233" is not an origin: only http and https UIs call a codec server',
    );
    const cli = await runCli(['codec-server', '--bind', '0.0.0.0', '--port', String(await freePort())], {
      env: { DURABLE_AGENTS_CODEC_TOKEN: '' },
    });
    // A flag the command cannot serve with is a usage error, like every refused flag.
    expect(cli.code).toBe(2);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toBe(
      'durable-agents: Refusing to serve message bodies on 0.0.0.0 without a bearer token: set DURABLE_AGENTS_CODEC_TOKEN (or --token), or bind to 127.0.0.1.\n',
    );
    const exposed = await startCodecServer({ port: 0, host: '0.0.0.0', store, token: TOKEN });
    await exposed.close();
  });
});
