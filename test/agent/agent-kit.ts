/**
 * What the agent workflow tests share: the fake provider behind the real LLM adapters, a content
 * store in a temporary directory, a tool registry with a few real tools, and polling helpers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { createAgentActivities } from '../../src/activities/agent';
import { createToolActivities } from '../../src/activities/tool-activities';
import { createEvalActivities } from '../../src/evals/grade-activity';
import { AgentClient } from '../../src/client';
import type { AgentResult, AgentStateView } from '../../src/contracts/agent-run';
import { llmClient, loadLlmConfig, type LlmConfig, type LlmConfigFile } from '../../src/llm';
import {
  fakeProviderEnv,
  startFakeProvider,
  type FakeProvider,
  type FakeStep,
  type RecordedRequest,
} from '../../src/testing/fake-provider';
import { ToolRegistry, defineTool, type ToolDefinition, type ToolRegistryOptions } from '../../src/tools';
import { FileContentStore } from '../../src/store';
import { useOnce } from '../kit/lifecycle';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';

export const PRIMARY = 'anthropic/claude-sonnet-4-6';
export const FALLBACK = 'openai/gpt-4o-mini';
export const CHEAP = 'openai/gpt-4.1-nano';

/** What `read_report` returns: about 20 KB, some 5,000 tokens by the runtime's estimate. */
const REPORT = Array.from(
  { length: 400 },
  (_, i) => `Report line ${String(i).padStart(3, '0')}: all quiet, nothing to add here.`,
).join('\n');

/** A latch a tool waits on, so a test can act while the tool is running. */
export class Latch {
  private release!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
}

export interface AgentFixture {
  fake: FakeProvider;
  /** The LLM config the activities were given: every built-in provider pointed at the fake. */
  llm: LlmConfig;
  store: FileContentStore;
  /** What the tools did, in order (`name:arg`). */
  calls: string[];
  /** `slow_step` waits on this before it returns. */
  latch: Latch;
  /** A fresh (closed) latch for the next test. */
  resetLatch(): void;
  activities: Record<string, unknown>;
  agents(client: Client, taskQueue: string): AgentClient;
  close(): Promise<void>;
}

/** The MCP part of a worker's config: its own servers and whether runs may bring theirs. */
export type WorkerMcp = Pick<ToolRegistryOptions, 'mcpServers' | 'runMcpConfigs'>;

function testTools(fixture: { calls: string[]; latch: () => Latch }, mcp: WorkerMcp = {}): ToolRegistry {
  const registry = new ToolRegistry(mcp);
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        fixture.calls.push(`add:${a}+${b}`);
        return String(a + b);
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      parameters: z.object({ text: z.string() }),
      sideEffects: true,
      execute: ({ text }) => {
        fixture.calls.push(`write_note:${text}`);
        return `wrote ${text.length} characters`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'slow_step',
      description: 'A step that takes a while.',
      parameters: z.object({ label: z.string() }),
      sideEffects: true,
      execute: async ({ label }, ctx) => {
        fixture.calls.push(`slow_step:${label}`);
        // Ends early when the activity is cancelled (worker shutdown after a timed-out attempt).
        const aborted = new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        await Promise.race([fixture.latch().opened, aborted]);
        return `step ${label} done`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'delete_file',
      description: 'Deletes a file.',
      parameters: z.object({ path: z.string() }),
      sideEffects: true,
      execute: ({ path: p }) => {
        fixture.calls.push(`delete_file:${p}`);
        return `deleted ${p}`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'read_report',
      description: 'Reads the long report (about 20 KB of text).',
      parameters: z.object({}),
      execute: () => {
        fixture.calls.push('read_report');
        return REPORT;
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'pick_photo',
      description: 'Lets the user pick a photo on their device.',
      parameters: z.object({ album: z.string() }),
      mode: 'client',
      execute: () => 'client tools never run on the worker',
    }),
  );
  return registry;
}

export interface AgentFixtureOptions {
  /** LLM config on top of the fake's providers (config-file models, timeouts). */
  llmConfig?: (fake: FakeProvider) => LlmConfigFile;
  /** Tools of this block only, beside the kit's. */
  tools?: ToolDefinition[];
  /** The worker's MCP servers and opt-in, built when the fixture starts. Default: none. */
  mcp?: () => WorkerMcp | Promise<WorkerMcp>;
}

/** A quick tool (no side effects, a short timeout), so a model call may run its calls itself: answers `entry N`. */
export const quickLookup = defineTool({
  name: 'lookup',
  description: 'Looks a number up.',
  parameters: z.object({ n: z.number() }),
  timeoutMs: 5_000,
  execute: ({ n }) => `entry ${n}`,
});

/** Starts the fake provider, builds an LLM config pointing every provider at it, builds the activities. */
export async function agentFixture(
  extraActivities: Record<string, unknown> = {},
  options: AgentFixtureOptions = {},
): Promise<AgentFixture> {
  const fake = await startFakeProvider();
  const llm = loadLlmConfig({ file: null, env: fakeProviderEnv(fake, 'test-key'), inline: options.llmConfig?.(fake) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-store-'));
  const store = new FileContentStore(dir);
  const fixture = { calls: [] as string[], latch: new Latch() };
  const registry = testTools({ calls: fixture.calls, latch: () => fixture.latch }, await options.mcp?.());
  for (const tool of options.tools ?? []) registry.register(tool);
  const activities = {
    ...createAgentActivities({ store, tools: createToolActivities(registry), llm: llmClient(llm) }),
    ...createEvalActivities(store),
    ...extraActivities,
  };
  return {
    fake,
    llm,
    store,
    calls: fixture.calls,
    get latch() {
      return fixture.latch;
    },
    resetLatch() {
      fixture.latch.open();
      fixture.latch = new Latch();
    },
    activities,
    agents: (client, taskQueue) => new AgentClient(client, taskQueue),
    async close() {
      fixture.latch.open();
      await fake.close();
      await registry.mcpPool.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls the run's state until `predicate` holds; fails with the last state after `timeoutMs`. */
export async function waitForState(
  agents: AgentClient,
  id: string,
  predicate: (s: AgentStateView) => boolean,
  timeoutMs = 30_000,
): Promise<AgentStateView> {
  const deadline = Date.now() + timeoutMs;
  let last: AgentStateView | undefined;
  while (Date.now() < deadline) {
    try {
      last = await agents.state(id);
      if (predicate(last)) return last;
    } catch {
      // the run may not have taken its first task yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `state of ${id} never matched; last: ${JSON.stringify(last && { status: last.status, turn: last.turn, events: last.events.map((e) => e.type) })}`,
  );
}

/** Polls until `predicate` holds. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Answers every request the script does not cover with `step`, but only once the returned latch
 * opens: a model call a test can act during.
 */
export function holdReply(fx: AgentFixture, step: FakeStep): Latch {
  const latch = new Latch();
  fx.fake.respond(async () => {
    await latch.opened;
    return step;
  });
  return latch;
}

/** Ids of tool calls in the conversation without a result; a conversation a model accepts has none. */
export function unansweredCalls(state: AgentStateView): string[] {
  const answered = new Set(state.messages.flatMap((m) => (m.kind === 'tool_result' ? [m.toolCallId] : [])));
  return state.messages.flatMap((m) => m.toolCallIds ?? []).filter((id) => !answered.has(id));
}

/** The stored bodies of the run's tool results, as JSON text, in log order. */
export async function toolResultTexts(fx: AgentFixture, state: AgentStateView): Promise<string[]> {
  const results = state.messages.filter((m) => m.kind === 'tool_result');
  return Promise.all(results.map(async (m) => JSON.stringify(await fx.store.get(m.hash))));
}

/** Text blocks of a recorded Anthropic request's messages, flattened per message. */
export function anthropicMessages(
  body: Record<string, unknown>,
): { role: string; blocks: Record<string, unknown>[] }[] {
  const messages = body.messages as { role: string; content: string | Record<string, unknown>[] }[];
  return messages.map((m) => ({
    role: m.role,
    blocks: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));
}

/** The tool results an Anthropic-format request carries, as text, in order. */
export function resultTexts(request: RecordedRequest): string[] {
  return anthropicMessages(request.body).flatMap((m) =>
    m.blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => (b.content as { text: string }[]).map((c) => c.text).join('')),
  );
}

/** Clears what one test leaves behind: the fake's script and requests, the tool log, the latch. */
export function resetFixture(fx: AgentFixture): void {
  fx.fake.reset();
  fx.calls.length = 0;
  fx.resetLatch();
}

/** The agent fixture for the enclosing describe block: started once, reset before each test, closed after. */
export const useAgentFixture = (
  extraActivities: Record<string, unknown> = {},
  options: AgentFixtureOptions = {},
): AgentFixture =>
  useOnce(
    () => agentFixture(extraActivities, options),
    (fx) => fx.close(),
    resetFixture,
  );

export interface CancelledRun<R> {
  result: R;
  state: AgentStateView;
  /** The workflow execution's status: a cancelled run still completes, with its result. */
  status: string;
}

/**
 * Starts a run, waits for `ready`, cancels the workflow, runs `release` (lets a held call end),
 * and returns what the run ended with; records its history as `history`. Every workflow task
 * replays the whole history (no workflow cache).
 */
export async function cancelRun<R = AgentResult>(
  fx: AgentFixture,
  run: {
    start: (agents: AgentClient, ctx: { client: Client; taskQueue: string }) => Promise<string>;
    ready: (agents: AgentClient, id: string) => Promise<unknown>;
    history: string;
    release?: () => void;
    /** Default: the fixture's agent activities. */
    activities?: object;
  },
): Promise<CancelledRun<R>> {
  const activities = run.activities ?? fx.activities;
  return withWorker({ activities, maxCachedWorkflows: 0 }, async ({ client, taskQueue }) => {
    const agents = fx.agents(client, taskQueue);
    const id = await run.start(agents, { client, taskQueue });
    await run.ready(agents, id);
    const handle = client.workflow.getHandle(id);
    await handle.cancel();
    run.release?.();
    const result = (await handle.result()) as R;
    await saveHistoryIfRecording(handle, run.history);
    return { result, state: await agents.state(id), status: (await handle.describe()).status.name };
  });
}

/**
 * What the run's timeline shows for its activities and waits, in history order: an activity as
 * `<activity type> • <summary>` (as the Web UI labels it), a timer by its summary alone.
 */
export async function timelineSummaries(handle: WorkflowHandle): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) => {
    const summary = event.userMetadata?.summary;
    if (!summary || !(event.activityTaskScheduledEventAttributes || event.timerStartedEventAttributes)) return [];
    const text = defaultPayloadConverter.fromPayload<string>(summary);
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return [activity ? `${activity} • ${text}` : text];
  });
}

/** The run's current details, as the Web UI reads them (the built-in metadata query: a worker must be polling). */
export async function currentDetailsOf(handle: WorkflowHandle): Promise<string> {
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}
