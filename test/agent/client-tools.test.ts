/**
 * Client tools a run declares itself: offered to the model, answered by the calling application,
 * never registered on or run by a worker; refused when malformed or named like a worker's tool.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunClientTool } from '../../src/contracts/tool-catalog';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { PRIMARY, anthropicMessages, useAgentFixture, waitForState } from './agent-kit';

const ASK_USER: RunClientTool = {
  name: 'ask_user',
  description: 'Asks the person at the keyboard a question and returns their answer.',
  parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
};

describe("a run's own client tools", () => {
  const fx = useAgentFixture();

  it('offers a declared tool to the model and gives it the answer the application submits', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'ask_user', arguments: { question: 'Which city?' }, id: 'toolu_ask' }]),
      reply.text('You chose Lyon.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Ask me for a city.', model: PRIMARY, tools: { clientTools: [ASK_USER] } });
      const waiting = await waitForState(agents, id, (s) => s.status === 'awaiting_client_tools');
      expect(waiting.clientToolRequests).toEqual([
        { toolCallId: 'toolu_ask', tool: 'ask_user', args: { question: 'Which city?' } },
      ]);
      await agents.submitToolResult(id, 'toolu_ask', 'Lyon');
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'You chose Lyon.' });
    const [first, second] = fx.fake.requests;
    expect(first.body.tools).toEqual(
      expect.arrayContaining([
        { name: 'ask_user', description: ASK_USER.description, input_schema: ASK_USER.parameters },
      ]),
    );
    const answered = anthropicMessages(second.body)
      .flatMap((m) => m.blocks)
      .find((b) => b.type === 'tool_result');
    expect(JSON.stringify(answered?.content)).toContain('Lyon');
    // The worker ran nothing for it.
    expect(fx.calls).toEqual([]);
  });

  it('takes the declaration from a file on the command line, and the answer from tool-result', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'ask_user', arguments: { question: 'Tea or coffee?' }, id: 'toolu_drink' }]),
      reply.text('Tea it is.'),
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-')), 'tools.json');
    fs.writeFileSync(file, JSON.stringify([ASK_USER]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = await cli.run('run', '--model', PRIMARY, '--client-tools', file, '--detach', 'Ask me.');
      await waitForState(fx.agents(client, taskQueue), id, (s) => s.status === 'awaiting_client_tools');
      await cli.run('tool-result', id, 'toolu_drink', '"tea"');
      expect(await cli.run('result', id)).toContain('Tea it is.');
    });
  });

  it('fails a run whose client tool is named like a worker tool, saying which', async () => {
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add.',
        model: PRIMARY,
        tools: { clientTools: [{ ...ASK_USER, name: 'add' }] },
      });
      return agents.result(id);
    });
    expect(result).toMatchObject({
      status: 'failed',
      error: {
        type: 'ClientToolClash',
        message: expect.stringContaining('declares the client tool "add", but this worker has a tool of that name'),
      },
    });
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('refuses a malformed declaration before the run starts, one line per problem', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const start = (clientTools: unknown[]) =>
        agents.start({ task: 't', model: PRIMARY, tools: { clientTools: clientTools as RunClientTool[] } });
      await expect(start([{ ...ASK_USER, name: 'ask user' }])).rejects.toThrow(
        'clientTools[0]: name must match ^[a-zA-Z0-9_-]{1,64}$, got "ask user"',
      );
      await expect(start([ASK_USER, ASK_USER])).rejects.toThrow(
        'clientTools[1]: the tool "ask_user" is declared twice',
      );
      await expect(start([{ ...ASK_USER, description: '' }])).rejects.toThrow('(ask_user): a description is required');
      await expect(start([{ ...ASK_USER, parameters: { type: 'string' } }])).rejects.toThrow(
        '(ask_user): parameters must be a JSON Schema with "type": "object"',
      );
    });
  });
});
