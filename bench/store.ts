// Cost of a model call's view read (what `callModel` does before it calls the model) as a
// conversation grows, on both stores: a 1,000-turn tool-calling conversation (1 KiB model
// replies, 4 KiB tool results) written turn by turn, with the view read after every turn inside
// an activity context, as a worker does. Flat figures mean turn 1,000 costs what turn 10 does.
// "readingTheWholeLog" reads the same view outside an activity (no settled entries to reuse),
// as every call did before; "first read on a new worker" is one worker taking over at turn 1,000.
// PostgreSQL: DURABLE_AGENTS_STORE_URL when set, else a throwaway server started like the tests'.
// Prints only (one JSON object on stdout): records nothing in bench/results.
// Run: npm run bench (or node -r ./scripts/register-ts.js bench/store.ts [turns]).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { loadProviderView } from '../src/activities/agent/conversation-view';
import { FileContentStore, PostgresContentStore, type ContentStore } from '../src/store';
import { startPostgres } from '../test/kit/postgres';

const TURNS = Number(process.argv[2] ?? 1000);
const CHECKPOINTS = [10, 100, 1000].filter((t) => t <= TURNS);
/** Turns whose reads give each checkpoint's median (the checkpoint and the ones just before it). */
const WINDOW = 9;

const view = { fromSeq: 0, summaryTokens: 0 };

function assistant(turn: number) {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text: `${turn} ${'r'.repeat(1024)}` },
      { type: 'tool_call', id: `toolu_${turn}`, name: 'lookup', arguments: { n: turn } },
    ],
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    usage: { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 },
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    stopReason: 'tool_use',
    timestamp: turn,
  };
}

const toolResult = (turn: number) => ({
  role: 'tool_result',
  toolCallId: `toolu_${turn}`,
  toolName: 'lookup',
  content: [{ type: 'text', text: `${turn} ${'t'.repeat(4096)}` }],
  isError: false,
  timestamp: turn,
});

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number): number => Number(x.toFixed(3));

async function measure(name: string, open: () => Promise<ContentStore>): Promise<Record<string, unknown>> {
  const store = await open();
  const id = `bench-${crypto.randomUUID()}`;
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: id, runId: crypto.randomUUID() } });
  const read = (toSeq: number) => loadProviderView(store, id, view, toSeq, 'anthropic');
  const cached: Record<number, number[]> = {};
  const uncached: Record<number, number> = {};
  let seq = 0;
  await store.writeEntries(id, [
    {
      seq: seq++,
      kind: 'user',
      hash: await store.put({ role: 'user', content: 'Look up everything.', timestamp: 0 }, id),
    },
  ]);
  for (let turn = 1; turn <= TURNS; turn++) {
    const start = process.hrtime.bigint();
    const messages = (await env.run(read, seq)) as unknown[];
    const elapsed = ms(start);
    if (messages.length !== seq) throw new Error(`read ${messages.length} messages, expected ${seq}`);
    const checkpoint = CHECKPOINTS.find((c) => turn > c - WINDOW && turn <= c);
    if (checkpoint) (cached[checkpoint] ??= []).push(elapsed);
    if (CHECKPOINTS.includes(turn)) {
      const plain: number[] = [];
      for (let i = 0; i < 11; i++) {
        const t = process.hrtime.bigint();
        await read(seq);
        plain.push(ms(t));
      }
      uncached[turn] = median(plain);
    }
    const a = await store.put(assistant(turn), id);
    await store.writeEntries(id, [{ seq: seq++, kind: 'assistant', hash: a }]);
    const r = await store.put(toolResult(turn), id);
    await store.writeEntries(id, [{ seq: seq++, kind: 'tool_result', hash: r }]);
  }
  const fresh = await open();
  const takeover = new MockActivityEnvironment({ workflowExecution: { workflowId: id, runId: crypto.randomUUID() } });
  const start = process.hrtime.bigint();
  await takeover.run(() => loadProviderView(fresh, id, view, seq, 'anthropic'));
  const firstRead = ms(start);
  await fresh.close();
  await store.close();
  return {
    store: name,
    msPerViewRead: Object.fromEntries(CHECKPOINTS.map((c) => [`turn${c}`, round(median(cached[c]))])),
    readingTheWholeLog: Object.fromEntries(CHECKPOINTS.map((c) => [`turn${c}`, round(uncached[c])])),
    [`firstReadOnNewWorkerAtTurn${TURNS}`]: round(firstRead),
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
  const external = process.env.DURABLE_AGENTS_STORE_URL;
  const server = external ? undefined : await startPostgres();
  const url = external ?? server!.url;
  try {
    const results = [
      await measure('file', async () => new FileContentStore(dir)),
      await measure('postgres', () => PostgresContentStore.open(url)),
    ];
    console.log(JSON.stringify({ turns: TURNS, medianOverTurns: WINDOW, results }, null, 2));
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
