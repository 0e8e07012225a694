import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { workflowStreamPollUpdate } from '@temporalio/workflow-streams/workflow';
import { startCodecServer, type RunningCodecServer } from '../../src/codec';
import { reply } from '../../src/testing/fake-provider';
import { TEST_ENV } from '../kit/env';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, agentFixture, type AgentFixture } from '../agent/agent-kit';

const run = promisify(execFile);

/** `temporal workflow show --detailed` of one run, through the codec server at `endpoint` when given. */
async function show(workflowId: string, endpoint?: string): Promise<string> {
  const { address, namespace } = await testConnection();
  const args = ['workflow', 'show', '--address', address, '--namespace', namespace, '-w', workflowId, '--detailed'];
  if (endpoint) args.push('--codec-endpoint', endpoint);
  const { stdout } = await run(process.env[TEST_ENV.cliPath]!, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

describe('temporal workflow show --codec-endpoint', () => {
  let fx: AgentFixture;
  let codec: RunningCodecServer;
  let workflowId: string;
  const answer = 'The note about the codec is written.';

  beforeAll(async () => {
    fx = await agentFixture();
    codec = await startCodecServer({ port: 0, store: fx.store });
    fx.fake.script(
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'readable history' } }], { text: 'Writing it.' }),
      reply.text(answer),
    );
    workflowId = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Write a note saying "readable history".',
        model: PRIMARY,
        tools: { allow: ['write_note'] },
      });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: answer });
      return id;
    });
  });
  afterAll(async () => {
    await codec.close();
    await fx.close();
  });

  it('prints every message body beside its reference, where history alone has only hashes and previews', async () => {
    const plain = await show(workflowId);
    expect(plain).toMatch(/\.meta\.hash: [0-9a-f]{64}$/m);
    // A tool result travels as its hash and a short preview for the run's events, never as a body.
    expect(plain).toMatch(/^result\[0\]\.preview: wrote 16 characters$/m);
    expect(plain.match(/wrote 16 characters/g)).toHaveLength(1);
    expect(plain).not.toMatch(/\.body\./);

    for (const endpoint of [codec.url, `${codec.url}/{namespace}`]) {
      const decoded = await show(workflowId, endpoint);
      // The tool's result text and the model's answers, read from the content store.
      expect(decoded).toMatch(/^result\[0\]\.body\.content\[0\]\.text: wrote 16 characters$/m);
      expect(decoded).toMatch(/^result\[0\]\.meta\.body\.content\[0\]\.text: Writing it\.$/m);
      expect(decoded).toMatch(/^result\[0\]\.meta\.body\.content\[1\]\.name: write_note$/m);
      expect(decoded).toMatch(/^result\[0\]\.meta\.body\.content\[1\]\.arguments\.text: readable history$/m);
      expect(decoded).toMatch(new RegExp(`^result\\[0\\]\\.meta\\.body\\.content\\[0\\]\\.text: ${answer}$`, 'm'));
      // The task, written as the first model call pins the run's tools: the pin is in that call's result.
      expect(decoded).toMatch(
        /^result\[0\]\.pinned\.opened\[0\]\.body\.content: Write a note saying "readable history"\.$/m,
      );
      // The run's tools, pinned by that call, and the prompt each later model call names by hash.
      expect(decoded).toMatch(/^result\[0\]\.pinned\.toolSpecsBody\[\d+\]\.name: write_note$/m);
      expect(decoded).toMatch(/^input\[0\]\.promptBody\.systemPrompt: You are a capable assistant\./m);
      // No reference in a payload stands alone: each hash has its body (or a reason) beside it. A
      // body's own references (the stored prompt names the pinned tool specs) are shown where pinned.
      const references = [...decoded.matchAll(/^(.*)\.(hash|\w+Hash): [0-9a-f]{64}$/gm)].filter(
        ([, prefix]) => !/(^|\.)\w*[bB]ody(\.|\[|$)/.test(prefix),
      );
      const lines = decoded.split('\n');
      expect(references.length).toBeGreaterThanOrEqual(6);
      for (const [line, prefix, field] of references) {
        const bodyKey = field === 'hash' ? 'body' : `${field.slice(0, -4)}Body`;
        const beside = lines.some((l) => l.startsWith(`${prefix}.${bodyKey}`));
        if (!beside) throw new Error(`no ${bodyKey} beside "${line}"`);
      }
      expect(decoded).not.toContain('BodyMissing');
      expect(decoded).not.toContain('bodyMissing');
    }
  });

  it("shows the entries of a run's stream, published batches and polls, as values rather than serialized payloads", async () => {
    const streamed = 'Streaming slowly, piece after piece, while a batch is published to the run.';
    fx.fake.script({ ...reply.text(streamed), eventDelayMs: 60 });
    const id = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const started = await agents.start({ task: 'Stream something.', model: PRIMARY, stream: true });
      // A batch published to the run's stream by signal, as the model calls of earlier versions sent their tokens.
      const publisher = WorkflowStreamClient.create(client, started);
      publisher.topic('tokens').publish({ seq: 1, attempt: 1, kind: 'text', text: 'Stream' }, { forceFlush: true });
      await publisher[Symbol.asyncDispose]();
      // One poll of the stream, as a watcher long-polls a quiet run.
      await client.workflow.getHandle(started).executeUpdate(workflowStreamPollUpdate, {
        args: [{ topics: ['events'], from_offset: 0 }],
      });
      expect(await agents.result(started)).toMatchObject({ finalText: streamed });
      return started;
    });
    const plain = await show(id);
    expect(plain).toMatch(/^input\[0\]\.items\[0\]\.data: [A-Za-z0-9+/]+=*$/m);
    expect(plain).not.toMatch(/\.value\./);
    const decoded = await show(id, codec.url);
    // The published batch, and the poll's answer: each entry's value beside it.
    expect(decoded).toMatch(/^input\[0\]\.items\[0\]\.value\.kind: text$/m);
    expect(decoded).toMatch(/^input\[0\]\.items\[0\]\.value\.text: Stream/m);
    expect(decoded).toMatch(/^outcome\.success\[0\]\.items\[0\]\.value\.type: turn_start$/m);
    expect(decoded).toMatch(/^outcome\.success\[0\]\.items\[0\]\.data: [A-Za-z0-9+/]+=*$/m);
  });
});
