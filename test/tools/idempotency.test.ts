import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { defaultPayloadConverter } from '@temporalio/common';
import { AgentClient } from '../../src/client';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { TEST_ENV } from '../kit/env';
import { testConnection } from '../kit/temporal';
import { spawnTs } from './fixtures/ts-child';

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

describe('side-effecting tool on a real Temporal server', () => {
  let dir: string;
  let fake: FakeProvider;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-idem-'));
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is retried with the same idempotency key on the agent tool path after its worker is killed mid-call', async () => {
    const { client, address, namespace } = await testConnection();
    const files = {
      ledger: path.join(dir, 'ledger.txt'),
      invocations: path.join(dir, 'invocations.txt'),
      killFile: path.join(dir, 'killed'),
    };
    const taskQueue = `tools-idempotency-${crypto.randomUUID()}`;
    const workerEnv = {
      ...fakeProviderEnv(fake),
      TEMPORAL_TEST_ADDRESS: address,
      TEMPORAL_TEST_NAMESPACE: namespace,
      TEMPORAL_TEST_TASK_QUEUE: taskQueue,
      TEMPORAL_TEST_BUNDLE: process.env[TEST_ENV.bundlePath]!,
      CHARGE_LEDGER: files.ledger,
      CHARGE_INVOCATIONS: files.invocations,
      CHARGE_KILL_FILE: files.killFile,
      CHARGE_STORE_DIR: path.join(dir, 'store'),
    };
    const workerFile = path.join(__dirname, 'fixtures', 'tool-worker.ts');
    fake.script(
      reply.toolCalls([{ id: 'toolu_charge', name: 'charge_card', arguments: { amountCents: 500 } }]),
      reply.text('Charged.'),
    );

    const first = spawnTs(workerFile, workerEnv);
    children.push(first);
    const agents = new AgentClient(client, taskQueue);
    const id = await agents.start({ task: 'Charge 500 cents.', model: 'anthropic/claude-sonnet-4-6', tools: {} });
    const handle = client.workflow.getHandle(id);
    expect(await exited(first)).toEqual({ code: null, signal: 'SIGKILL' });
    const key = `${(await handle.describe()).runId}:toolu_charge`;
    expect(fs.readFileSync(files.ledger, 'utf8')).toBe(`${key} 500\n`);

    const second = spawnTs(workerFile, workerEnv);
    children.push(second);
    const result = await agents.result(id);
    second.kill('SIGTERM');
    await exited(second);

    expect(result).toMatchObject({ status: 'completed', finalText: 'Charged.' });
    // The model read the retried attempt's answer: the charge was not made twice.
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain(`Already charged under ${key}.`);
    const invocations = fs.readFileSync(files.invocations, 'utf8').trim().split('\n');
    expect(invocations.map((line) => line.replace(/ pid=\d+$/, ''))).toEqual([`${key} attempt=1`, `${key} attempt=2`]);
    const pids = invocations.map((line) => line.match(/pid=(\d+)$/)![1]);
    expect(pids).toEqual([String(first.pid), String(second.pid)]);
    expect(fs.readFileSync(files.ledger, 'utf8')).toBe(`${key} 500\n`);

    const history = await handle.fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    const toolRuns = scheduled.filter((e) => e.activityTaskScheduledEventAttributes!.activityType!.name === 'runTool');
    expect(toolRuns).toHaveLength(1);
    expect(defaultPayloadConverter.fromPayload(toolRuns[0].userMetadata!.summary!)).toBe(
      'tool charge_card amountCents=500',
    );
  });
});
