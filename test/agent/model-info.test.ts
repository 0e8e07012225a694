/**
 * What the worker's config says about a model reaches the workflow's decisions: a model declared
 * only in the config file with a small context window is compacted before its window is passed,
 * whether it is the run's model from the start or one an operator switches to.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { reply, type FakeProvider, type RecordedRequest } from '../../src/testing/fake-provider';
import { estimateTextTokens } from '../../src/policy/token-estimate';
import { AgentClient } from '../../src/client';
import { switchModelSignal } from '../../src/contracts/agent-workflows';
import { REACT_FACTS } from '../../src/policy/kind-facts';
import { runSpec } from '../kit/run-spec';
import { CONFIG_PATH_ENV, complete } from '../../src/llm';
import { agentCli } from '../kit/agent-cli';
import { testConnection, withWorker } from '../kit/temporal';
import { useAgentFixture, waitFor, waitForState } from './agent-kit';

const WINDOW = 8_000;
const SMALL = 'local/small-8k';
const ROOMY = 'local/roomy';

/** A provider only the config file names, serving one small-window and one roomy model. */
const localModels = (fake: FakeProvider) => ({
  providers: { local: { api: 'anthropic' as const, baseUrl: fake.anthropicBaseUrl('/local'), apiKeyRequired: false } },
  models: [
    { provider: 'local', model: 'small-8k', contextWindow: WINDOW, maxOutputTokens: 1_024 },
    { provider: 'local', model: 'roomy', contextWindow: 200_000, maxOutputTokens: 1_024 },
  ],
});

const isSummary = (request: RecordedRequest): boolean =>
  JSON.stringify(request.body.system ?? '').includes('You compress');

/** The runtime's estimate of what a request sends: system prompt, messages and tools. */
const requestTokens = (request: RecordedRequest): number =>
  estimateTextTokens(JSON.stringify([request.body.system ?? '', request.body.messages, request.body.tools ?? []]));

/** Reads the report `reads` times, then answers; summaries get a short summary. */
function readingModel(fake: FakeProvider, reads: number): void {
  let turns = 0;
  fake.respond((request) => {
    if (isSummary(request)) return reply.text('Summary: the report was read; every line says all quiet.');
    turns += 1;
    return turns <= reads ? reply.toolCalls([{ name: 'read_report', arguments: {} }]) : reply.text('All quiet.');
  });
}

/** The CLI reads the config file the worker was given, so it knows the same providers. */
function cliEnv(fake: FakeProvider): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-model-info-'));
  const file = path.join(dir, 'durable-agents.json');
  fs.writeFileSync(file, JSON.stringify(localModels(fake)));
  return { [CONFIG_PATH_ENV]: file };
}

describe('model info from the worker config', () => {
  const fx = useAgentFixture({}, { llmConfig: localModels });

  /** `run --model MODEL` through the CLI, on a model that reads the report 4 times, then answers. */
  function readThroughCli(model: string): Promise<string> {
    readingModel(fx.fake, 4);
    return withWorker({ activities: fx.activities }, ({ client, taskQueue }) =>
      agentCli(client, taskQueue, cliEnv(fx.fake)).run(
        ...['run', '--model', model, '--tools', 'read_report', '--json', 'Read it 4 times.'],
      ),
    );
  }

  it('compacts a config-file model with an 8k window before its window is passed (run through the CLI)', async () => {
    const result = await readThroughCli(SMALL);
    expect(JSON.parse(result)).toMatchObject({ status: 'completed', finalText: 'All quiet.', model: SMALL });
    const calls = fx.fake.requests.filter((r) => !isSummary(r));
    expect(calls).toHaveLength(5);
    expect(fx.fake.requests.filter(isSummary).length).toBeGreaterThanOrEqual(1);
    for (const request of calls) expect(requestTokens(request)).toBeLessThan(WINDOW);
    expect(fx.fake.requests.every((r) => r.path === '/local/v1/messages' && r.status === 200)).toBe(true);
  });

  it('sends the same reads to a roomy config-file model uncompacted, past the small window', async () => {
    const result = await readThroughCli(ROOMY);
    expect(JSON.parse(result)).toMatchObject({ status: 'completed', finalText: 'All quiet.' });
    expect(fx.fake.requests.filter(isSummary)).toHaveLength(0);
    expect(Math.max(...fx.fake.requests.map(requestTokens))).toBeGreaterThan(WINDOW);
  });

  it('learns the window of a model an operator switches to from its first call, and compacts from then on', async () => {
    let turns = 0;
    fx.fake.respond((request) => {
      if (isSummary(request)) return reply.text('Summary: the report was read; every line says all quiet.');
      turns += 1;
      if (turns === 1) return reply.toolCalls([{ name: 'slow_step', arguments: { label: 'wait' } }]);
      return turns <= 5 ? reply.toolCalls([{ name: 'read_report', arguments: {} }]) : reply.text('All quiet.');
    });
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Wait, then read the report 4 times.', model: ROOMY });
      await waitFor(() => fx.calls.includes('slow_step:wait'), 'the slow step');
      await agents.switchModel(id, SMALL, 'smaller model');
      fx.latch.open();
      await waitForState(agents, id, (s) => s.status === 'completed');
    });
    const onSmall = fx.fake.requests.filter((r) => !isSummary(r) && r.body.model === 'small-8k');
    expect(onSmall).toHaveLength(5);
    expect(fx.fake.requests.filter(isSummary).length).toBeGreaterThanOrEqual(1);
    for (const request of onSmall) expect(requestTokens(request)).toBeLessThan(WINDOW);
  });
});

describe('the provider check before a run starts', () => {
  const fx = useAgentFixture({}, { llmConfig: localModels });

  it('refuses a model whose provider the workers do not know, in the words the worker uses', async () => {
    const { client } = await testConnection();
    const taskQueue = `never-polled-${process.pid}`;
    const agents = new AgentClient(client, taskQueue, { providers: Object.keys(fx.llm.providers) });
    const unknown =
      'Unknown provider "nowhere" in model spec "nowhere/model". Known providers: anthropic, local, minimax, openai, ' +
      'openai-compatible. Declare others under "providers" in the config file.';
    await expect(agents.start({ task: 't', model: 'nowhere/model' })).rejects.toThrow(
      `invalid run options: ${unknown}`,
    );
    await expect(agents.start({ task: 't', model: { primary: SMALL, fallbacks: ['nowhere/model'] } })).rejects.toThrow(
      unknown,
    );
    await expect(agents.switchModel('any-run', { provider: 'nowhere', model: 'model' })).rejects.toThrow(unknown);
    const worker = await complete({ model: 'nowhere/model', messages: [] }, { config: fx.llm }).catch((e: Error) => e);
    expect(worker).toMatchObject({
      message: `${unknown} This worker has no config file (its providers come from its environment, read when it started).`,
      type: 'LlmConfigError',
      nonRetryable: true,
    });
    expect((await client.workflow.count(`TaskQueue = '${taskQueue}'`)).count).toBe(0);
  });
});

describe('runs started as older clients started them', () => {
  const fx = useAgentFixture({}, { llmConfig: localModels });

  it('run with a config and a switch-model signal that name models by spec string', async () => {
    fx.fake.respond(() => reply.text('Answered.'));
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const config = runSpec({ task: 'Answer.', model: { primary: ROOMY, fallbacks: [SMALL] } });
      const recorded = { ...config, resolver: { ...config.model, primary: ROOMY, fallbacks: [SMALL] } };
      // The signal arrives with the start, so the first turn takes the operator's model.
      const handle = await client.workflow.signalWithStart(REACT_FACTS.workflowType, {
        taskQueue,
        workflowId: `spec-strings-${process.pid}-${Date.now()}`,
        args: [{ config: recorded }],
        signal: switchModelSignal,
        signalArgs: [{ model: SMALL } as never],
      });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Answered.', model: SMALL });
    expect(fx.fake.requests.map((r) => [r.path, r.body.model])).toEqual([['/local/v1/messages', 'small-8k']]);
  });
});
