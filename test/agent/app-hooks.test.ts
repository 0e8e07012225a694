/**
 * The application's hooks around a turn (docs/hooks.md) and the log entries the model never sees:
 * a resolver that picks each turn's model from a credit balance outside the run, an on-turn-end
 * hook that moves the run to another model, a context transform that rewrites what the model sees
 * by reference, and notes, system events and tool logs, on one worker.
 */
import { z } from 'zod';
import { reply } from '../../src/testing/fake-provider';
import type { HookModelInput, HookTurnEndInput, ModelChoice } from '../../src/contracts/agent-hooks';
import type { AgentEvent } from '../../src/contracts/agent-events';
import type { Message } from '../../src/contracts/message-model';
import type { RunMessage } from '../../src/contracts/run-message';
import { contextTransform, type ContextTransformCall } from '../../src/worker';
import { defineTool } from '../../src/tools';
import { AgentClient, type StartAgentOptions } from '../../src/client';
import { saveHistoryIfRecording, useWorker } from '../kit/temporal';
import { CHEAP, PRIMARY, holdReply, resultTexts, useAgentFixture, waitFor } from './agent-kit';

/** A credit balance kept outside the run, as an entitlement service would. */
const credits = { priority: 0 };
let transform: (call: ContextTransformCall) => Promise<Message[] | undefined> = async () => undefined;

const hooks = {
  async priorityModel(input: HookModelInput): Promise<ModelChoice | null> {
    if (credits.priority >= 1) return null;
    return { model: CHEAP, reason: `priority credits used up at turn ${input.turn}` };
  },
  async spendCredit(_input: HookTurnEndInput): Promise<boolean> {
    credits.priority -= 1;
    return true;
  },
  async dailyAllowance(input: HookTurnEndInput): Promise<{ model: string; reason: string } | boolean> {
    return input.turn === 1 ? { model: CHEAP, reason: 'over the daily allowance' } : true;
  },
};

const orderLookup = defineTool({
  name: 'lookup_order',
  description: 'Looks an order up.',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }, ctx) => {
    ctx.log(`orders db: 1 row for ${order}`);
    return `order ${order}: shipped`;
  },
});

const providerSwitches = (events: AgentEvent[]) => events.filter((e) => e.type === 'provider_switch');
const notes = (messages: RunMessage[]) =>
  messages.flatMap((m) => (m.role === 'note' ? [{ kind: m.kind, text: m.text }] : []));
const requestText = (body: unknown): string => JSON.stringify(body);

describe('application hooks and notes', () => {
  const fx = useAgentFixture(
    {
      ...hooks,
      rewriteContext: (input: Parameters<ReturnType<typeof contextTransform>>[0]) =>
        contextTransform(fx.store, (call) => transform(call))(input),
    },
    { tools: [orderLookup] },
  );
  const worker = useWorker(() => ({ activities: fx.activities }));

  async function run(options: Omit<StartAgentOptions, 'task' | 'model'>, history?: string) {
    const agents = new AgentClient(worker.client, worker.taskQueue, { store: fx.store });
    const id = await agents.start({ task: 'Work on it.', model: PRIMARY, ...options });
    const result = await agents.result(id);
    if (history) await saveHistoryIfRecording(worker.client.workflow.getHandle(id), history);
    return { id, agents, result, state: await agents.state(id), messages: await agents.messages(id) };
  }

  it('a resolver hook picks each turn from a credit balance outside the run; the switch is recorded with its reason and a note the model never sees', async () => {
    credits.priority = 2;
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 3, b: 4 } }]),
      reply.text('3 and 7'),
    );
    const { result, state, messages } = await run(
      { hooks: { resolveModel: 'priorityModel', onTurnEnd: 'spendCredit' } },
      'agent-resolve-model-hook',
    );
    expect(result).toMatchObject({ status: 'completed', finalText: '3 and 7', model: CHEAP });
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'anthropic', 'openai']);
    expect(providerSwitches(state.events)).toEqual([
      expect.objectContaining({
        fromModel: PRIMARY,
        toModel: CHEAP,
        reason: 'resolve-model hook: priority credits used up at turn 3',
      }),
    ]);
    expect(notes(messages)).toEqual([
      {
        kind: 'context_note',
        text: `Model switched from ${PRIMARY} to ${CHEAP} (resolve-model hook: priority credits used up at turn 3).`,
      },
    ]);
    expect(requestText(fx.fake.requests[2].body)).not.toContain('Model switched');
  });

  it('an on-turn-end hook moves the run to another model from its next turn', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]), reply.text('2'));
    const { result, state } = await run({ hooks: { onTurnEnd: 'dailyAllowance' } }, 'agent-turn-end-switch');
    expect(result).toMatchObject({ status: 'completed', finalText: '2', model: CHEAP });
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'openai']);
    expect(providerSwitches(state.events)).toEqual([
      expect.objectContaining({ toModel: CHEAP, reason: 'on-turn-end hook: over the daily allowance' }),
    ]);
    expect(state.messages.filter((m) => m.kind === 'assistant').map((m) => m.model)).toEqual([PRIMARY, CHEAP]);
  });

  it('a context transform rewrites what the model sees by reference: the bodies it adds never enter history', async () => {
    transform = async (call) => [
      { role: 'user', content: 'Account note: the customer is on the gold tier.', timestamp: 0 },
      ...(await call.messages()).map((m) =>
        m.role === 'tool_result'
          ? { ...m, content: [{ type: 'text' as const, text: 'report: all quiet (trimmed)' }] }
          : m,
      ),
    ];
    fx.fake.script(reply.toolCalls([{ name: 'read_report', arguments: {} }]), reply.text('All quiet.'));
    const { id, result, state } = await run(
      { hooks: { transformContext: 'rewriteContext' } },
      'agent-context-transform',
    );
    expect(result).toMatchObject({ status: 'completed', finalText: 'All quiet.' });
    expect(resultTexts(fx.fake.requests[1])).toEqual(['report: all quiet (trimmed)']);
    expect(requestText(fx.fake.requests[0].body)).toContain('gold tier');
    const transformed = state.events.filter((e) => e.type === 'context_transformed');
    expect(transformed).toHaveLength(2);
    const history = JSON.stringify(await worker.client.workflow.getHandle(id).fetchHistory());
    expect(history).not.toContain('gold tier');
    expect(history).not.toContain('trimmed');
  });

  it('a transform that leaves a tool call without its result is refused; the call goes on with the view unchanged', async () => {
    transform = async (call) => (await call.messages()).filter((m) => m.role !== 'tool_result');
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }]), reply.text('4'));
    const { result, state } = await run({ hooks: { transformContext: 'rewriteContext' } });
    expect(result).toMatchObject({ status: 'completed', finalText: '4' });
    expect(resultTexts(fx.fake.requests[1])).toEqual(['4']);
    expect(state.events.filter((e) => e.type === 'hook_failed')).toEqual([
      expect.objectContaining({ hook: 'transformContext', message: expect.stringMatching(/has no result/) }),
    ]);
  });

  it("a client's note, a system event and a tool's log are written to the log and never reach the model", async () => {
    fx.fake.script(reply.toolCalls([{ name: 'lookup_order', arguments: { order: 'A-7' } }]));
    const held = holdReply(fx, reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]));
    const agents = new AgentClient(worker.client, worker.taskQueue, { store: fx.store });
    const id = await agents.start({ task: 'Where is order A-7?', model: PRIMARY });
    await waitFor(() => fx.fake.requests.length === 2, 'the second model call');
    await agents.addNote(id, 'Support ticket #88 opened for this run.');
    await agents.addNote(id, 'Credit balance low: 3 calls left.', { kind: 'system_event' });
    fx.fake.script(reply.text('Order A-7 has shipped.'));
    held.open();
    const result = await agents.result(id);
    await saveHistoryIfRecording(worker.client.workflow.getHandle(id), 'agent-notes');
    expect(result).toMatchObject({ status: 'completed', finalText: 'Order A-7 has shipped.' });
    const messages = await agents.messages(id);
    expect(notes(messages)).toEqual([
      { kind: 'tool_log', text: 'orders db: 1 row for A-7' },
      { kind: 'context_note', text: 'Support ticket #88 opened for this run.' },
      { kind: 'system_event', text: 'Credit balance low: 3 calls left.' },
    ]);
    expect(messages.find((m) => m.role === 'note' && m.kind === 'tool_log')).toMatchObject({
      toolCallId: expect.any(String),
    });
    const sent = fx.fake.requests.map((r) => requestText(r.body)).join('\n');
    for (const text of ['orders db', 'Support ticket', 'Credit balance']) expect(sent).not.toContain(text);
  });
});
