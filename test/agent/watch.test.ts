import type { Client } from '@temporalio/client';
import { AgentClient, AgentClientError } from '../../src/client';
import type { AgentEvent } from '../../src/contracts/agent-events';
import { TokenPieces } from '../../src/activities/agent/token-pieces';
import type { TokenDelta, WatchItem } from '../../src/contracts/watch-topics';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitFor } from './agent-kit';

const FIRST = 'Let me take the first step, which takes a while; the answer follows after it.';
const FINAL = 'Both steps are done: the sum is 7, and step A finished as planned.';

/** Collects a watch into an array as items arrive; `done` settles when the watch ends by itself. */
function collect(agents: AgentClient, id: string): { items: WatchItem[]; done: Promise<void> } {
  const items: WatchItem[] = [];
  const done = (async () => {
    for await (const item of agents.watch(id)) items.push(item);
  })();
  return { items, done };
}

const events = (items: WatchItem[]): AgentEvent[] => items.flatMap((i) => (i.topic === 'events' ? [i.event] : []));
const deltas = (items: WatchItem[]): TokenDelta[] => items.flatMap((i) => (i.topic === 'tokens' ? [i.delta] : []));
/** The streamed text of each answer, by its seq. */
function textBySeq(items: WatchItem[], kind: TokenDelta['kind'] = 'text'): Record<number, string> {
  const out: Record<number, string> = {};
  for (const d of deltas(items)) if (d.kind === kind) out[d.seq] = (out[d.seq] ?? '') + d.text;
  return out;
}

describe('token pieces', () => {
  it('join deltas of one block until the block changes or the piece is old enough, tool pieces naming their tool', () => {
    const out: TokenDelta[] = [];
    const pieces = new TokenPieces({ seq: 3, attempt: 2, model: PRIMARY }, 100, (d) => out.push(d));
    pieces.push({ type: 'thinking_delta', index: 0, delta: 'Hm' }, 0);
    pieces.push({ type: 'thinking_delta', index: 0, delta: 'm.' }, 10);
    pieces.push({ type: 'text_delta', index: 1, delta: 'Hel' }, 20);
    pieces.push({ type: 'text_delta', index: 1, delta: '' }, 30);
    pieces.push({ type: 'text_delta', index: 1, delta: 'lo' }, 120);
    pieces.push({ type: 'text_delta', index: 1, delta: '!' }, 130);
    pieces.push({ type: 'tool_call_start', index: 2, id: 'c', name: 'add' }, 140);
    pieces.push({ type: 'tool_call_delta', index: 2, delta: '{"a":' }, 150);
    pieces.push({ type: 'tool_call_delta', index: 2, delta: '1}' }, 160);
    expect(out.map((d) => [d.kind, d.text, d.tool])).toEqual([
      ['thinking', 'Hmm.', undefined],
      ['text', 'Hello', undefined],
      ['text', '!', undefined],
    ]);
    pieces.flush();
    pieces.flush();
    expect(out.slice(3)).toEqual([
      { seq: 3, attempt: 2, model: PRIMARY, kind: 'tool_call', text: '{"a":1}', tool: 'add' },
    ]);
  });
});

describe('watching a run', () => {
  const fx = useAgentFixture();
  /** A client with the workers' store, where it reads the runs' tokens. */
  const watching = (client: Client, taskQueue: string) => new AgentClient(client, taskQueue, { store: fx.store });

  it('delivers events and streamed tokens while the run works, follows continue-as-new, and ends with the run', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'A' }, id: 'toolu_w1' }], { text: FIRST }),
      reply.toolCalls([{ name: 'add', arguments: { a: 3, b: 4 }, id: 'toolu_w2' }]),
      reply.text(FINAL),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = watching(client, taskQueue);
      const id = await agents.start({
        session: { continueAsNewAfterTurns: 2 },
        task: 'Do step A, then add 3 and 4.',
        model: PRIMARY,
        stream: true,
      });
      const watch = collect(agents, id);

      // While the first tool is still running, the watcher already has the first answer, token by token.
      await waitFor(() => fx.calls.includes('slow_step:A'), 'the first tool to start');
      await waitFor(
        () =>
          Object.values(textBySeq(watch.items)).includes(FIRST) &&
          events(watch.items).some((e) => e.type === 'turn_end'),
        'the first answer on the watch',
      );
      expect(events(watch.items).map((e) => e.type)).not.toContain('tool_execution');
      const pieces = deltas(watch.items).filter((d) => d.kind === 'text');
      expect(pieces.length).toBeGreaterThan(0);
      expect(pieces.every((d) => d.model === PRIMARY && d.attempt === 1)).toBe(true);
      fx.latch.open();

      await watch.done;
      const result = await agents.result(id);
      expect(result).toMatchObject({ status: 'completed', finalText: FINAL, turns: 3 });
      const firstRunId =
        (await client.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
      await saveHistoryIfRecording(client.workflow.getHandle(id, firstRunId), 'agent-watch');
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-watch-continued');

      const types = events(watch.items).map((e) => e.type);
      expect(types.filter((t) => t === 'turn_start')).toHaveLength(3);
      expect(types).toContain('continued_as_new');
      expect(types.indexOf('continued_as_new')).toBeLessThan(types.lastIndexOf('turn_start'));
      expect(types[types.length - 1]).toBe('done');
      expect(
        events(watch.items)
          .filter((e) => e.type === 'tool_execution')
          .map((e) => (e as { tool: string }).tool),
      ).toEqual(['slow_step', 'add']);

      // Answers stream as written, tool arguments as JSON, the last answer's whole though the run
      // ends right after it (its tokens are in the store before its answer is recorded).
      const texts = textBySeq(watch.items);
      const args = textBySeq(watch.items, 'tool_call');
      expect(texts[1]).toBe(FIRST);
      expect(JSON.parse(args[1])).toEqual({ label: 'A' });
      expect(JSON.parse(args[3])).toEqual({ a: 3, b: 4 });
      expect(texts[5]).toBe(FINAL);
      expect(
        Object.keys(texts)
          .concat(Object.keys(args))
          .every((seq) => ['1', '3', '5'].includes(seq)),
      ).toBe(true);
      expect(events(watch.items).find((e) => e.type === 'done')).toMatchObject({
        stopReason: 'completed',
        finalText: FINAL,
        turns: 3,
      });

      // Offsets only grow, across the run boundary too, and token cursors too, so a watcher can resume
      // where it stopped; a token piece has the offset of the event before it.
      const offsets = watch.items.map((i) => i.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      const eventOffsets = watch.items.flatMap((i) => (i.topic === 'events' ? [i.offset] : []));
      expect(new Set(eventOffsets).size).toBe(eventOffsets.length);
      const cursors = watch.items.flatMap((i) => (i.topic === 'tokens' ? [i.cursor] : []));
      expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
      expect(new Set(cursors).size).toBe(cursors.length);
    });
  });

  it('refuses an unknown run with one clear line, and replays the kept events of a run that has ended', async () => {
    fx.fake.script(reply.text('Nothing to do.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = watching(client, taskQueue);
      const unknown = agents.watch('agent-no-such-run').next();
      await expect(unknown).rejects.toThrow(AgentClientError);
      await expect(unknown).rejects.toThrow('no agent run with id "agent-no-such-run"');

      const id = await agents.start({ task: 'Nothing.', model: PRIMARY });
      await agents.result(id);
      const items: WatchItem[] = [];
      for await (const item of agents.watch(id)) items.push(item);
      expect(events(items).map((e) => e.type)).toEqual(['turn_start', 'turn_end', 'done']);
    });
  });

  it('run --watch prints the events and the tokens as they come, then how the run ended; watch --json prints one object a line', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'C' }, id: 'toolu_cw' }], { text: 'Stepping first.' }),
      reply.text('It is done.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      // The CLI reads the tokens from the store its environment names, as the worker's does.
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const run = cli.run('run', '--model', PRIMARY, '--watch', 'Step, then say so.');
      // Printed while the tool is still running.
      await waitFor(
        () => fx.calls.includes('slow_step:C') && cli.printed().includes('(slow_step arguments) {"label":"C"}'),
        'the first answer on screen',
      );
      await waitFor(
        () => cli.printed().includes('[turn 1] tool slow_step (toolu_cw) started: {"label":"C"}'),
        'the tool start on screen',
      );
      expect(cli.printed()).not.toContain('tool slow_step (toolu_cw) ran');
      fx.latch.open();
      const printed = await run;
      // The id comes on stderr at once; stdout holds the live view.
      const id = /^run (step-then-say-so-[0-9a-f]{12}) started/m.exec(cli.notes())?.[1] as string;
      expect(id).toBeDefined();
      const lines = printed.split('\n');
      const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
      const order = [
        /^\[turn 1\] calling anthropic\/claude-sonnet-4-6$/,
        /^Stepping first\.$/,
        /^\(slow_step arguments\) \{"label":"C"\}$/,
        /^\[turn 1\] anthropic\/claude-sonnet-4-6 answered \(tool_use\): 1 tool call, \d+ in \/ \d+ out tokens$/,
        /^\[turn 1\] tool slow_step \(toolu_cw\) started: \{"label":"C"\}$/,
        /^\[turn 1\] tool slow_step \(toolu_cw\) ran in \d+ ms$/,
        /^ {4}-> \S/,
        /^\[turn 2\] calling/,
        /^It is done\.$/,
        /^\[turn 2\] done \(completed\) after 2 turns · \$\d+\.\d{4}$/,
      ].map(at);
      // One line tells how the run ended.
      expect(lines.filter((l) => l.includes('completed'))).toHaveLength(1);
      expect(order.every((i) => i >= 0)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(lines.filter((l) => l === 'It is done.')).toHaveLength(1);

      const watched = await cli.run('watch', id, '--json');
      const objects = watched.split('\n').map((l) => JSON.parse(l) as WatchItem);
      // Watched after its end, the run shows its answers' tokens where they came, each once.
      const kinds = objects.map((o) => (o.topic === 'events' ? o.event.type : 'tokens'));
      expect(kinds.filter((k, i) => k !== 'tokens' || kinds[i - 1] !== 'tokens')).toEqual([
        'turn_start',
        'tokens',
        'turn_end',
        'tool_start',
        'tool_execution',
        'turn_start',
        'tokens',
        'turn_end',
        'done',
      ]);
      const text = (o: WatchItem) => (o.topic === 'tokens' && o.delta.kind === 'text' ? o.delta.text : '');
      expect(objects.map(text).join('')).toBe('Stepping first.It is done.');
      const again = (await cli.run('watch', id)).split('\n');
      expect(again.filter((l) => l === 'It is done.')).toHaveLength(1);
    });
  });
});
