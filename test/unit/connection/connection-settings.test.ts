import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionSettingsFromEnv, parseAddress } from '../../../src/connection/connection-settings';

function tempFile(name: string, content: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'da-conn-')), name);
  fs.writeFileSync(file, content);
  return file;
}

describe('connection settings from Temporal environment variables', () => {
  it('defaults to a local server, the default namespace and the project task queue', () => {
    expect(connectionSettingsFromEnv({})).toEqual({
      address: 'localhost:7233',
      addressFromEnv: false,
      namespace: 'default',
      taskQueue: 'durable-agents',
      tls: undefined,
      apiKey: undefined,
    });
  });

  it('reads address, namespace and task queue', () => {
    const settings = connectionSettingsFromEnv({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'agents',
      DURABLE_AGENTS_TASK_QUEUE: 'q',
    });
    expect(settings).toMatchObject({
      address: 'temporal:7233',
      addressFromEnv: true,
      namespace: 'agents',
      taskQueue: 'q',
    });
  });

  it('loads the mTLS client certificate pair, CA and server name from files', () => {
    const settings = connectionSettingsFromEnv({
      TEMPORAL_TLS_CERT: tempFile('client.pem', 'CERT'),
      TEMPORAL_TLS_KEY: tempFile('client.key', 'KEY'),
      TEMPORAL_TLS_CA: tempFile('ca.pem', 'CA'),
      TEMPORAL_TLS_SERVER_NAME: 'ns.tmprl.cloud',
    });
    expect(settings.tls).toEqual({
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
      serverRootCACertificate: Buffer.from('CA'),
      serverNameOverride: 'ns.tmprl.cloud',
    });
  });

  it('turns TLS on for a Temporal Cloud API key unless TEMPORAL_TLS=false', () => {
    expect(connectionSettingsFromEnv({ TEMPORAL_API_KEY: 'k' })).toMatchObject({ apiKey: 'k', tls: {} });
    expect(connectionSettingsFromEnv({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).tls).toBeUndefined();
  });

  it('names the variable and the path of an unreadable certificate', () => {
    expect(() =>
      connectionSettingsFromEnv({ TEMPORAL_TLS_CERT: '/nonexistent/c.pem', TEMPORAL_TLS_KEY: '/nonexistent/k.pem' }),
    ).toThrow(/^TEMPORAL_TLS_CERT=\/nonexistent\/c\.pem cannot be read \(.+\): fix the path\.$/);
  });
});

describe('a Temporal address', () => {
  it('reads host and port of an address, IPv6 in brackets too, the port 7233 by default', () => {
    expect(parseAddress('localhost:7233')).toEqual({ host: 'localhost', port: 7233 });
    expect(parseAddress('[::1]:7234')).toEqual({ host: '::1', port: 7234 });
    expect(parseAddress('ns.tmprl.cloud')).toEqual({ host: 'ns.tmprl.cloud', port: 7233 });
    expect(() => parseAddress(':7233')).toThrow('Invalid Temporal address ":7233"');
  });
});
