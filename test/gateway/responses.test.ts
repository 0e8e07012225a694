import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture, waitForState } from '../agent/agent-kit';
import { withGateway } from './gateway-kit';

const FINAL = 'The sum of 2 and 3 is 5, as the add tool said; nothing else was needed here.';

const sdk = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-checked-on-loopback', maxRetries: 0 });

describe('the Open Responses endpoint', () => {
  const fx = useAgentFixture();

  it('starts a background run that answers at once, and the response reads completed once the run ends', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]), reply.text(FINAL));
    await withGateway(fx, {}, async (gateway, agents) => {
      const openai = sdk(gateway.url);
      const created = await openai.responses.create({ model: 'reader', input: 'Add 2 and 3.', background: true });
      expect(created.status).toBe('queued');
      expect(created.id).toMatch(/^reader:/);
      let read = created;
      for (let i = 0; i < 300 && read.status !== 'completed'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        read = await openai.responses.retrieve(created.id);
      }
      expect(read.output_text).toBe(FINAL);
      expect(read.usage?.output_tokens).toBeGreaterThan(0);
      expect((await agents.result(created.id)).finalText).toBe(FINAL);
    });
  });

  it("streams the Responses event types in order, and the SDK's stream helper assembles the answer", async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }], { text: 'Adding first.', eventDelayMs: 10 }),
      reply.text(FINAL, { eventDelayMs: 10 }),
    );
    await withGateway(fx, {}, async (gateway) => {
      const stream = sdk(gateway.url).responses.stream({ model: 'reader', input: 'Add 2 and 3.' });
      const events: ResponseStreamEvent[] = [];
      for await (const e of stream) events.push(e);
      const final = await stream.finalResponse();
      expect(events[0].type).toBe('response.created');
      expect(events.at(-1)?.type).toBe('response.completed');
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
      expect(deltas.length).toBeGreaterThanOrEqual(2);
      expect(deltas.join('')).toBe(`Adding first.${FINAL}`);
      expect(final.status).toBe('completed');
      expect(final.output.map((m) => (m.type === 'message' ? m.phase : undefined))).toEqual([
        'commentary',
        'final_answer',
      ]);
      expect(final.output_text).toBe(`Adding first.${FINAL}`);
    });
  });

  it('goes on from an earlier response by previous_response_id, with its conversation by reference', async () => {
    fx.fake.script(reply.text('Noted: the code word is heron.'), reply.text('The code word was heron.'));
    await withGateway(fx, {}, async (gateway) => {
      const openai = sdk(gateway.url);
      const first = await openai.responses.create({ model: 'reader', input: 'Remember the code word heron.' });
      expect(first.status).toBe('completed');
      const second = await openai.responses.create({
        model: 'reader',
        input: 'Which code word did I give you?',
        previous_response_id: first.id,
      });
      expect(second.output_text).toBe('The code word was heron.');
      expect(second.previous_response_id).toBe(first.id);
      const sent = JSON.stringify(fx.fake.requests.at(-1)?.body);
      expect(sent).toContain('Remember the code word heron.');
      expect(sent).toContain('Noted: the code word is heron.');
    });
  });

  it('cancels a background response: the run ends with its result and the response reads cancelled', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.log' } }]), reply.text('unreached'));
    await withGateway(fx, {}, async (gateway, agents) => {
      const openai = sdk(gateway.url);
      const created = await openai.responses.create({ model: 'reader', input: 'Delete a.log.', background: true });
      await waitForState(agents, created.id, (s) => s.pendingApprovals.length === 1);
      expect((await openai.responses.retrieve(created.id)).status).toBe('in_progress');
      const cancelled = await openai.responses.cancel(created.id);
      expect(cancelled.status).toBe('cancelled');
      expect((await agents.result(created.id)).stopReason).toBe('cancelled');
      expect(fx.calls).not.toContain('delete_file:a.log');
      await expect(openai.responses.cancel('reader:no-such-run')).rejects.toMatchObject({ status: 404 });
    });
  });
});

describe('an Open Responses input that is a conversation', () => {
  const fx = useAgentFixture();

  it('starts the run from the messages before the last, whose text is the task; what an agent cannot take is refused', async () => {
    fx.fake.script(reply.text('Your code word was heron.'));
    await withGateway(fx, {}, async (gateway, agents) => {
      const openai = sdk(gateway.url);
      const answered = await openai.responses.create({
        model: 'reader',
        input: [
          { role: 'user', content: 'My code word is heron.' },
          { role: 'user', content: [{ type: 'input_text', text: 'Remember it.' }] },
          { type: 'message', role: 'assistant', content: 'Noted: heron.' },
          { role: 'user', content: 'Which code word did I give you?' },
        ],
      });
      expect(answered.output_text).toBe('Your code word was heron.');
      const sent = fx.fake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      const said = sent.messages.map((m) => `${m.role}: ${JSON.stringify(m.content)}`).join('\n');
      expect(said).toMatch(/user: .*My code word is heron\.\\n\\nRemember it\./);
      expect(said).toMatch(/assistant: .*Noted: heron\./);
      expect(said).toMatch(/user: .*Which code word did I give you\?/);
      expect((await agents.result(answered.id)).turns).toBe(1);

      const refused = async (input: unknown, extra: Record<string, unknown> = {}) => {
        const err = await openai.responses.create({ model: 'reader', input, ...extra } as never).then(
          () => undefined,
          (e: { status?: number; error?: { message?: string; param?: string } }) => e,
        );
        expect(err).toMatchObject({ status: 400, error: { param: 'input' } });
        return err?.error?.message;
      };
      const before = fx.fake.requests.length;
      expect(
        await refused([
          { role: 'system', content: 'Be terse.' },
          { role: 'user', content: 'Hi.' },
        ]),
      ).toBe("input[0] is a system message: the agent's instructions are its own");
      expect(
        await refused([
          { type: 'function_call_output', call_id: 'c1', output: '5' },
          { role: 'user', content: 'Hi.' },
        ]),
      ).toMatch(/input\[0\] is a function_call_output item: only messages are taken/);
      expect(
        await refused([
          { role: 'user', content: 'Hi.' },
          { role: 'assistant', content: 'Hello.' },
        ]),
      ).toMatch(/input: the last message must be a user's/);
      expect(
        await refused([{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }]),
      ).toMatch(/input\[0\] has a input_image part: only input_text parts are taken/);
      expect(
        await refused(
          [
            { role: 'user', content: 'Hi.' },
            { role: 'assistant', content: 'Hello.' },
            { role: 'user', content: 'Again.' },
          ],
          { previous_response_id: answered.id },
        ),
      ).toMatch(/previous_response_id carries the conversation/);
      expect(fx.fake.requests.length).toBe(before);
    });
  });
});
