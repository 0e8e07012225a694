// The first token's path at a watcher: N streaming one-turn runs started at once, each followed by
// its own `watch` (reading its tokens from the workers' store) from the moment its start returns.
// Twice: from the worker's own process, as an application that embeds the worker starts and watches
// runs (its starts may be eager), and from a client process of its own, as the CLI or a gateway
// apart from the workers does.
// Per run, the time from the start request to the first token the watcher yields, split into hops
// by clocks of this one machine: the client's, the server's (history event times), the worker's
// (the run's token stream: when the model call began, when its first piece arrived) and the fake
// provider's (when the request arrived, when it sent its first delta).
import { spawn } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client';
import { FileContentStore } from '../src/store';
import type { StoredTokenRecord, TokenStreamReader } from '../src/contracts/token-stream';
import { EVENTS_TOPIC, TOKENS_TOPIC } from '../src/contracts/watch-topics';
import type { FakeProvider } from '../src/testing/fake-provider';
import { eventMs, eventTypeName, percentile, round } from './kit';

/** The hops of the first token's path, in order; each from the end of the one before. */
export const HOPS = [
  'startToFirstWorkflowTask',
  'workflowTaskToModelCall',
  'modelCallToProviderRequest',
  'providerRequestToFirstDelta',
  'providerFirstDeltaToActivity',
  'activityToWatcher',
] as const;

type Hop = (typeof HOPS)[number];

export interface FirstTokenFigures {
  /** Start request to the watcher's first token, per run. */
  watcherMs: number[];
  /** The provider's first delta to the watcher's first token, per run. */
  afterProviderMs: number[];
  /** The share of watchers that gave the turn's start event before its first token. */
  inOrder: number;
  /** Each hop's p50 and p95 over the runs. */
  hops: Record<Hop, { p50: number; p95: number }>;
}

interface Watched {
  id: string;
  task: string;
  startedAt: number;
  watcherAt: number;
  /** Whether the watcher gave the turn's start event before the turn's first token, as it must. */
  inOrder: boolean;
}

/** The hops of one watched run, read from its history, its token stream and the fake's record of its request. */
async function hopsOf(
  client: Client,
  store: TokenStreamReader,
  fake: FakeProvider,
  run: Watched,
): Promise<Record<Hop, number> | undefined> {
  const history = await client.workflow.getHandle(run.id).fetchHistory();
  const task = history.events?.find((e) => eventTypeName(e) === 'WORKFLOW_TASK_STARTED');
  const { records } = await store.readTokens(run.id, 0);
  const call = records.find((r): r is StoredTokenRecord => r.type === 'start');
  const piece = records.find((r) => r.type === 'piece');
  const request = fake.requests.find((r) => r.stream && JSON.stringify(r.body.messages).includes(run.task));
  if (!task || !call || !piece || request?.firstDeltaAt === undefined) return undefined;
  const times = [
    run.startedAt,
    eventMs(task),
    call.at,
    request.receivedAt,
    request.firstDeltaAt,
    piece.at,
    run.watcherAt,
  ];
  return Object.fromEntries(HOPS.map((hop, i) => [hop, times[i + 1] - times[i]])) as Record<Hop, number>;
}

/** What the client process is told: where to start and watch, how many runs, and their task with `{i}` for the run's index. */
interface ClientOrder {
  address: string;
  taskQueue: string;
  storeDir: string;
  runs: number;
  task: string;
}

const taskOf = (order: Pick<ClientOrder, 'task'>, i: number): string => order.task.replace('{i}', String(i));

/** Starts the runs at once and watches each from its start's return until its first token. */
async function watchRuns(agents: AgentClient, order: Pick<ClientOrder, 'runs' | 'task'>): Promise<Watched[]> {
  const watched = await Promise.all(
    Array.from({ length: order.runs }, async (_, i): Promise<Watched | undefined> => {
      const task = taskOf(order, i);
      const startedAt = Date.now();
      const id = await agents.start({ task, model: 'anthropic/claude-sonnet-4-6', stream: true });
      let turnStarted = false;
      for await (const item of agents.watch(id)) {
        if (item.topic === TOKENS_TOPIC) return { id, task, startedAt, watcherAt: Date.now(), inOrder: turnStarted };
        if (item.topic === EVENTS_TOPIC && item.event.type === 'turn_start') turnStarted = true;
      }
      return undefined;
    }),
  );
  return watched.filter((w) => w !== undefined);
}

/**
 * The client process: {@link watchRuns} over a connection of its own, printed as JSON, then exits (a
 * watch left at its first token may still have a read in flight).
 */
async function clientMain(order: ClientOrder): Promise<void> {
  const connection = await Connection.connect({ address: order.address });
  const store = new FileContentStore(order.storeDir);
  const watched = await watchRuns(new AgentClient(new Client({ connection }), order.taskQueue, { store }), order);
  process.stdout.write(JSON.stringify(watched), () => process.exit(0));
}

/** Runs {@link clientMain} in a process of its own; the runs it watched. */
function watchFromClientProcess(order: ClientOrder): Promise<Watched[]> {
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', __filename, JSON.stringify(order)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Watched[]) : reject(new Error(`the client process exited with ${code}`)),
    );
  });
}

/**
 * Starts `runs` streaming runs of `task` (`{i}` the run's index) at once, each watched from its
 * start's return until its first token, then waits for every run to end. `from` is where the starts
 * and the watchers run: this process, through `client` (the worker's connection), or a client
 * process of their own.
 */
export async function firstTokenAtWatchers(
  client: Client,
  order: ClientOrder,
  fake: FakeProvider,
  from: 'worker process' | 'client process',
): Promise<FirstTokenFigures> {
  const store = new FileContentStore(order.storeDir);
  try {
    const found =
      from === 'client process'
        ? await watchFromClientProcess(order)
        : await watchRuns(new AgentClient(client, order.taskQueue, { store }), order);
    await Promise.all(found.map((w) => client.workflow.getHandle(w.id).result()));
    const hops = (await Promise.all(found.map((w) => hopsOf(client, store, fake, w)))).filter((h) => h !== undefined);
    const spread = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });
    return {
      watcherMs: found.map((w) => w.watcherAt - w.startedAt),
      afterProviderMs: found.flatMap((w) => {
        const request = fake.requests.find((r) => r.stream && JSON.stringify(r.body.messages).includes(w.task));
        return request?.firstDeltaAt === undefined ? [] : [w.watcherAt - request.firstDeltaAt];
      }),
      inOrder: found.filter((w) => w.inOrder).length / found.length,
      hops: Object.fromEntries(HOPS.map((hop) => [hop, spread(hops.map((h) => h[hop]))])) as FirstTokenFigures['hops'],
    };
  } finally {
    await store.close();
  }
}

if (require.main === module)
  clientMain(JSON.parse(process.argv[2]) as ClientOrder).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
