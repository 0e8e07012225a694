/**
 * The CLI reads its config file once per process: `run` checks the model specs, warns about unknown
 * models, takes the file's sub-agents and MCP servers and gives the client the file's model entries,
 * all from one read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply } from '../../src/testing/fake-provider';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';

describe('the CLI and its config file', () => {
  const fx = useAgentFixture();

  it('reads the file once for a run, however many of its parts the run needs', async () => {
    fx.fake.respond(() => reply.text('Done.'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-once-'));
    const config = path.join(dir, 'durable-agents.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        agents: { helper: { description: 'Helps.' } },
        models: [{ provider: 'anthropic', model: 'house-model', contextWindow: 100_000, maxOutputTokens: 4_000 }],
      }),
    );
    const read = jest.spyOn(fs, 'readFileSync');
    try {
      await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_CONFIG: config });
        await cli.run('run', '--model', PRIMARY, '--fallback', 'openai/gpt-5-mini', '--detach', 'Do it.');
      });
      const reads = read.mock.calls.filter(([file]) => path.resolve(String(file)) === config);
      expect(reads).toHaveLength(1);
    } finally {
      read.mockRestore();
    }
  });
});
