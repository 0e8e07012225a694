/**
 * What an operator sees of a run through the CLI and the server: summary, details and search
 * attributes from the start, meaningful ids, list filters, the commands that act on a run, and
 * answers without a worker.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient, RunClosedError } from '../../src/client';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../src/contracts/search-attributes';
import { stateQuery } from '../../src/contracts/agent-workflows';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { testConnection, withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture, waitFor, waitForState } from '../agent/agent-kit';
import { eventually } from '../kit/eventually';

describe('runs that say what they are', () => {
  const fx = useAgentFixture();

  it('a queued run has its summary, details and every search attribute before any worker polls', async () => {
    const { client } = await testConnection();
    const queue = `nobody-${crypto.randomUUID()}`;
    const cli = agentCli(client, queue);
    const id = `checklist-${crypto.randomUUID()}`;
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ws-'));
    await cli.run(
      'run',
      '--id',
      id,
      '--model',
      PRIMARY,
      '--fallback',
      FALLBACK,
      '--max-turns',
      '7',
      '--max-cost',
      '0.5',
      '--tool-timeout',
      'fs_read=30s',
      '--workspace',
      workspace,
      '--detach',
      'Summarise the open items of CHECKLIST.md\nand say which are late.',
    );
    expect(cli.notes()).toContain(`run ${id} started on task queue "${queue}"`);
    const described = await client.workflow.getHandle(id).describe();
    expect(await described.staticSummary()).toBe('react · Summarise the open items of CHECKLIST.md');
    const details = await described.staticDetails();
    for (const part of [PRIMARY, FALLBACK, '7 turns', '$0.5', 'fs_read timeout 30 s', workspace])
      expect(details).toContain(part);
    const sa = described.typedSearchAttributes;
    expect(Object.fromEntries(Object.values(SA).map((key) => [key.name, sa.get(key as never)]))).toEqual({
      DurableAgentKind: 'react',
      DurableAgentPhase: 'queued',
      DurableAgentModel: PRIMARY,
      DurableAgentStatus: 'running',
      DurableAgentAwaitingApproval: false,
      DurableAgentCostUsd: 0,
      DurableAgentTask: 'Summarise the open items of CHECKLIST.md',
    });
    const listed = await eventually(
      () => cli.run('list', '--kind', 'react', '--limit', '200'),
      (text) => text.includes(id),
      'the queued run in the list',
    );
    expect(listed.split('\n')[0]).toMatch(/^ID\s+KIND\s+STATUS\s+MODEL\s+COST\s+STARTED\s+(SCHEDULE\s+)?TASK$/);
    expect(listed.split('\n').find((l) => l.startsWith(id))).toContain('Summarise the open items of CHECKLIST.md');

    await expect(cli.run('run', '--id', id, '--model', PRIMARY, '--detach', 'again')).rejects.toThrow(
      `a run with id "${id}" already exists: choose another id`,
    );
    await new AgentClient(client, queue).terminate(id, 'test over');
    await expect(cli.run('run', '--id', id, '--model', PRIMARY, '--detach', 'again')).rejects.toThrow('already exists');
  });

  it('list filters by status, approval, model and kind', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'write_note', arguments: { text: 'x' }, id: 'toolu_wait' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const waiting = await cli.run('run', '--model', FALLBACK, '--approve', 'write_note', '--detach', 'Write x.');
      await waitForState(agents, waiting, (s) => s.status === 'awaiting_approval');
      const ids = async (...filters: string[]) =>
        (JSON.parse(await cli.run('list', '--json', '--limit', '500', ...filters)) as { id: string }[]).map(
          (r) => r.id,
        );
      expect(
        await eventually(
          () => ids('--awaiting-approval'),
          (l) => l.includes(waiting),
          'awaiting',
        ),
      ).toContain(waiting);
      expect(await ids('--status', 'awaiting_approval', '--model', FALLBACK, '--kind', 'react')).toContain(waiting);
      expect(await ids('--model', PRIMARY)).not.toContain(waiting);
      expect(await ids('--kind', 'pev')).not.toContain(waiting);
      expect(await ids('--status', 'completed')).not.toContain(waiting);
      await expect(cli.run('list', '--status', 'sleeping')).rejects.toThrow('"sleeping" is not a status');
      await expect(cli.run('list', '--model', "x' OR 1=1")).rejects.toThrow('may only hold');
      // An empty filter is bad input too, not a filter left out.
      await expect(cli.run('list', '--tenant', '')).rejects.toThrow('tenant "" may only hold');
      await cli.run('terminate', waiting);
    });
  });

  it('switch-model, tool-result, cancel and terminate reach the run; each answers with --json', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'pick_photo', arguments: { album: 'cats' }, id: 'toolu_photo' }]),
      reply.text('Picked the first cat.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const id = await cli.run('run', '--model', PRIMARY, '--detach', 'Pick a photo.');
      await waitForState(agents, id, (s) => s.status === 'awaiting_client_tools');
      expect(JSON.parse(await cli.run('switch-model', id, FALLBACK, '--json'))).toEqual({
        id,
        sent: 'model switch',
        model: FALLBACK,
        workerPolling: true,
      });
      await expect(cli.run('switch-model', id, 'nowhere/model-1')).rejects.toThrow('Unknown provider "nowhere"');
      await expect(cli.run('tool-result', id, 'toolu_photo', '{not json')).rejects.toThrow(
        'the tool result is not valid JSON',
      );
      expect(JSON.parse(await cli.run('tool-result', id, 'toolu_photo', '{"photo":"cat-1.jpg"}', '--json'))).toEqual({
        id,
        toolCallId: 'toolu_photo',
        accepted: true,
      });
      expect(JSON.parse(await cli.run('result', id, '--json'))).toMatchObject({
        status: 'completed',
        finalText: 'Picked the first cat.',
        model: FALLBACK,
      });
      expect(cli.exitCode()).toBe(0);
      // The switched model answered, and the tool result it read is the JSON given.
      const last = fx.fake.requests.at(-1)!;
      expect(last.api).toBe('openai');
      expect(JSON.stringify(last.body)).toContain('{\\"photo\\":\\"cat-1.jpg\\"}');

      fx.resetLatch();
      fx.fake.script(reply.toolCalls([{ name: 'slow_step', arguments: { label: 'cancel-me' } }]));
      const cancelled = await cli.run('run', '--model', PRIMARY, '--detach', 'Run the slow step.');
      await waitFor(() => fx.calls.includes('slow_step:cancel-me'), 'the slow step');
      expect(await cli.run('cancel', cancelled)).toBe(`cancellation requested for ${cancelled}`);
      fx.latch.open();
      expect(JSON.parse(await cli.run('result', cancelled, '--json'))).toMatchObject({ stopReason: 'cancelled' });
      expect(cli.exitCode()).toBe(3);

      fx.resetLatch();
      fx.fake.reset();
      fx.fake.script(reply.toolCalls([{ name: 'slow_step', arguments: { label: 'end-me' } }]));
      const ended = await cli.run('run', '--model', PRIMARY, '--detach', 'Run the slow step again.');
      await waitFor(() => fx.calls.includes('slow_step:end-me'), 'the second slow step');
      expect(JSON.parse(await cli.run('terminate', ended, '--reason', 'operator', '--json'))).toEqual({
        id: ended,
        terminated: true,
      });
      fx.latch.open();
      await expect(agents.result(ended)).rejects.toThrow(RunClosedError);
      await expect(cli.run('result', ended)).rejects.toThrow(`run "${ended}" was terminated: operator`);
    });
  });

  it('refuses an unknown provider, a bad MCP file and a missing task before anything starts', async () => {
    const { client } = await testConnection();
    const queue = `nobody-${crypto.randomUUID()}`;
    const cli = agentCli(client, queue);
    const agents = new AgentClient(client, queue);
    await expect(cli.run('run', '--model', 'nowhere/model-1', '--detach', 'x')).rejects.toThrow(
      /^Unknown provider "nowhere" in model spec "nowhere\/model-1"/,
    );
    await expect(cli.run('run', '--model', PRIMARY, '--fallback', 'acme/m', '--detach', 'x')).rejects.toThrow(
      'Unknown provider "acme"',
    );
    const mcp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-')), 'mcp.json');
    fs.writeFileSync(mcp, '{"mcpServers": {"files": {"args": []}}}');
    await expect(cli.run('run', '--model', PRIMARY, '--mcp', mcp, '--detach', 'x')).rejects.toThrow(
      'is not a valid mcpServers config',
    );
    fs.writeFileSync(mcp, '{"mcpServers": ');
    await expect(cli.run('run', '--model', PRIMARY, '--mcp', mcp, '--detach', 'x')).rejects.toThrow(
      `${mcp} is not valid JSON`,
    );
    await expect(cli.run('run', '--model', PRIMARY, '--detach')).rejects.toThrow('no task');
    await expect(cli.run('run', '--model', PRIMARY, '--task-file', mcp, '--detach', 'x')).rejects.toThrow(
      'either as an argument or with --task-file',
    );
    expect(await agents.list({ limit: 500 })).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ task: 'x' })]),
    );
  });

  it('state and trace of an ended run answer from its result when no worker polls; a running one says so', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]), reply.text('Three.'));
    const { client } = await testConnection();
    let id = '';
    let taskQueue = '';
    // A queue of its own: the worker stops when the block ends, not later with the file's.
    await withWorker({ activities: fx.activities, taskQueue: `ended-${crypto.randomUUID()}` }, async (w) => {
      taskQueue = w.taskQueue;
      id = await agentCli(client, taskQueue).run('run', '--model', PRIMARY, '--detach', 'Add 1 and 2.');
      await new AgentClient(client, taskQueue).result(id);
    });
    // The worker has stopped (its poller stays listed a while): the result answers.
    const cli = agentCli(client, taskQueue);
    const state = JSON.parse(await cli.run('state', id, '--json'));
    expect(state).toMatchObject({ id, status: 'completed', finalText: 'Three.', turn: 2, answeredFrom: 'result' });
    expect(cli.notes()).toContain('shown from its result (events and steps need a worker)');
    const trace = JSON.parse(await cli.run('trace', id, '--json'));
    expect(trace).toMatchObject({ id, status: 'completed', modelCalls: 2, tools: { add: { calls: 1 } }, steps: [] });
    const started = Date.now();
    const closedId = `closed-${crypto.randomUUID()}`;
    const queue = `nobody-${crypto.randomUUID()}`;
    const queued = agentCli(client, queue);
    await queued.run('run', '--id', closedId, '--model', PRIMARY, '--detach', 'Never picked up.');
    await expect(queued.run('state', closedId)).rejects.toThrow(
      `no worker is polling task queue "${queue}", so nobody can take the state query for run "${closedId}" now`,
    );
    await expect(queued.run('approve', closedId, 'c1')).rejects.toThrow('nobody can take an approval');
    expect(await queued.run('stop', closedId)).toBe(`stop sent to ${closedId}`);
    expect(queued.notes()).toContain(
      `no worker is polling task queue "${queue}" yet: run ${closedId} acts on the stop`,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    await new AgentClient(client, queue).terminate(closedId);
  });

  it('state and trace of an ended run answer at once from its result while the server refuses queries for a gone worker', async () => {
    fx.fake.script(reply.text('Done.'));
    const { client } = await testConnection();
    let id = '';
    let taskQueue = '';
    await withWorker({ activities: fx.activities, taskQueue: `gone-${crypto.randomUUID()}` }, async (w) => {
      taskQueue = w.taskQueue;
      id = await agentCli(client, taskQueue).run('run', '--model', PRIMARY, '--detach', 'Say done.');
      await new AgentClient(client, taskQueue).result(id);
    });
    // Some seconds after the worker stopped, the server refuses queries ("no poller seen for task
    // queue recently") while it still lists the worker's poller.
    let refused: unknown;
    for (let i = 0; i < 60 && !refused; i++) {
      refused = await client.connection
        .withDeadline(Date.now() + 2_000, () => client.workflow.getHandle(id).query(stateQuery))
        .then(
          () => undefined,
          (err: unknown) =>
            /FAILED_PRECONDITION|no poller/i.test(`${String(err)} ${String((err as Error).cause)}`) ? err : undefined,
        );
      if (!refused) await new Promise((r) => setTimeout(r, 500));
    }
    expect(refused).toBeDefined();
    const cli = agentCli(client, taskQueue);
    const started = Date.now();
    expect(JSON.parse(await cli.run('state', id, '--json'))).toMatchObject({
      id,
      finalText: 'Done.',
      answeredFrom: 'result',
    });
    expect(JSON.parse(await cli.run('trace', id, '--json'))).toMatchObject({ id, status: 'completed', modelCalls: 1 });
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('refuses a start whose options a JavaScript caller misspelt, naming each, and starts nothing', async () => {
    const { client } = await testConnection();
    const agents = new AgentClient(client, `nobody-${crypto.randomUUID()}`);
    const id = `misspelt-${crypto.randomUUID()}`;
    const options: Record<string, unknown> = { id, task: 'x', model: PRIMARY, limits: { maxTurn: 3 }, tols: {} };
    await expect(agents.start(options as never)).rejects.toThrow(
      'invalid run options: unknown option "tols" (did you mean "tools"?); ' +
        'unknown option "limits.maxTurn" (did you mean "maxTurns"?)',
    );
    await expect(client.workflow.getHandle(id).describe()).rejects.toThrow();
  });
});
