// The first token's path at a watcher: N streaming one-turn runs started at once, each followed by
// its own `watch` (reading its tokens from the workers' store) from the moment its start returns.
// Per run, the time from the start request to the first token the watcher yields, split into hops
// by clocks of this one machine: the client's, the server's (history event times), the worker's
// (the run's token stream: when the model call began, when its first piece arrived) and the fake
// provider's (when the request arrived, when it sent its first delta).
import type { Client } from '@temporalio/client';
import { AgentClient, type ConversationReader } from '../src/client';
import type { StoredTokenRecord, TokenStreamReader } from '../src/contracts/token-stream';
import { TOKENS_TOPIC } from '../src/contracts/watch-topics';
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
  /** Each hop's p50 and p95 over the runs. */
  hops: Record<Hop, { p50: number; p95: number }>;
}

interface Watched {
  id: string;
  task: string;
  startedAt: number;
  watcherAt: number;
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

/**
 * Starts `runs` streaming runs of `task(i)` at once, each watched from its start's return until its
 * first token, then waits for every run to end.
 */
export async function firstTokenAtWatchers(
  client: Client,
  taskQueue: string,
  store: TokenStreamReader & ConversationReader,
  fake: FakeProvider,
  runs: number,
  task: (i: number) => string,
): Promise<FirstTokenFigures> {
  const agents = new AgentClient(client, taskQueue, { store });
  const watched = await Promise.all(
    Array.from({ length: runs }, async (_, i): Promise<Watched | undefined> => {
      const startedAt = Date.now();
      const id = await agents.start({ task: task(i), model: 'anthropic/claude-sonnet-4-6', stream: true });
      for await (const item of agents.watch(id))
        if (item.topic === TOKENS_TOPIC) return { id, task: task(i), startedAt, watcherAt: Date.now() };
      return undefined;
    }),
  );
  const found = watched.filter((w): w is Watched => w !== undefined);
  await Promise.all(found.map((w) => agents.result(w.id)));
  const hops = (await Promise.all(found.map((w) => hopsOf(client, store, fake, w)))).filter((h) => h !== undefined);
  const spread = (xs: number[]) => ({ p50: round(percentile(xs, 50)), p95: round(percentile(xs, 95)) });
  return {
    watcherMs: found.map((w) => w.watcherAt - w.startedAt),
    afterProviderMs: found.flatMap((w) => {
      const request = fake.requests.find((r) => r.stream && JSON.stringify(r.body.messages).includes(w.task));
      return request?.firstDeltaAt === undefined ? [] : [w.watcherAt - request.firstDeltaAt];
    }),
    hops: Object.fromEntries(HOPS.map((hop) => [hop, spread(hops.map((h) => h[hop]))])) as FirstTokenFigures['hops'],
  };
}
