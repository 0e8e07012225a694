/**
 * Failure messages say what went wrong in words: whatever was thrown (an Error, a string, a plain
 * object), whichever layer reports it (a tool, the LLM layer, the workflow, the client, the CLI),
 * no message reads "[object Object]".
 */
import { z } from 'zod';
import { errorText } from '../../src/common/error-text';
import { llmClient } from '../../src/llm';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../../src/tools';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { PRIMARY, resultTexts, useAgentFixture } from './agent-kit';

const OBJECT = '[object Object]';

/** The message of a rejected promise. */
const rejection = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => errorText(err),
  );

describe('failure messages', () => {
  it('name whatever was thrown in words', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    class DiskFull {}
    const texts = [
      errorText(new Error('disk full')),
      errorText('disk full'),
      errorText({ code: 'E_DISK', detail: 'full' }),
      errorText({ message: 'disk full', code: 7 }),
      errorText(circular),
      errorText(new DiskFull()),
      errorText(42),
      errorText(null),
    ];
    expect(texts).toEqual([
      'disk full',
      'disk full',
      '{"code":"E_DISK","detail":"full"}',
      'disk full',
      'a thrown Object without a message',
      'a thrown DiskFull without a message',
      '42',
      'null',
    ]);
  });

  describe('from a run', () => {
    const fx = useAgentFixture();
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'flaky_disk',
        description: 'Writes to a disk that fails.',
        parameters: z.object({}),
        execute: () => {
          // A library that throws a plain object rather than an Error.
          throw { code: 'E_DISK', detail: 'the disk is full' };
        },
      }),
    );
    afterAll(() => registry.close());
    const activities = () =>
      createAgentActivities({ store: fx.store, tools: createToolActivities(registry), llm: llmClient(fx.llm) });

    it('reach the model, the result, the client and the CLI without "[object Object]"', async () => {
      fx.fake.script(reply.toolCalls([{ name: 'flaky_disk', arguments: {} }]), reply.text('The disk is full.'));
      await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
        const agents = new AgentClient(client, taskQueue);
        const cli = agentCli(client, taskQueue).run;
        const messages: string[] = [];

        // A tool that throws an object: the model reads what it says.
        const ran = await agents.run({ task: 'Write to the disk.', model: PRIMARY });
        expect(ran.status).toBe('completed');
        const seen = resultTexts(fx.fake.requests[fx.fake.requests.length - 1]);
        expect(seen.join('\n')).toContain('the disk is full');
        messages.push(...seen);

        // A provider's error body, a request over the window, bad options, unknown runs and calls.
        fx.fake.script(reply.error(400, { message: 'messages: at least one message is required' }));
        const rejected = await agents.run({ task: 'Fail.', model: { primary: PRIMARY, attemptsPerProvider: 1 } });
        messages.push(rejected.error?.message ?? '');
        const overflow = await agents.run({
          task: 'Answer.',
          model: PRIMARY,
          systemPrompt: 'Follow these instructions. '.repeat(400),
          context: { windowTokens: 1000 },
        });
        expect(overflow.status).toBe('failed');
        messages.push(overflow.error?.message ?? '');
        // A provider this worker does not know: the worker says so, with where it read its config.
        const unknown = await agents.run({ task: 'x', model: { provider: 'nowhere', model: 'm' } });
        expect(unknown.status).toBe('failed');
        messages.push(unknown.error?.message ?? '');
        messages.push(
          await rejection(agents.start({ task: 'x', model: { provider: 7 } as never })),
          await rejection(agents.start({ task: 'x', model: PRIMARY, limits: { maxTurns: -1 } })),
          await rejection(agents.approve(ran.id, 'no-such-call')),
          await rejection(agents.followUp(ran.id, 'More?')),
          await rejection(agents.fork('agent-no-such-run', { atTurn: 1 })),
          await rejection(cli('run', '--model', PRIMARY, '--max-turns', 'many', 'x')),
          await rejection(cli('approve', ran.id, 'no-such-call')),
        );
        expect(messages.filter((m) => m === '')).toEqual([]);
        expect(messages.filter((m) => m.includes(OBJECT))).toEqual([]);
      });
    });
  });
});
