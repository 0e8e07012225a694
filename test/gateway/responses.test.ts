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
