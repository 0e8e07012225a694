/**
 * An application's own test of its agent, as a user writes it: a test environment (a Temporal dev
 * server, the project's worker, the fake LLM provider), a run to its answer, and its history
 * recorded and replayed against the workflow code, the check to run again before each deploy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createTestEnvironment,
  recordHistory,
  replayHistories,
  reply,
  type TestEnvironment,
} from 'durable-agents/testing';

const MODEL = 'anthropic/claude-sonnet-4-6';

describe('an agent under test', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await createTestEnvironment();
  }, 120_000);
  afterAll(() => env?.teardown());

  it('answers with the scripted reply, and its history replays against the workflow code', async () => {
    env.fake.script(reply.text('Paris.'));
    const id = await env.agentClient.start({ task: 'What is the capital of France?', model: MODEL });
    const result = await env.agentClient.result(id);
    expect(result).toMatchObject({ status: 'completed', finalText: 'Paris.' });

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'histories-')), `${id}.json`);
    await recordHistory(env.client, id, file);
    const [outcome] = await replayHistories([file]);
    expect(outcome).toMatchObject({ status: 'ok', workflowType: 'reactAgentWorkflow' });
  });
});
