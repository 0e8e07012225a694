/**
 * A lean turn on a real server: a quick tool's calls run inside the model call (one activity and one
 * workflow task a turn), or as a local activity when the workflow must see them first; search
 * attributes are upserted only when a value worth filtering on changes, and what each turn records
 * stays small. The 200-turn figures come from `npm run bench`.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { llmClient } from '../../src/llm';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { reply } from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../../src/tools';
import { payloadBytes } from '../../bench/kit';
import type { AgentResult } from '../../src/contracts/agent-run';
import { runSpec } from '../kit/run-spec';
import { saveHistoryIfRecording, testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitForState } from './agent-kit';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

/** The events of each turn: from its model call's scheduling to the next one's. */
function turnsOf(events: HistoryEvent[]): HistoryEvent[][] {
  const starts = events.flatMap((e, i) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
  );
  return starts.map((s, k) => events.slice(s, starts[k + 1] ?? events.length));
}

/** The patches held now (docs/design.md, Replay and patch policy): a new run takes each once. */
const HELD_PATCHES = ['stop-reason-attribute'];

/** The ids of the patches a run took. */
const patchMarkers = (events: HistoryEvent[]): string[] =>
  events.flatMap((e) => {
    const attrs = e.markerRecordedEventAttributes;
    const data = attrs?.markerName === 'core_patch' ? attrs.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { id: string }).id] : [];
  });

const markerType = (e: HistoryEvent): string | undefined => {
  const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type : undefined;
};

describe('a lean turn', () => {
  const fx = useAgentFixture();
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'lookup',
      description: 'Looks a number up.',
      parameters: z.object({ n: z.number() }),
      timeoutMs: 5_000,
      execute: ({ n }) => `entry ${n}: ${'x'.repeat(2000)}`,
    }),
  );
  afterAll(() => registry.close());
  registry.register(
    defineTool({
      name: 'sum',
      description: 'Adds two numbers (may take up to a minute).',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    }),
  );
  registry.register(
    defineTool({
      name: 'nap',
      description: 'Waits a while.',
      parameters: z.object({ ms: z.number() }),
      timeoutMs: 5_000,
      execute: ({ ms }, ctx) =>
        new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve('rested'), ms);
          ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        }),
    }),
  );
  const quickAndSlow = () =>
    createAgentActivities({ store: fx.store, tools: createToolActivities(registry), llm: llmClient(fx.llm) });

  it('writes the task and pins the tools in the first model call, runs quick tool calls inside the model call and upserts search attributes only when a value changes', async () => {
    const turns = 8;
    let calls = 0;
    fx.fake.respond(() => {
      calls += 1;
      if (calls >= turns) return reply.text('Looked up everything.');
      return reply.toolCalls([{ name: 'lookup', arguments: { n: calls } }], {
        text: 'Looking it up.',
        usage: { input: 1000, output: 100 },
      });
    });
    const { result, events } = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Look up 1 to 7.', model: PRIMARY });
      const res = await agents.result(id);
      const handle = client.workflow.getHandle(id);
      await saveHistoryIfRecording(handle, 'agent-pin-with-first-call');
      return { result: res, events: (await handle.fetchHistory()).events ?? [] };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Looked up everything.', turns });

    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled).toEqual(Array<string>(turns).fill('callModel'));
    // The first model call writes the task and pins the tools: no local activity at all, and the
    // first turn's quick calls run inside that call too.
    const markers = events.map(markerType).filter((t) => t !== undefined);
    expect(markers).toEqual([]);
    expect(patchMarkers(events)).toEqual(HELD_PATCHES);
    // The first workflow task schedules the first model call, with one activation: the start's.
    const firstCall = events.findIndex(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    expect(
      events.slice(0, firstCall).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
    ).toHaveLength(1);
    const pinned = events[firstCall + 2]?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    expect(JSON.parse(Buffer.from(pinned ?? []).toString())).toMatchObject({
      pinned: { tools: expect.arrayContaining([expect.objectContaining({ name: 'lookup', local: true })]) },
      toolResults: [expect.objectContaining({ preview: expect.stringContaining('entry 1') })],
    });
    // The model saw every result whole: each request after the first carries the previous call's result.
    const seen = fx.fake.requests
      .slice(1)
      .map((r, i) => JSON.stringify(r.body.messages).includes(`entry ${i + 1}: ${'x'.repeat(2000)}`));
    expect(seen).toEqual(Array<boolean>(turns - 1).fill(true));

    const toolTurns = turnsOf(events).slice(0, -1);
    toolTurns.forEach((turn, i) => {
      const types = turn.map((e) => e.eventType);
      // callModel (3) + the workflow task that records the results (3), and now and then a cost upsert;
      // its payloads are the call's references and counts, and the result's preview (120 characters).
      // The first turn also carries the pin: the task and the run's prompt going in (this run's are
      // short), the pinned tools and the worker's entries for the run's models coming back.
      expect(turn.length).toBeLessThanOrEqual(7);
      expect(types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toHaveLength(1);
      expect(turn.reduce((sum, e) => sum + payloadBytes(e), 0)).toBeLessThan(i === 0 ? 3072 : 1280);
    });
    // The phase does not flip model/tools each turn: it reads `running` until the run is done.
    const phases = events.flatMap((e) => {
      const field = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.DurableAgentPhase;
      return field?.data ? [JSON.parse(Buffer.from(field.data).toString()) as string] : [];
    });
    expect(phases).toEqual(['running', 'done']);
    // Every upsert writes only values that change what the attributes show.
    const shown = new Map<string, string>();
    for (const e of events) {
      const fields = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
      for (const [name, payload] of Object.entries(fields)) {
        const value = Buffer.from(payload.data ?? []).toString();
        expect(`${name}=${shown.get(name)}`).not.toBe(`${name}=${value}`);
        shown.set(name, value);
      }
    }
  });

  it("pins the tools before a first turn of calls no model makes (a plan's), in a local activity", async () => {
    fx.fake.script(reply.text('The lookup found entry 4.'));
    const { result, events } = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start('plannedFirstWorkflow', {
        workflowId: `planned-first-${crypto.randomUUID()}`,
        taskQueue,
        args: [
          {
            config: runSpec({ task: 'Look up 4.', model: PRIMARY, tools: { allow: ['lookup'] } }),
            plannedCall: { id: 'planned-1', name: 'lookup', arguments: { n: 4 } },
          },
        ],
      });
      const res = (await handle.result()) as AgentResult;
      await saveHistoryIfRecording(handle, 'planned-first-pin');
      return { result: res, events: (await handle.fetchHistory()).events ?? [] };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'The lookup found entry 4.', turns: 1 });
    // The pin's local activity comes first, then the plan's calls are written as an answer and run
    // the pinned tool; the one model call, after them, pins nothing.
    expect(events.map(markerType).filter((t) => t !== undefined)).toEqual(['pinTools', 'appendMessages', 'runTool']);
    expect(patchMarkers(events)).toEqual(HELD_PATCHES);
    expect(JSON.stringify(fx.fake.requests[0].body.messages)).toContain(`entry 4: ${'x'.repeat(2000)}`);
    const called = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
    const input = called?.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data;
    expect(JSON.parse(Buffer.from(input ?? []).toString())).not.toHaveProperty('pin');
  });

  it("holds a quick call run inside the model call to the run's own timeout for its tool", async () => {
    fx.fake.script(reply.toolCalls([{ name: 'nap', arguments: { ms: 2_000 } }]), reply.text('done'));
    const events = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Nap.', model: PRIMARY, limits: { toolTimeoutsMs: { nap: 200 } } });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'done' });
      return (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    });
    expect(events.map(markerType)).not.toContain('runTool');
    expect(JSON.stringify(fx.fake.requests[1].body)).toContain('Tool \\"nap\\" timed out after 200 ms.');
  });

  it('runs the calls itself when the answer also calls a tool that is not quick', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'lookup', arguments: { n: 1 } },
        { name: 'sum', arguments: { a: 1, b: 2 } },
      ]),
      reply.text('done'),
    );
    const { result, events } = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Look 1 up and add 1 and 2.', model: PRIMARY });
      const res = await agents.result(id);
      return { result: res, events: (await client.workflow.getHandle(id).fetchHistory()).events ?? [] };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'done' });
    // The quick call as a local activity, the other as a regular one, both after the answer was recorded.
    expect(events.map(markerType)).toContain('runTool');
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled).toContain('runTool');
    const results = (fx.fake.requests[1].body as { messages: { content: unknown }[] }).messages;
    expect(JSON.stringify(results)).toContain('entry 1');
  });

  it('leaves a quick tool that needs approval to the workflow, which asks first', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'lookup', arguments: { n: 4 } }]), reply.text('done'));
    const result = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ tools: { approve: ['lookup'] }, task: 'Look 4 up.', model: PRIMARY });
      const { pendingApprovals: pending } = await waitForState(agents, id, (st) => st.pendingApprovals.length > 0);
      expect(pending).toHaveLength(1);
      expect(fx.fake.requests).toHaveLength(1);
      await agents.reject(id, pending[0].toolCallId, { reason: 'not now' });
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'done' });
    expect(JSON.stringify(fx.fake.requests[1].body)).not.toContain('entry 4');
  });

  it('asks the one approval gate for each call the model call would run itself: a rule on the arguments holds that call', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'lookup', arguments: { n: 1 } }]),
      reply.toolCalls([{ name: 'lookup', arguments: { n: 13 } }]),
      reply.text('done'),
    );
    const { result, events } = await withWorker({ activities: quickAndSlow() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const approvals = [{ tool: 'lookup', when: [{ path: 'n', equals: 13 }] }];
      const id = await agents.start({ task: 'Look 1 and 13 up.', model: PRIMARY, tools: { approvals } });
      const { pendingApprovals: pending } = await waitForState(agents, id, (st) => st.pendingApprovals.length > 0);
      expect(pending.map((p) => p.args)).toEqual([{ n: 13 }]);
      expect(JSON.stringify(fx.fake.requests[1].body)).toContain('entry 1');
      await agents.approve(id, pending[0].toolCallId);
      return {
        result: await agents.result(id),
        events: (await client.workflow.getHandle(id).fetchHistory()).events ?? [],
      };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'done' });
    // The call the gate let run went inside the model call; the held one ran after its approval.
    expect(events.map(markerType).filter((t) => t === 'runTool')).toHaveLength(1);
    expect(JSON.stringify(fx.fake.requests[2].body)).toContain('entry 13');
  });

  it('keeps tools that may take long as regular activities', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]), reply.text('3'));
    const events = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add 1 and 2.', model: PRIMARY });
      await agents.result(id);
      return (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    });
    // `add` keeps the default timeout of a minute: it heartbeats as a regular activity.
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled).toContain('runTool');
    expect(events.map(markerType)).not.toContain('runTool');
  });

  it("hands a new run's first workflow task to the worker in the start call's reply when the client shares its connection", async () => {
    fx.fake.respond(() => reply.text('Hello.'));
    const { address, namespace } = await testConnection();
    const own = await Connection.connect({ address });
    try {
      const accepted = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
        const startedBy = async (c: Client) => {
          const agents = fx.agents(c, taskQueue);
          const id = await agents.start({ task: 'Say hello.', model: PRIMARY });
          expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'Hello.' });
          const [started] = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
          return started.workflowExecutionStartedEventAttributes?.eagerExecutionAccepted ?? false;
        };
        // The kit's client shares the worker's NativeConnection; a client on a plain Connection cannot ask.
        return [await startedBy(client), await startedBy(new Client({ connection: own, namespace }))];
      });
      expect(accepted).toEqual([true, false]);
    } finally {
      await own.close();
    }
  });
});
