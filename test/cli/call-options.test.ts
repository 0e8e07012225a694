/**
 * A run's own model-call settings, from the CLI's flags to the request the provider receives, in
 * both wire formats; and the settings a model or kind cannot honour, refused before the run starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture, waitFor } from '../agent/agent-kit';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'call-options-'));
const file = (name: string, text: string): string => {
  const at = path.join(tmp, name);
  fs.writeFileSync(at, text);
  return at;
};

type Body = Record<string, unknown>;

describe("a run's model-call settings", () => {
  const fx = useAgentFixture();

  it('thinks on an Anthropic-format model and streams the thinking to a watcher, with its prompt, stop and length', async () => {
    fx.resetLatch();
    fx.fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'The user wants a greeting after the step.' },
        { type: 'tool_call', name: 'slow_step', arguments: { label: 'T' }, id: 'toolu_think' },
      ]),
      reply.text('Hello.'),
    );
    const prompt = file('prompt.txt', 'You are the greeter of the Example Hotel.');
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      // The watch reads the tokens from the workers' store, named as the workers' environment names it.
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const run = cli.run(
        'run',
        '--model',
        PRIMARY,
        '--system-prompt-file',
        prompt,
        '--thinking',
        '2048',
        '--stop',
        'END',
        '--max-output-tokens',
        '600',
        '--watch',
        'Take the step, then greet me.',
      );
      // The first answer's tokens are on screen while its tool still runs.
      await waitFor(
        () => cli.printed().includes('(thinking) The user wants a greeting after the step.'),
        'the thinking on screen',
      );
      fx.latch.open();
      expect(await run).toContain('Hello.');
    });
    for (const { body } of fx.fake.requests.slice(-2)) {
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(body.max_tokens).toBe(600 + 2048);
      expect(body.stop_sequences).toEqual(['END']);
      expect(JSON.stringify(body.system)).toContain('You are the greeter of the Example Hotel.');
    }
  });

  it('asks an OpenAI-format model for JSON with its sampling and tool choice, and the answer parses', async () => {
    fx.fake.script(reply.text('{"sum": 5}'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const out = await cli.run(
        'run',
        '--model',
        FALLBACK,
        '--temperature',
        '0.3',
        '--top-p',
        '0.9',
        '--response-format',
        'json',
        '--tool-choice',
        'none',
        '--json',
        'Add 2 and 3.',
      );
      expect(JSON.parse(JSON.parse(out).finalText)).toEqual({ sum: 5 });
    });
    const body = fx.fake.requests.at(-1)!.body as Body;
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, response_format: { type: 'json_object' } });
    expect(body.tool_choice).toBe('none');
  });

  it('gives an Anthropic-format model the schema of a response-format file', async () => {
    fx.fake.script(reply.text('{"city": "Lyon"}'));
    const schema = file('city.json', JSON.stringify({ type: 'object', properties: { city: { type: 'string' } } }));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const out = await agentCli(client, taskQueue).run(
        'run',
        '--model',
        PRIMARY,
        '--response-format',
        schema,
        '--json',
        'Where is the office?',
      );
      expect(JSON.parse(JSON.parse(out).finalText)).toEqual({ city: 'Lyon' });
    });
    const system = JSON.stringify((fx.fake.requests.at(-1)!.body as Body).system);
    expect(system).toContain('Respond with a single JSON value only');
    expect(system).toContain('named \\"city\\"');
  });

  it('refuses before the run starts what the model or the kind cannot honour, one line each', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const cases: [string[], string | RegExp][] = [
        [
          ['--model', FALLBACK, '--thinking', '2048'],
          'openai/gpt-4o-mini does not think: a thinking budget needs a model that thinks',
        ],
        [['--model', PRIMARY, '--temperature', '3'], /^--temperature must be a number in \[0, 2\], got 3$/],
        [
          ['--model', PRIMARY, '--thinking', '500'],
          /^--thinking must be a whole number of at least 1024 tokens, got 500$/,
        ],
        [['--model', PRIMARY, '--max-output-tokens', '1.5'], /--max-output-tokens/],
        [['--model', PRIMARY, '--agent', 'pev', '--tool-choice', 'required'], 'toolChoice does not apply to pev runs'],
        [
          ['--model', PRIMARY, '--agent', 'pev', '--system-prompt', 'Be brief.'],
          'systemPrompt does not apply to pev runs',
        ],
        [
          ['--model', PRIMARY, '--system-prompt', 'a', '--system-prompt-file', 'b'],
          '--system-prompt and --system-prompt-file cannot be combined',
        ],
        [
          ['--model', PRIMARY, '--response-format', path.join(tmp, 'none.json')],
          /--response-format .*none\.json cannot be read: ENOENT/,
        ],
        [['--model', PRIMARY, '--temperature', 'warm'], '"warm" is not a number.'],
        // What the model's entry says it cannot take, rather than a provider's 400 or a setting left out.
        [
          ['--model', PRIMARY, '--max-output-tokens', '1000000'],
          'maxTokens 1000000 is over the output limit of anthropic/claude-sonnet-4-6 (64000 tokens)',
        ],
        [
          ['--model', PRIMARY, '--thinking', '64000'],
          'thinkingBudget 64000 leaves no room for the answer in the output limit of anthropic/claude-sonnet-4-6 (64000 tokens)',
        ],
        [
          ['--model', PRIMARY, '--thinking', '2048', '--temperature', '0.5'],
          '--thinking cannot go with --temperature or --top-p: models refuse sampling settings while they think',
        ],
        [
          ['--model', PRIMARY, '--fallback', 'openai/gpt-5-mini', '--temperature', '0.2', '--stop', 'END'],
          'openai/gpt-5-mini is a reasoning model: it takes no temperature, stopSequences',
        ],
        [
          ['--model', PRIMARY, '--agent', 'pev', '--role-model', 'critic=openai/gpt-4o-mini'],
          'pev.models.critic: no such role; roles: planner, executor, verifier',
        ],
      ];
      for (const [flags, line] of cases)
        await expect(cli.run('run', '--detach', ...flags, 'Anything.')).rejects.toThrow(line);
    });
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('forces a tool for the first answer to the task only, then lets the model answer', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 }, id: 'toolu_forced' }]), reply.text('5.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const out = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--tool-choice', 'add', '--json', 'Add 2 and 3.'),
      );
      expect(out).toMatchObject({ status: 'completed', finalText: '5.' });
    });
    const [first, second] = fx.fake.requests.map((r) => r.body.tool_choice);
    expect(first).toEqual({ type: 'tool', name: 'add' });
    expect(second).toEqual({ type: 'auto' });
  });

  it('fails a run whose tool choice names a tool it does not have before any model call', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const out = JSON.parse(
        await cli.run('run', '--model', PRIMARY, '--tools', 'add,write_note', '--tool-choice', 'ad', '--json', 'Add.'),
      );
      expect(out).toMatchObject({ status: 'failed', turns: 0 });
      await saveHistoryIfRecording(client.workflow.getHandle(out.id), 'agent-tool-choice-refused');
      expect(out.error).toEqual({
        type: 'AgentConfigError',
        message: 'toolChoice names the tool "ad", which this run does not have (its tools: add, write_note)',
        retryable: false,
      });
    });
    expect(fx.fake.requests).toHaveLength(0);
  });
});

describe('a model whose entry says it takes no tools', () => {
  const fx = useAgentFixture(
    {},
    {
      llmConfig: () => ({
        models: [
          {
            provider: 'openai-compatible',
            model: 'text-only',
            contextWindow: 32_000,
            maxOutputTokens: 2_000,
            capabilities: { tools: false, thinking: false },
          },
        ],
      }),
    },
  );
  const TEXT_ONLY = 'openai-compatible/text-only';
  const refusal =
    'openai-compatible/text-only takes no tools (its entry says capabilities.tools is false), but the run asks for ' +
    'the tools add: leave them out or pick a model that takes tools';

  it('is called without the tools a run did not ask for, and a run that names tools is refused', async () => {
    fx.fake.script(reply.text('Hello.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      expect(await agents.run({ task: 'Say hello.', model: TEXT_ONLY })).toMatchObject({
        status: 'completed',
        finalText: 'Hello.',
      });
      expect(fx.fake.requests[0].body).not.toHaveProperty('tools');

      // A client that knows the entry refuses before the start; the run refuses with its worker's entry.
      const knowing = new AgentClient(client, taskQueue, { models: fx.llm.models });
      await expect(knowing.start({ task: 'Add.', model: TEXT_ONLY, tools: { allow: ['add'] } })).rejects.toThrow(
        `invalid run options: ${refusal}`,
      );
      const run = await agents.run({ task: 'Add.', model: TEXT_ONLY, tools: { allow: ['add'] } });
      expect(run).toMatchObject({ status: 'failed', error: { type: 'AgentConfigError', message: refusal } });
    });
    expect(fx.fake.requests).toHaveLength(1);
  });
});
