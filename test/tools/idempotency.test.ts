import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ExecuteToolOutput } from '../../src/shared/tool-catalog';
import { ToolRegistry } from '../../src/tools';
import { TEST_ENV } from '../kit/env';
import { testConnection } from '../kit/temporal';
import { chargeTool } from './fixtures/charge-tool';
import { spawnTs } from './fixtures/ts-child';

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

describe('side-effecting tool on a real Temporal server', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-idem-'));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is retried with the same idempotency key after its worker is killed between the effect and completion', async () => {
    const { client, address, namespace } = await testConnection();
    const files = {
      ledger: path.join(dir, 'ledger.txt'),
      invocations: path.join(dir, 'invocations.txt'),
      killFile: path.join(dir, 'killed'),
    };
    const taskQueue = `tools-idempotency-${crypto.randomUUID()}`;
    const workerEnv = {
      TEMPORAL_TEST_ADDRESS: address,
      TEMPORAL_TEST_NAMESPACE: namespace,
      TEMPORAL_TEST_TASK_QUEUE: taskQueue,
      TEMPORAL_TEST_BUNDLE: process.env[TEST_ENV.bundlePath]!,
      CHARGE_LEDGER: files.ledger,
      CHARGE_INVOCATIONS: files.invocations,
      CHARGE_KILL_FILE: files.killFile,
    };
    const workerFile = path.join(__dirname, 'fixtures', 'tool-worker.ts');
    const catalog = await new ToolRegistry().register(chargeTool(files)).catalog({});

    const first = spawnTs(workerFile, workerEnv);
    children.push(first);
    const handle = await client.workflow.start('toolCallsWorkflow', {
      taskQueue,
      workflowId: `tools-idempotency-${crypto.randomUUID()}`,
      args: [
        { catalog, calls: [{ toolCallId: 'call-1', name: 'charge_card', args: { amountCents: 500 }, selection: {} }] },
      ],
    });
    expect(await exited(first)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(fs.readFileSync(files.ledger, 'utf8')).toBe(`${handle.firstExecutionRunId}:call-1 500\n`);

    const second = spawnTs(workerFile, workerEnv);
    children.push(second);
    const [result] = (await handle.result()) as ExecuteToolOutput[];
    second.kill('SIGTERM');
    await exited(second);

    const key = `${handle.firstExecutionRunId}:call-1`;
    expect(result).toMatchObject({ isError: false, content: `Already charged under ${key}.` });
    const invocations = fs.readFileSync(files.invocations, 'utf8').trim().split('\n');
    expect(invocations.map((line) => line.replace(/ pid=\d+$/, ''))).toEqual([`${key} attempt=1`, `${key} attempt=2`]);
    const pids = invocations.map((line) => line.match(/pid=(\d+)$/)![1]);
    expect(pids).toEqual([String(first.pid), String(second.pid)]);
    expect(fs.readFileSync(files.ledger, 'utf8')).toBe(`${key} 500\n`);

    const history = await handle.fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].activityTaskScheduledEventAttributes!.activityType!.name).toBe('executeTool');
    expect(defaultPayloadConverter.fromPayload(scheduled[0].userMetadata!.summary!)).toBe('tool: charge_card');
  });
});
