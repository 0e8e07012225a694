import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CRITIQUE_PROMPT, REVISE_PROMPT, type ReflectResult } from '../../examples/reflect-agent';
import { REFLECT_FACTS } from '../../examples/reflect-agent-facts';
import { BUILT_IN_KIND_FACTS } from '../../src/policy/kind-facts';
import { runSpec } from '../kit/run-spec';
import { reflectEdge } from '../../examples/reflect-agent-edge';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { REPO_ROOT } from '../kit/env';
import { saveHistoryIfRecording, testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, anthropicMessages, cancelRun, holdReply, useAgentFixture, waitFor } from './agent-kit';

/** The example's own command line: the CLI with the reflect kind beside the built-in ones. */
const REFLECT_CLI = path.join(REPO_ROOT, 'examples', 'reflect-agent-cli.ts');

const config = (task: string) =>
  runSpec({ model: PRIMARY, task, kind: 'reflect' }, [...BUILT_IN_KIND_FACTS, REFLECT_FACTS]);

/** The user texts of a recorded request, in order. */
const userTexts = (body: Record<string, unknown>): string[] =>
  anthropicMessages(body)
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])));

// The README's worked example of a third agent kind (examples/reflect-agent.ts), run for real.
describe('an agent kind written with hooks only: answer, self-critique, revised answer', () => {
  const fx = useAgentFixture();

  it('answers, critiques without tools (a refused call never runs), then revises, on one conversation', async () => {
    fx.fake.script(
      reply.text('Canberra is the largest city of Australia.'),
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]),
      reply.text('Wrong: Sydney is the largest city; Canberra is the capital.'),
      reply.text('Sydney is the largest city of Australia; Canberra is its capital.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start('reflectAgentWorkflow', {
        workflowId: `reflect-${crypto.randomUUID()}`,
        taskQueue,
        args: [{ config: config('Which is the largest city of Australia?') }],
      });
      const res = (await handle.result()) as ReflectResult;
      await saveHistoryIfRecording(handle, 'reflect-kind');
      return res;
    });
    expect(result).toMatchObject({
      kind: 'reflect',
      stopReason: 'completed',
      turns: 4,
      finalText: 'Sydney is the largest city of Australia; Canberra is its capital.',
      reflect: {
        stage: 'revise',
        draft: 'Canberra is the largest city of Australia.',
        critique: 'Wrong: Sydney is the largest city; Canberra is the capital.',
      },
    });
    expect(fx.calls).toEqual([]);
    const requests = fx.fake.requests;
    expect(requests.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(requests.map((r) => (r.body.tool_choice as { type?: string } | undefined)?.type)).toEqual([
      undefined,
      'none',
      'none',
      undefined,
    ]);
    expect(userTexts(requests[1].body).at(-1)).toBe(CRITIQUE_PROMPT);
    expect(userTexts(requests[3].body).at(-1)).toBe(REVISE_PROMPT);
  });

  it('a cancelled run returns its result like every kind', async () => {
    const held = holdReply(fx, reply.text('A first answer.'));
    const out = await cancelRun<ReflectResult>(fx, {
      start: async (_agents, { client, taskQueue }) => {
        const handle = await client.workflow.start('reflectAgentWorkflow', {
          workflowId: `reflect-${crypto.randomUUID()}`,
          taskQueue,
          args: [{ config: config('Answer something.') }],
        });
        return handle.workflowId;
      },
      ready: () => waitFor(() => fx.fake.requests.length === 1, 'the first model call'),
      release: () => held.open(),
      history: 'reflect-kind-cancel',
    });
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({
      stopReason: 'cancelled',
      reflect: { stage: 'answer', draft: 'A first answer.' },
    });
    expect(fx.fake.requests).toHaveLength(1);
  });

  it('runs as a sub-agent of another kind: its declaration carries the kind, the parent starts its workflow', async () => {
    fx.fake.reset();
    fx.fake.script(
      reply.toolCalls([{ name: 'critic', arguments: { task: 'Which is the largest city of Australia?' } }]),
      reply.text('Canberra.'),
      reply.text('Wrong: it is Sydney.'),
      reply.text('Sydney.'),
      reply.text('The critic says: Sydney.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { kinds: [reflectEdge] });
      return agents.run({
        task: 'Ask the critic.',
        model: PRIMARY,
        agents: { critic: { description: 'Answers, critiques and revises.', kind: 'reflect' } },
      });
    });
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'The critic says: Sydney.' });
    expect(result.children).toEqual([
      expect.objectContaining({ agent: 'critic', status: 'completed', stopReason: 'completed' }),
    ]);
    const child = (await testConnection()).client.workflow.getHandle(result.children![0].id);
    expect((await child.describe()).type).toBe('reflectAgentWorkflow');
    expect(((await child.result()) as ReflectResult).reflect).toMatchObject({ stage: 'revise', draft: 'Canberra.' });
  });

  it('plugs into the CLI through its edge: run --agent reflect takes its --critique flag, state shows its stage', async () => {
    fx.fake.reset();
    fx.fake.script(
      reply.text('Canberra is the largest city of Australia.'),
      reply.text('Wrong: Sydney is the largest city.'),
      reply.text('Sydney is the largest city of Australia.'),
    );
    const { address, namespace } = await testConnection();
    await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
      const cli = (...args: string[]) => runCli(args, { env, entry: REFLECT_CLI });
      const critique = 'Is it the largest city, or only the capital?';
      const task = 'Which is the largest city of Australia?';
      const run = await cli('run', '--agent', 'reflect', '--critique', critique, '--model', PRIMARY, '--json', task);
      expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
      const result = JSON.parse(run.stdout) as ReflectResult;
      expect(result).toMatchObject({
        kind: 'reflect',
        stopReason: 'completed',
        finalText: 'Sydney is the largest city of Australia.',
        reflect: { stage: 'revise' },
      });
      expect(userTexts(fx.fake.requests[1].body).at(-1)).toBe(critique);

      const state = await cli('state', result.id);
      expect(state.stdout).toContain(
        'stage revise\n  draft: Canberra is the largest city of Australia.\n  critique: Wrong: Sydney is the largest city.',
      );
      expect(await cli('run', '--critique', critique, '--model', PRIMARY, task)).toMatchObject({
        code: 2,
        stderr: 'durable-agents: --critique applies to --agent reflect only\n',
      });
      const help = await cli('run', '--help');
      expect(help.stdout).toMatch(/agent kind: react \| pev \| reflect/);
      expect(help.stdout).toMatch(/--critique <prompt>\s+reflect agent: what the critique turn asks/);
    });
    expect(fx.fake.requests).toHaveLength(3);
  });

  it("the README's excerpt is this kind's code, line for line in order", () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Agent kinds'));
    const excerpt = /```ts\n([\s\S]*?)```/.exec(section)![1];
    const source = fs.readFileSync(path.join(REPO_ROOT, 'examples', 'reflect-agent.ts'), 'utf8').split('\n');
    let at = 0;
    for (const line of excerpt.split('\n').filter((l) => l.trim() !== '')) {
      at = source.indexOf(line, at);
      expect({ line, found: at >= 0 }).toEqual({ line, found: true });
    }
  });
});
