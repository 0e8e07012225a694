import crypto from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure, defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { createToolActivities } from '../../src/activities/tools';
import type { ExecuteToolOutput } from '../../src/shared/tool-catalog';
import { RetryableToolError, ToolRegistry, defineTool } from '../../src/tools';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';

function registry(executed: string[]): ToolRegistry {
  return new ToolRegistry()
    .register(
      defineTool({
        name: 'label',
        description: 'Returns its label',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => {
          executed.push(`label:${text}`);
          return `label ${text}`;
        },
      }),
    )
    .register(
      defineTool({
        name: 'flaky',
        description: 'Fails transiently, every time',
        parameters: z.object({}),
        retry: { maximumAttempts: 2, initialIntervalMs: 10 },
        execute: () => {
          executed.push('flaky');
          throw new RetryableToolError('upstream busy');
        },
      }),
    );
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

describe('toolCallsWorkflow on a real server', () => {
  it('runs each call as its own named activity, at most `parallelism` at once, in order, with failures as results', async () => {
    const executed: string[] = [];
    const tools = registry(executed);
    const catalog = await tools.catalog({});
    const calls = [
      ...['a', 'b', 'c', 'd'].map((text) => ({
        toolCallId: `call-${text}`,
        name: 'label',
        args: { text },
        selection: {},
      })),
      { toolCallId: 'call-x', name: 'no_such_tool', args: {}, selection: {} },
      { toolCallId: 'call-f', name: 'flaky', args: {}, selection: {} },
      { toolCallId: 'call-bad', name: 'label', args: { text: 7 }, selection: {} },
    ];
    const { results, history } = await withWorker(
      { activities: createToolActivities(tools) },
      async ({ client, taskQueue }) => {
        const handle = await client.workflow.start('toolCallsWorkflow', {
          taskQueue,
          workflowId: `tool-calls-${crypto.randomUUID()}`,
          args: [{ catalog, calls, parallelism: 2 }],
        });
        const results = (await handle.result()) as ExecuteToolOutput[];
        await saveHistoryIfRecording(handle, 'tool-calls');
        return { results, history: await handle.fetchHistory() };
      },
    );

    expect(results.map((r) => [r.isError, r.content.split('\n')[0]])).toEqual([
      [false, 'label a'],
      [false, 'label b'],
      [false, 'label c'],
      [false, 'label d'],
      [true, 'Unknown tool "no_such_tool". Available tools: label, flaky'],
      [true, 'Tool "flaky" failed: upstream busy'],
      [true, 'Tool "label": Invalid arguments:'],
    ]);
    expect(executed.filter((e) => e === 'flaky')).toHaveLength(2);
    expect(executed.filter((e) => e.startsWith('label')).sort()).toEqual(['label:a', 'label:b', 'label:c', 'label:d']);

    const events: HistoryEvent[] = history.events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    // No activity for the unknown tool; one per other call (retries are attempts of the same activity).
    expect(scheduled).toHaveLength(6);
    expect(scheduled.map((e) => defaultPayloadConverter.fromPayload(e.userMetadata!.summary!))).toEqual(
      expect.arrayContaining(['tool: label', 'tool: flaky']),
    );
    // The first workflow task schedules only `parallelism` activities.
    const firstTaskEnd = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
    const firstBatch = events.slice(firstTaskEnd + 1).findIndex((e) => !e.activityTaskScheduledEventAttributes);
    expect(firstBatch).toBe(2);
  });
});

describe('cancelling a run with a tool call in flight', () => {
  it('reaches the running tool through heartbeats and aborts its signal', async () => {
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    let markAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (markAborted = resolve));
    const tools = new ToolRegistry().register(
      defineTool({
        name: 'long_job',
        description: 'Runs until cancelled',
        parameters: z.object({}),
        timeoutMs: 120_000,
        execute: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              markAborted();
              resolve('stopped');
            });
            markStarted();
          }),
      }),
    );
    const catalog = await tools.catalog({});
    const failure = await withWorker({ activities: createToolActivities(tools) }, async ({ client, taskQueue }) => {
      const handle = await client.workflow.start('toolCallsWorkflow', {
        taskQueue,
        workflowId: `tool-cancel-${crypto.randomUUID()}`,
        args: [{ catalog, calls: [{ toolCallId: 'call-long', name: 'long_job', args: {}, selection: {} }] }],
      });
      await started;
      await handle.cancel();
      await aborted;
      return handle.result().then(
        () => undefined,
        (err: unknown) => err,
      );
    });
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  });
});
