/**
 * A run's own model-call settings, from the CLI's flags to the request the provider receives, in
 * both wire formats; and the settings a model or kind cannot honour, refused before the run starts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
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
      const cli = agentCli(client, taskQueue);
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
      const refused = (...args: string[]) => cli.run('run', '--detach', ...args, 'Anything.');
      await expect(refused('--model', FALLBACK, '--thinking', '2048')).rejects.toThrow(
        'openai/gpt-4o-mini does not think: a thinking budget needs a model that thinks',
      );
      await expect(refused('--model', PRIMARY, '--temperature', '3')).rejects.toThrow(
        'temperature must be a number in [0, 2], got 3',
      );
      await expect(refused('--model', PRIMARY, '--agent', 'pev', '--tool-choice', 'required')).rejects.toThrow(
        'toolChoice does not apply to pev runs',
      );
      await expect(refused('--model', PRIMARY, '--agent', 'pev', '--system-prompt', 'Be brief.')).rejects.toThrow(
        'systemPrompt does not apply to pev runs',
      );
      await expect(refused('--model', PRIMARY, '--system-prompt', 'a', '--system-prompt-file', 'b')).rejects.toThrow(
        '--system-prompt and --system-prompt-file cannot be combined',
      );
      await expect(refused('--model', PRIMARY, '--response-format', path.join(tmp, 'none.json'))).rejects.toThrow(
        /--response-format .*none\.json cannot be read: ENOENT/,
      );
      await expect(refused('--model', PRIMARY, '--temperature', 'warm')).rejects.toThrow('"warm" is not a number.');
    });
    expect(fx.fake.requests).toHaveLength(0);
  });
});
