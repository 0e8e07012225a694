/**
 * The context a run sends, on a real server: old tool results masked (and read back on request),
 * summaries that fail backing off while the context is fitted without a model call, and a run that
 * cannot get under the window ending with a typed error instead of sending the request.
 */
import { z } from 'zod';
import { llmClient } from '../../src/llm';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { AGENT_FAILURE } from '../../src/contracts/failure-types';
import { READ_RESULT_TOOL } from '../../src/policy/masking';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../../src/tools';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, resultTexts, useAgentFixture, waitForState } from './agent-kit';

/** A result the model can tell apart: its number, then filler to the given size. */
const entry = (n: number, chars: number): string => `entry ${n}: ${'abcdefghij'.repeat(chars / 10)}`;

const isSummary = (r: RecordedRequest): boolean => JSON.stringify(r.body.system ?? '').includes('You compress');

describe('the context a run sends', () => {
  const fx = useAgentFixture();
  const sizes = { chars: 4000 };
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'lookup',
      description: 'Looks an entry up.',
      parameters: z.object({ n: z.number() }),
      timeoutMs: 5_000,
      execute: ({ n }) => entry(n, sizes.chars),
    }),
  );
  afterAll(() => registry.close());
  const activities = () =>
    createAgentActivities({ store: fx.store, tools: createToolActivities(registry), llm: llmClient(fx.llm) });

  it('masks old results, keeps the newest whole, and gives a masked result back when the model asks', async () => {
    sizes.chars = 4000;
    fx.fake.script(
      ...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name: 'lookup', arguments: { n }, id: `toolu_look${n}` }])),
      reply.toolCalls([{ name: READ_RESULT_TOOL, arguments: { tool_call_id: 'toolu_look1' }, id: 'toolu_back' }]),
      reply.text('Entry 1 starts with abcdefghij.'),
    );
    const result = await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        context: { mask: { keepResults: 1, batch: 2 } },
        task: 'Look up 1 to 4, then tell me how entry 1 starts.',
        model: PRIMARY,
      });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-masking-read-back');
      return res;
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Entry 1 starts with abcdefghij.' });
    const requests = fx.fake.requests;
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(requests[0].body.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: READ_RESULT_TOOL })]),
    );
    // Results stay whole until 1 kept + a batch of 2 exist; then the two oldest become stubs at once.
    expect(resultTexts(requests[2])).toEqual([entry(1, 4000), entry(2, 4000)]);
    const fourth = resultTexts(requests[3]);
    expect(fourth[0]).toContain('lookup({"n":1})');
    expect(fourth[0]).toContain(`call ${READ_RESULT_TOOL} with tool_call_id "toolu_look1"`);
    expect(fourth[0].length).toBeLessThan(400);
    expect(fourth[1]).toContain('toolu_look2');
    expect(fourth[2]).toBe(entry(3, 4000));
    // The boundary holds for the next turn, so the request's prefix is the one the provider cached.
    const fifth = resultTexts(requests[4]);
    expect(fifth).toEqual([fourth[0], fourth[1], entry(3, 4000), entry(4, 4000)]);
    // The read-back's result is the masked result whole, and the next request carries it.
    const last = resultTexts(requests[5]);
    expect(last[last.length - 1]).toBe(entry(1, 4000));
  });

  it('sends every result whole when masking is off', async () => {
    sizes.chars = 4000;
    fx.fake.script(
      ...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name: 'lookup', arguments: { n } }])),
      reply.text('done'),
    );
    await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await agents.result(await agents.start({ context: { mask: false }, task: 'Look up 1 to 4.', model: PRIMARY }));
    });
    const requests = fx.fake.requests;
    expect(resultTexts(requests[4])).toEqual([1, 2, 3, 4].map((n) => entry(n, 4000)));
    expect(requests[0].body.tools).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ name: READ_RESULT_TOOL })]),
    );
  });

  it('backs off a failing summary and fits the context without one, never sending more than the window', async () => {
    sizes.chars = 4000;
    const turns = 40;
    const window = 4000;
    let turn = 0;
    const attempts: { turn: number; ok: boolean }[] = [];
    fx.fake.respond((request) => {
      if (isSummary(request)) {
        const ok = attempts.length >= 4;
        attempts.push({ turn, ok });
        return ok ? reply.text('Summary: looked up entries so far.') : reply.error(500);
      }
      turn += 1;
      return turn >= turns
        ? reply.text('All looked up.')
        : reply.toolCalls([{ name: 'lookup', arguments: { n: turn } }]);
    });
    const { result, state } = await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Look up entries until told to stop.',
        model: { primary: PRIMARY, attemptsPerProvider: 1 },
        limits: { maxTurns: turns + 1 },
        // The estimate counts text only; the threshold leaves room for the wire format's own characters.
        context: { windowTokens: window, thresholdRatio: 0.7, mask: false },
      });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-compaction-backoff');
      // A closed run's state comes from a worker's replay of its history, which a loaded machine may
      // not finish before the client answers from the result alone (without events): ask until it does.
      return { result: res, state: await waitForState(agents, id, (s) => (s.events ?? []).length > 0) };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'All looked up.', turns });
    // Four failed summaries in 40 turns, each waiting longer than the one before; a success resets the wait.
    const failed = attempts.filter((a) => !a.ok).map((a) => a.turn);
    expect(failed).toHaveLength(4);
    const gaps = failed.slice(1).map((t, i) => t - failed[i]);
    expect(gaps).toEqual([...gaps].sort((a, b) => a - b));
    expect(new Set(gaps).size).toBe(gaps.length);
    expect(attempts.length).toBeLessThanOrEqual(8);
    const types = state.events.map((e) => e.type);
    expect(types).toContain('context_trimmed');
    expect(types).toContain('context_compacted');
    // Every model request fits the window, as the fake counts input: a token per four characters of the messages.
    const sent = fx.fake.requests.filter((r) => !isSummary(r)).map((r) => JSON.stringify(r.body.messages).length / 4);
    expect(Math.max(...sent)).toBeLessThan(window);
  });

  it('cuts a result bigger than the window to fit, with a note, and pages through the rest on request', async () => {
    sizes.chars = 12_000;
    const window = 2000;
    const whole = entry(1, sizes.chars);
    let offset: number | undefined;
    fx.fake.respond((request) => {
      if (isSummary(request)) return reply.text('Summary.');
      const results = resultTexts(request);
      if (results.length === 0) return reply.toolCalls([{ name: 'lookup', arguments: { n: 1 } }]);
      const last = results[results.length - 1];
      const next = /offset (\d+)/.exec(last);
      if (offset === undefined && next) {
        offset = Number(next[1]);
        const id = /tool_call_id "([^"]+)"/.exec(last)?.[1] ?? '';
        return reply.toolCalls([{ name: READ_RESULT_TOOL, arguments: { tool_call_id: id, offset } }]);
      }
      return reply.text('Read it.');
    });
    const result = await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Look up entry 1 and read all of it.',
        model: { primary: PRIMARY, attemptsPerProvider: 1 },
        context: { windowTokens: window },
      });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-result-cut-to-fit');
      return res;
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Read it.' });
    const asked = fx.fake.requests.filter((r) => !isSummary(r));
    expect(asked).toHaveLength(3);
    // The cut result: its beginning, then a note naming the offset to read on from.
    const cut = resultTexts(asked[1])[0];
    expect(offset).toBeGreaterThan(1000);
    expect(cut.startsWith(whole.slice(0, offset))).toBe(true);
    expect(cut).toContain(`[Cut to fit the model's context window: the first ${offset} of ${whole.length} characters.`);
    expect(cut.length).toBeLessThanOrEqual(window * 2);
    // The page read back goes on exactly where the cut result stopped.
    const paged = resultTexts(asked[2]).at(-1) as string;
    const end = Math.min(whole.length, 2 * (offset as number));
    expect(paged.startsWith(whole.slice(offset, end))).toBe(true);
    expect(paged).toContain(`[Characters ${offset} to ${end} of ${whole.length}. Read on with offset ${end}.]`);
    // No request went over the window (the fake counts a token per four characters of the messages).
    const sent = asked.map((r) => JSON.stringify(r.body.messages).length / 4);
    expect(Math.max(...sent)).toBeLessThan(window);
  });

  it('ends with a typed error instead of sending a request it knows is over the window', async () => {
    fx.fake.respond((request) => (isSummary(request) ? reply.error(500) : reply.text('never sent')));
    const result = await withWorker({ activities: activities() }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Answer briefly.',
        // What every request carries besides the conversation is itself over the window.
        systemPrompt: 'Follow these instructions closely. '.repeat(300),
        model: { primary: PRIMARY, attemptsPerProvider: 1 },
        context: { windowTokens: 2000 },
      });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-context-overflow');
      return res;
    });
    expect(result).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(result.error?.type).toBe(AGENT_FAILURE.contextOverflow);
    expect(result.error?.message).toMatch(
      /over the 2000-token window of anthropic\/claude-sonnet-4-6 .* the request was not sent/,
    );
    expect(fx.fake.requests.filter((r) => !isSummary(r))).toHaveLength(0);
  });
});
