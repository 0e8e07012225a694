/**
 * The gateway's wire output against the protocols' own published schemas: every Open Responses
 * object and streaming event against the models generated from its OpenAPI document, every A2A 1.0
 * answer against a2a.proto. The protocols' client libraries drive each exchange; a `fetch` handed
 * to them keeps a copy of what they received.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import OpenAI from 'openai';
import { textPart as text } from '../../src/gateway/a2a-tasks';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture, waitForState } from '../agent/agent-kit';
import { data, message, send } from './a2a-kit';
import { withGateway } from './gateway-kit';
import { captureWire, schemaProblems, type Exchange, type SchemaCheck } from './wire-capture';

const FINAL = 'The sum of 2 and 3 is 5, as the add tool said.';

/** What an Open Responses exchange sent: response objects, or streaming events. */
function openResponsesChecks(exchanges: Exchange[]): SchemaCheck[] {
  return exchanges
    .filter((x) => x.url.includes('/v1/responses') && x.status < 400)
    .flatMap((x) =>
      x.body.map((value) => ({
        schema: x.stream ? 'event' : 'response',
        value,
        where: `${x.method} ${new URL(x.url).pathname}`,
      })),
    );
}

/** The a2a.proto message each JSON-RPC method answers with. */
const A2A_ANSWERS: Record<string, string> = {
  SendMessage: 'SendMessageResponse',
  SendStreamingMessage: 'StreamResponse',
  SubscribeToTask: 'StreamResponse',
  GetTask: 'Task',
  CancelTask: 'Task',
};

function a2aChecks(exchanges: Exchange[]): SchemaCheck[] {
  return exchanges.flatMap((x): SchemaCheck[] => {
    if (x.url.endsWith('/.well-known/agent-card.json'))
      return x.body.map((value) => ({ schema: 'AgentCard', value, where: 'agent card' }));
    const method = (x.request as { method?: string } | undefined)?.method ?? '';
    const schema = A2A_ANSWERS[method];
    if (!schema) return [];
    return x.body.flatMap((rpc) => {
      const { result } = rpc as { result?: unknown };
      return result === undefined ? [] : [{ schema, value: result, where: method }];
    });
  });
}

describe("the gateway's wire output keeps the protocols' published schemas", () => {
  const fx = useAgentFixture();

  it('Open Responses: a response, a stream with a tool call, a background run read and cancelled, a follow-up', async () => {
    fx.fake.script(
      reply.text('Noted: the code word is heron.'),
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }], { text: 'Adding first.', eventDelayMs: 5 }),
      reply.text(FINAL, { eventDelayMs: 5 }),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.log' } }]),
    );
    const wire = captureWire();
    await withGateway(fx, {}, async (gateway, agents) => {
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'loopback', maxRetries: 0, fetch: wire.fetch });
      const first = await openai.responses.create({ model: 'reader', input: 'Remember the code word heron.' });
      const stream = openai.responses.stream({
        model: 'reader',
        input: 'Add 2 and 3.',
        previous_response_id: first.id,
      });
      for await (const _ of stream) void _;
      expect((await stream.finalResponse()).output_text).toBe(`Adding first.${FINAL}`);
      const background = await openai.responses.create({ model: 'reader', input: 'Delete a.log.', background: true });
      await waitForState(agents, background.id, (s) => s.pendingApprovals.length === 1);
      await openai.responses.retrieve(background.id);
      expect((await openai.responses.cancel(background.id)).status).toBe('cancelled');
    });
    const checks = openResponsesChecks(await wire.exchanges());
    expect(checks.filter((c) => c.schema === 'response').length).toBeGreaterThanOrEqual(4);
    expect(checks.filter((c) => c.schema === 'event').length).toBeGreaterThanOrEqual(8);
    expect(schemaProblems({ openResponses: checks })).toBe('');
  });

  it('A2A 1.0: the card, a task sent and read, a stream to input required and its answer, a cancel', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]),
      reply.text(FINAL),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_w1' }], { text: 'Deleting.' }),
      reply.text('Deleted old.log.'),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'b.log' } }]),
    );
    const wire = captureWire();
    await withGateway(fx, {}, async (gateway, agents) => {
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: wire.fetch })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: wire.fetch }),
        }),
      ).createFromUrl(gateway.url);
      const task = (await client.sendMessage(send(message([text('Add 2 and 3.')])))) as Task;
      await client.getTask({ tenant: '', id: task.id });

      let waiting: Task | undefined;
      for await (const u of client.sendMessageStream(send(message([text('Delete old.log.')])))) {
        if (u.payload?.$case === 'statusUpdate') waiting = { id: u.payload.value.taskId } as Task;
      }
      const answer = message([data({ approved: true })], { taskId: waiting!.id, contextId: waiting!.id });
      for await (const _ of client.sendMessageStream(send(answer))) void _;

      const started = (await client.sendMessage(send(message([text('Delete b.log.')]), 'reader', true))) as Task;
      await waitForState(agents, started.id, (s) => s.pendingApprovals.length === 1);
      const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });
    const checks = a2aChecks(await wire.exchanges());
    expect(new Set(checks.map((c) => c.schema))).toEqual(
      new Set(['AgentCard', 'SendMessageResponse', 'Task', 'StreamResponse']),
    );
    expect(schemaProblems({ a2a: checks })).toBe('');
  });
});
