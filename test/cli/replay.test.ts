/**
 * `durable-agents replay` as a user runs it before a deploy: committed history files, runs fetched
 * by id and by visibility query from a real server, a changed workflow that must be caught, bad
 * input, and the JSON lines for CI.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { reply } from '../../src/testing/fake-provider';
import { runCli, type CliResult } from '../kit/cli';
import {
  CANARY_WORKFLOWS,
  HISTORIES_DIR,
  canaryBundle,
  testConnection,
  withWorker,
  workflowBundle,
} from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

const GOOD = path.relative(process.cwd(), path.join(HISTORIES_DIR, 'agent-multi-turn.json'));
/** The CLI against the jest run's server, replaying against the run's workflow bundle (or `bundle`). */
async function replay(args: string[], bundle = workflowBundle().codePath): Promise<CliResult> {
  const { address, namespace } = await testConnection();
  return runCli(['replay', ...args], {
    env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_WORKFLOW_BUNDLE: bundle },
  });
}

const lines = (text: string): string[] => text.split('\n').filter(Boolean);

/** Waits until visibility lists `n` runs for the query (it trails the server's writes). */
async function listed(client: Client, query: string, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await client.workflow.count(query)).count !== n) {
    if (Date.now() > deadline) throw new Error(`visibility never listed ${n} runs for ${query}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('durable-agents replay', () => {
  const fx = useAgentFixture();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-cli-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('passes a committed history that the workflow code still makes: exit 0, one OK line', async () => {
    const result = await replay([GOOD]);
    expect(result).toEqual({ code: 0, stdout: `OK ${GOOD}\n`, stderr: '' });
  });

  it('names the event where a changed workflow parts from the history: exit 1', async () => {
    const result = await replay(['--workflows', CANARY_WORKFLOWS, GOOD]);
    expect(result.code).toBe(1);
    expect(lines(result.stdout)).toEqual([
      `MISMATCH ${GOOD}: event 5: history recorded UpsertWorkflowSearchAttributes, the code did ScheduleActivityTask`,
    ]);
    expect(result.stderr).toBe('');
  });

  it('prints one JSON object per history with --json', async () => {
    const result = await replay(
      ['--json', GOOD, path.join(HISTORIES_DIR, 'hello-workflow.json')],
      await canaryBundle(),
    );
    expect(result.code).toBe(1);
    const [mismatch, failed] = lines(result.stdout).map((line) => JSON.parse(line));
    expect(mismatch).toEqual({
      name: GOOD,
      workflowId: 'agent-multi-turn',
      workflowType: 'reactAgentWorkflow',
      status: 'mismatch',
      eventId: 5,
      recorded: 'UpsertWorkflowSearchAttributes',
      code: 'ScheduleActivityTask',
      message: 'event 5: history recorded UpsertWorkflowSearchAttributes, the code did ScheduleActivityTask',
    });
    expect(failed).toMatchObject({
      workflowType: 'helloWorkflow',
      status: 'failed',
      message: 'the workflow code exports no workflow helloWorkflow',
    });
    const ok = await replay(['--json', GOOD]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      name: GOOD,
      workflowId: 'agent-multi-turn',
      workflowType: 'reactAgentWorkflow',
      status: 'ok',
    });
  });

  it('refuses a malformed file and an unknown workflow id with one line each (exit 2), and replays the rest', async () => {
    const broken = path.join(tmp, 'broken.json');
    fs.writeFileSync(broken, '{"events": [');
    const notHistory = path.join(tmp, 'not-history.json');
    fs.writeFileSync(notHistory, '{"name": "a package"}');
    const id = `nobody-${crypto.randomUUID()}`;
    const result = await replay([broken, notHistory, GOOD, '--workflow-id', id]);
    expect(result.code).toBe(2);
    expect(lines(result.stdout)).toEqual([`OK ${GOOD}`]);
    const errors = lines(result.stderr);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(new RegExp(`^durable-agents: ${broken} is not JSON: `));
    expect(errors[1]).toBe(`durable-agents: ${notHistory} is not a workflow history: expected {"events": [...]}`);
    expect(errors[2]).toBe(`durable-agents: no workflow "${id}" in namespace default`);

    const missing = await replay([path.join(tmp, 'missing.json')]);
    expect(missing).toEqual({
      code: 2,
      stdout: '',
      stderr: `durable-agents: cannot read ${path.join(tmp, 'missing.json')}: no such file\n`,
    });
  });

  it('refuses a query the server cannot read: exit 2, one line', async () => {
    const result = await replay(['--query', 'TaskQueue = = "x"']);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^durable-agents: the server refused --query "TaskQueue = = \\"x\\"": /);
  });

  it('replays the runs a query lists, fetched from the server, and by workflow id', async () => {
    const { client } = await testConnection();
    const ids = await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      fx.fake.script(
        reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
        reply.text('Three.'),
        reply.text('Hi.'),
      );
      const first = await agents.start({ task: 'Add 1 and 2.', model: PRIMARY });
      await agents.result(first);
      const second = await agents.start({ task: 'Say hi.', model: PRIMARY });
      await agents.result(second);
      return { taskQueue, first, second };
    });
    const query = `TaskQueue="${ids.taskQueue}"`;
    await listed(client, query, 2);
    const byQuery = await replay(['--query', query]);
    expect(byQuery.stderr).toBe('');
    expect(byQuery.code).toBe(0);
    expect(lines(byQuery.stdout).sort()).toEqual([`OK ${ids.first}`, `OK ${ids.second}`].sort());

    const limited = await replay(['--query', query, '--limit', '1', '--json']);
    expect(lines(limited.stdout)).toHaveLength(1);
    expect(JSON.parse(limited.stdout)).toMatchObject({ status: 'ok', runId: expect.any(String) });

    const byId = await replay(['--workflow-id', ids.first], await canaryBundle());
    expect(byId.code).toBe(1);
    expect(byId.stdout).toMatch(new RegExp(`^MISMATCH ${ids.first}: event \\d+: history recorded `));
  });

  it('replays the open runs on the task queue when given nothing to replay', async () => {
    const { client, address, namespace } = await testConnection();
    const taskQueue = `replay-open-${crypto.randomUUID()}`;
    const id = await fx.agents(client, taskQueue).start({ task: 'Wait for a worker.', model: PRIMARY });
    try {
      await listed(client, `TaskQueue="${taskQueue}" AND ExecutionStatus="Running"`, 1);
      const env = {
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
      };
      const open = await runCli(['--task-queue', taskQueue, 'replay'], { env });
      expect(open).toEqual({ code: 0, stdout: `OK ${id}\n`, stderr: '' });
      const none = await runCli(['--task-queue', `${taskQueue}-empty`, 'replay'], { env });
      expect(none.code).toBe(0);
      expect(none.stderr).toBe(
        `nothing to replay: no runs match TaskQueue="${taskQueue}-empty" AND ExecutionStatus="Running"\n`,
      );
    } finally {
      await client.workflow.getHandle(id).terminate('test over');
    }
  });
});
