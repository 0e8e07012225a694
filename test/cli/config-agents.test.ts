/**
 * The config file's sub-agents under every run: one that asks for a tool a run may not use is not
 * offered to that run (with a notice), and a declaration the file gets wrong is refused alike by the
 * CLI and the worker.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

/** A config file holding `agents`, in a folder of its own. */
function configWith(agents: object): { file: string; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-agents-'));
  const file = path.join(dir, 'durable-agents.json');
  fs.writeFileSync(file, JSON.stringify({ agents }));
  return { file, dir };
}

/** The names of the tools a model request offered. */
const offered = (request: { body: unknown }): string[] =>
  ((request.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);

describe("the config file's sub-agents", () => {
  const fx = useAgentFixture();

  it('a run with narrower --tools gets the sub-agents that fit them, and is told which it does not', async () => {
    const { file, dir } = configWith({
      counter: { description: 'Adds numbers for the parent.', tools: ['add'] },
      scribe: { description: 'Writes notes for the parent.', tools: ['add', 'write_note'] },
    });
    fx.fake.script(reply.text('Done.'));
    try {
      await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_CONFIG: file });
        const id = `narrow-${crypto.randomUUID()}`;
        const printed = await cli.run('run', '--id', id, '--model', PRIMARY, '--tools', 'add', 'Add 1 and 2.');
        expect(printed).toContain(`${id}: completed`);
        expect(cli.notes()).toContain(
          'sub-agent "scribe" is not offered to this run: it asks for "write_note", which this ' +
            'run may not use (its tools: add)\n',
        );
        expect(cli.notes()).not.toContain('"counter"');
        expect(offered(fx.fake.requests[0])).toEqual(expect.arrayContaining(['add', 'counter']));
        expect(offered(fx.fake.requests[0])).not.toContain('scribe');
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('one without a description is refused with the same line by run and by the worker', async () => {
    const { address, namespace } = await testConnection();
    const { file, dir } = configWith({ scribe: { tools: ['write_note'] } });
    const line =
      `Invalid LLM config in ${file}: sub-agent "scribe": a description is required: the model reads it to ` +
      'decide when to delegate';
    const env = {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_CONFIG: file,
      DURABLE_AGENTS_TASK_QUEUE: `nobody-${crypto.randomUUID()}`,
    };
    try {
      const run = await runCli(['run', '--model', PRIMARY, '--detach', 'Write a note.'], { env });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: `durable-agents: ${line}\n` });
      const worker = await runCli(['worker'], { env });
      expect(worker.code).not.toBe(0);
      expect(worker.stderr).toContain(line);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
