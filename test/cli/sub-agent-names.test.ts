/** A sub-agent named like a built-in tool is refused when the run starts, from the config file and from --agents. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../kit/cli';
import { testConnection } from '../kit/temporal';
import { PRIMARY } from '../agent/agent-kit';

describe('sub-agent names', () => {
  it('refuses one named like a built-in tool in one line with exit code 2, from the config file and from --agents', async () => {
    const { address, namespace, client } = await testConnection();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-names-'));
    const agents = { fs_read: { description: 'Reads files for the parent.' } };
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ agents }));
    fs.writeFileSync(path.join(dir, 'agents.json'), JSON.stringify(agents));
    const env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_TASK_QUEUE: `nobody-${crypto.randomUUID()}`,
    };
    const line =
      'durable-agents: invalid run options: sub-agent "fs_read" is named like the worker\'s built-in tool ' +
      'fs_read: give the sub-agent another name\n';
    try {
      for (const [how, flags, extraEnv] of [
        ['config file', [], { DURABLE_AGENTS_CONFIG: path.join(dir, 'config.json') }],
        ['--agents', ['--agents', path.join(dir, 'agents.json')], {}],
      ] as const) {
        const id = `named-${crypto.randomUUID()}`;
        const r = await runCli(['run', '--id', id, '--model', PRIMARY, '--detach', ...flags, 'Read a.txt.'], {
          env: { ...env, ...extraEnv },
        });
        expect({ how, code: r.code, stderr: r.stderr }).toEqual({ how, code: 2, stderr: line });
        await expect(client.workflow.getHandle(id).describe()).rejects.toThrow();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
