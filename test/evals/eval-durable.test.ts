/**
 * An eval is a durable workflow (docs/evals.md): its cases' runs are its children, each started
 * once, so a worker SIGKILLed mid-eval loses nothing and starts nothing twice; `eval status` reads
 * its progress, `eval cancel` cancels its running cases and the rest do not run; an unknown id is
 * bad input.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { EVAL_WORKFLOW, type EvalProgress } from '../../src/contracts/eval-workflow';
import { AgentClient } from '../../src/client';
import { PayloadTooLargeError } from '../../src/client/client-errors';
import { evalReport, startEval, waitForEval, type EvalCase } from '../../src/evals';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { lossScene } from '../kit/worker-loss';
import { useWorkerHosts } from '../kit/worker-process';
import { saveHistoryIfRecording, testConnection, useWorker } from '../kit/temporal';
import { Latch, PRIMARY, useAgentFixture, waitFor } from '../agent/agent-kit';
import { who } from '../agent/subagents-kit';

const answering = (name: string): EvalCase => ({
  name,
  task: `Case ${name}.`,
  graders: [
    { type: 'text_contains', text: `answer ${name}` },
    { type: 'stop_reason', is: 'completed' },
  ],
});
const CASES = ['a', 'b', 'c'].map(answering);

/** The children an eval started, from its history: each a start command of its own. */
async function childStarts(client: Client, id: string): Promise<string[]> {
  const { events } = await client.workflow.getHandle(id).fetchHistory();
  return (events ?? []).flatMap((e) => {
    const started = e.startChildWorkflowExecutionInitiatedEventAttributes;
    return started ? [started.workflowId ?? ''] : [];
  });
}

describe('an eval whose worker is SIGKILLed', () => {
  const hosts = useWorkerHosts('eval-worker-lost');

  it('finishes on a new worker, each case started and answered once', async () => {
    const answered: string[] = [];
    let hung = 0;
    hosts.fake.respond((request): FakeStep => {
      const { task } = who(request);
      const name = /^Case (\w)\./.exec(task)?.[1] ?? '?';
      // Case a's first call waits on the provider until its worker dies.
      if (name === 'a' && hung++ === 0) return reply.hang();
      answered.push(name);
      return reply.text(`The answer ${name}.`);
    });
    const { client, agents, replaceWorker } = await lossScene(hosts, 'eval-worker-lost');
    const id = await startEval(agents, CASES, { model: PRIMARY, fleet: { tenant: 'evals' }, parallel: 2 });
    await waitFor(() => hung === 1, 'case a’s model call on the first worker', 60_000);
    await replaceWorker();
    const progress = await waitForEval(agents, id);
    expect(progress.status).toBe('completed');
    expect(progress.cases.map((c) => [c.name, c.status, c.outcome?.pass])).toEqual([
      ['a', 'done', true],
      ['b', 'done', true],
      ['c', 'done', true],
    ]);
    expect((await childStarts(client, id)).sort()).toEqual([`${id}/case-1`, `${id}/case-2`, `${id}/case-3`]);
    expect(answered.sort()).toEqual(['a', 'b', 'c']);
    const report = await evalReport(agents, id, progress);
    expect(report.summary).toMatchObject({ cases: 3, passed: 3, pass: 1 });
    // The runs are the tenant's.
    const tenants = await Promise.all(
      progress.cases.map(async (c) => (await client.workflow.getHandle(c.id).describe()).searchAttributes),
    );
    for (const attributes of tenants) expect(attributes.DurableAgentTenant).toEqual(['evals']);
  }, 180_000);
});

describe('eval status and eval cancel', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));

  const cli = async (...args: string[]) => {
    const { address, namespace } = await testConnection();
    return runCli(['--task-queue', worker.taskQueue, 'eval', ...args], {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
    });
  };

  it('status shows the cases running and pending; cancel ends the running case as cancelled and runs no other', async () => {
    const latch = new Latch();
    fx.fake.respond(async (request): Promise<FakeStep> => {
      await latch.opened;
      return reply.text(`The answer ${who(request).task}`);
    });
    const file = path.join(fx.store.root, '..', `eval-cases-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(CASES));
    try {
      const started = await cli('run', file, '--model', PRIMARY, '--parallel', '1', '--detach');
      expect([started.code, started.stderr]).toEqual([0, '']);
      const id = started.stdout.trim();
      expect(id).toMatch(/^eval-a-and-2-more-[0-9a-f]{12}$/);
      await waitFor(() => fx.fake.requests.length === 1, 'case a’s model call');

      const status = await cli('status', id);
      expect(status.code).toBe(0);
      expect(status.stdout).toBe(
        `${id}: a and 2 more: running, 0/3 cases done (0 passed), 1 running, 2 pending\n` +
          `  a  running  ${id}/case-1\n  b  pending  ${id}/case-2\n  c  pending  ${id}/case-3\n`,
      );
      const json = JSON.parse((await cli('status', id, '--json')).stdout) as EvalProgress & { id: string };
      expect(json).toMatchObject({ id, status: 'running', cases: [{ status: 'running' }, {}, {}] });

      const cancelled = await cli('cancel', id);
      expect([cancelled.code, cancelled.stdout]).toEqual([
        0,
        `cancelling the eval ${id}: its running cases are cancelled\n`,
      ]);
      latch.open();
      const { client } = await testConnection();
      const handle = client.workflow.getHandle(id);
      const progress = (await handle.result()) as EvalProgress;
      expect(progress.status).toBe('cancelled');
      expect(progress.cases.map((c) => [c.status, c.outcome?.stopReason])).toEqual([
        ['done', 'cancelled'],
        ['not_run', undefined],
        ['not_run', undefined],
      ]);
      expect(await childStarts(client, id)).toEqual([`${id}/case-1`]);
      expect(fx.fake.requests).toHaveLength(1);

      const ended = await cli('status', id);
      expect(ended.code).toBe(1);
      expect(ended.stdout).toMatch(
        new RegExp(
          `^${id}: a and 2 more: cancelled, 1/3 cases done \\(0 passed\\), 0 running, 0 pending, 2 not run\\n`,
        ),
      );
      expect(ended.stdout).toMatch(/\na\s+FAIL\s+cancelled\s/);
      expect(ended.stderr).toBe(
        `durable-agents: gate failed: pass>=1: pass is 0\ndurable-agents: the eval ${id} was cancelled\n`,
      );
      const report = JSON.parse((await cli('report', id, '--json')).stdout) as { status: string; summary: object };
      expect(report).toMatchObject({ id, status: 'cancelled', summary: { cases: 1, passed: 0 } });
      const described = await handle.describe();
      expect(described.type).toBe(EVAL_WORKFLOW);
      // The Web UI names the eval and its cases.
      expect(await described.staticSummary()).toBe('eval a and 2 more: 3 cases');
      expect(await described.staticDetails()).toContain(`- b: \`${id}/case-2\``);
      await saveHistoryIfRecording(handle, 'eval-cancel');
    } finally {
      fs.rmSync(file, { force: true });
    }
  }, 120_000);

  it('grades a case whose run failed as failed, and finishes the others', async () => {
    fx.fake.respond((request): FakeStep => {
      const { task } = who(request);
      return task.startsWith('Case a.')
        ? reply.error(401)
        : reply.text(`The answer ${/^Case (\w)\./.exec(task)?.[1]}.`);
    });
    const { client } = await testConnection();
    const agents = fx.agents(client, worker.taskQueue);
    const id = await startEval(agents, CASES, { model: PRIMARY, fleet: { tenant: 'evals' }, parallel: 1 });
    const progress = await waitForEval(agents, id);
    expect(progress.status).toBe('completed');
    expect(progress.cases.map((c) => [c.name, c.status, c.outcome?.pass, c.outcome?.stopReason])).toEqual([
      ['a', 'done', false, 'error'],
      ['b', 'done', true, 'completed'],
      ['c', 'done', true, 'completed'],
    ]);
  });

  it('an eval whose input would not fit in one payload is refused before it starts, naming the way round', async () => {
    const { client } = await testConnection();
    const agents = new AgentClient(client, worker.taskQueue, { maxPayloadBytes: 4096 });
    const many = Array.from({ length: 40 }, (_, i) => answering(`case ${i}`));
    const before = fx.fake.requests.length;
    const refused = await startEval(agents, many, { model: PRIMARY, fleet: { tenant: 'evals' }, parallel: 2 }).catch(
      (e: Error) => e,
    );
    expect(refused).toBeInstanceOf(PayloadTooLargeError);
    expect((refused as Error).message).toMatch(
      /^the eval's input \(40 cases with their runs' starts\) is [\d.]+ KiB, over the configured payload limit of 4\.0 KiB: run the cases as several smaller evals$/,
    );
    // Nothing ran: no case reached the provider.
    expect(fx.fake.requests.length).toBe(before);
  });

  it('an id that names no eval is bad input: one line, exit 2', async () => {
    for (const command of ['status', 'report', 'cancel']) {
      const out = await cli(command, 'eval-nosuch');
      expect([command, out.code, out.stdout, out.stderr]).toEqual([
        command,
        2,
        '',
        'durable-agents: no eval "eval-nosuch"\n',
      ]);
    }
  });
});
