import net from 'node:net';
import { connectionSettingsFromEnv } from '../../src/connection/connection-settings';
import { freePort, isListening } from '../../src/server/ports';
import { runUiUrl, uiBaseUrl, webUiOf } from '../../src/server/web-ui';
import { ensureTemporal } from '../../src/server/launcher';
import { testConnection } from '../kit/temporal';

describe('Web UI links', () => {
  it('name a UI on this machine localhost, whichever loopback address it binds', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::'])
      expect(uiBaseUrl(host, 8233)).toBe('http://localhost:8233');
    expect(uiBaseUrl('10.0.0.5', 8233)).toBe('http://10.0.0.5:8233');
    expect(uiBaseUrl('fd00::5', 8233)).toBe('http://[fd00::5]:8233');
  });

  it('open a tab of a run under its run id, and the run itself without one', () => {
    expect(runUiUrl('http://localhost:8233/', 'default', 'add-2-3f', 'r1', 'user-metadata')).toBe(
      'http://localhost:8233/namespaces/default/workflows/add-2-3f/r1/user-metadata',
    );
    expect(runUiUrl('http://localhost:8233', 'ns', 'a/b')).toBe('http://localhost:8233/namespaces/ns/workflows/a%2Fb');
  });

  it('find a dev server’s UI beside a front end addressed as 127.0.0.1 and name it localhost', async () => {
    let uiPort = await freePort();
    while (uiPort < 2000) uiPort = await freePort();
    const ui = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => ui.listen(uiPort, '127.0.0.1', resolve));
    try {
      const settings = { ...connectionSettingsFromEnv({}), address: `127.0.0.1:${uiPort - 1000}` };
      expect(await webUiOf(settings.address, {})).toBe(`http://localhost:${uiPort}`);
      expect(await webUiOf(settings.address, { TEMPORAL_UI_URL: 'https://ui.example' })).toBe('https://ui.example');
    } finally {
      await new Promise((resolve) => ui.close(resolve));
    }
  });

  it('give the demo against TEMPORAL_ADDRESS the UI beside that server, as run finds it', async () => {
    const { address, namespace } = await testConnection();
    const [host, port] = [
      address.slice(0, address.lastIndexOf(':')),
      Number(address.slice(address.lastIndexOf(':') + 1)),
    ];
    const ui = net.createServer((socket) => socket.destroy());
    const own = !(await isListening(host, port + 1000));
    if (own) await new Promise<void>((resolve) => ui.listen(port + 1000, host, resolve));
    try {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
      const server = await ensureTemporal({ env });
      expect(server).toMatchObject({ origin: 'TEMPORAL_ADDRESS', uiUrl: uiBaseUrl(host, port + 1000) });
      expect((await ensureTemporal({ env: { ...env, TEMPORAL_UI_URL: 'https://ui.example' } })).uiUrl).toBe(
        'https://ui.example',
      );
    } finally {
      if (own) await new Promise((resolve) => ui.close(resolve));
    }
  });
});
