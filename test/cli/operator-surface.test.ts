/**
 * What an operator meets from the outside: runs ended from outside are not listed as waiting,
 * a waiting run says how to decide, failed runs keep stdout for the result, unknown names are not
 * accepted in silence, and notices only where they help.
 */
import crypto from 'node:crypto';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitFor, waitForState } from '../agent/agent-kit';
import { eventually } from '../kit/eventually';

interface Listed {
  id: string;
  status: string;
  agentStatus?: string;
}

describe('what an operator meets', () => {
  const fx = useAgentFixture();

  it('a terminated run that waited for an approval is listed as terminated, not as waiting', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_term' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `terminated-${crypto.randomUUID()}`;
      await cli.run('run', '--id', id, '--model', PRIMARY, '--approve', 'delete_file', '--detach', 'Delete a.txt.');
      await waitForState(fx.agents(client, taskQueue), id, (s) => s.status === 'awaiting_approval');
      const waiting = async () => JSON.parse(await cli.run('list', '--awaiting-approval', '--json')) as Listed[];
      await eventually(waiting, (runs) => runs.some((r) => r.id === id), 'the run listed as waiting');
      const inbox = async () =>
        (JSON.parse(await cli.run('approvals', '--json')) as { runId: string }[]).map((r) => r.runId);
      expect(await inbox()).toContain(id);
      await cli.run('terminate', id);
      const row = async () =>
        (JSON.parse(await cli.run('list', '--json', '--limit', '200')) as Listed[]).find((r) => r.id === id);
      expect(await eventually(row, (r) => r?.status === 'TERMINATED', 'the run listed as terminated')).toMatchObject({
        agentStatus: 'terminated',
      });
      expect((await waiting()).map((r) => r.id)).not.toContain(id);
      expect(await inbox()).not.toContain(id);
      const running = JSON.parse(await cli.run('list', '--status', 'awaiting_approval', '--json')) as Listed[];
      expect(running.map((r) => r.id)).not.toContain(id);
      const table = (await cli.run('list', '--limit', '200')).split('\n').find((line) => line.startsWith(id));
      expect(table?.split(/\s{2,}/)[2]).toBe('terminated');
    });
  });

  it('a failed run prints its error as one line on stderr and keeps stdout for the result', async () => {
    fx.fake.script(reply.error(401));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `failed-${crypto.randomUUID()}`;
      const printed = await cli.run('run', '--id', id, '--model', PRIMARY, 'Try with a revoked key.');
      expect(printed).toMatch(new RegExp(`^${id}: failed \\(error\\) after \\d+ turns? on ${PRIMARY} · `));
      expect(printed.split('\n')).toHaveLength(1);
      const errors = cli
        .notes()
        .split('\n')
        .filter((line) => line.includes('failed:'));
      expect(errors).toEqual([
        expect.stringMatching(new RegExp(`^durable-agents: run ${id} failed: LlmAuthentication: `)),
      ]);
      expect(cli.exitCode()).toBe(1);
    });
  });

  it('a completed run names its stop reason only when it differs from its status', async () => {
    fx.fake.script(reply.text('Done.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `completed-${crypto.randomUUID()}`;
      const printed = await cli.run('run', '--id', id, '--model', PRIMARY, 'Say done.');
      expect(printed).toContain(`${id}: completed after 1 turn on ${PRIMARY}`);
      expect(await cli.run('state', id)).toMatch(new RegExp(`^${id} \\(react\\): completed$`, 'm'));
      expect(await cli.run('trace', id)).toMatch(new RegExp(`^${id} \\(react\\): completed · 1 turn`));
    });
  });

  it('a foreground run waiting for an approval names the call, its arguments and the commands that decide it', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.txt' }, id: 'toolu_fg' }]),
      reply.text('Deleted old.txt.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `waiting-${crypto.randomUUID()}`;
      const run = cli.run('run', '--id', id, '--model', PRIMARY, '--approve', 'delete_file', 'Delete old.txt.');
      await waitFor(() => cli.notes().includes('toolu_fg'), 'the approval notice');
      expect(cli.notes()).toContain(
        `run ${id} waits for approval of delete_file toolu_fg with {"path":"old.txt"}\n` +
          `  approve: durable-agents approve ${id} toolu_fg\n` +
          `  reject:  durable-agents reject ${id} toolu_fg --reason TEXT\n`,
      );
      const state = await cli.run('state', id);
      expect(state).toContain(
        'awaiting approval: toolu_fg delete_file {"path":"old.txt"}\n' +
          `  approve: durable-agents approve ${id} toolu_fg\n` +
          `  reject:  durable-agents reject ${id} toolu_fg --reason TEXT`,
      );
      await cli.run('approve', id, 'toolu_fg');
      expect(await run).toMatch(/^Deleted old\.txt\./);
      expect(cli.notes().match(/waits for approval/g)).toHaveLength(1);
    });
    expect(fx.calls).toEqual(['delete_file:old.txt']);
  });

  it('a run allowing a tool the worker lacks fails before any model call, naming it and the tools there are', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `unknown-tool-${crypto.randomUUID()}`;
      await cli.run('run', '--id', id, '--model', PRIMARY, '--tools', 'add,nosuch_tool,fs_*', 'Add 1 and 1.');
      expect(cli.exitCode()).toBe(1);
      const [error] = cli
        .notes()
        .split('\n')
        .filter((line) => line.includes(' failed: '));
      expect(error).toBe(
        `durable-agents: run ${id} failed: UnknownTool: The run allows "nosuch_tool", but this worker has no tool ` +
          'of that name (its tools: add, delete_file, pick_photo, read_report, slow_step, write_note): fix the tool names',
      );
    });
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('warns once on stderr when a model of a known provider is not in the registry', async () => {
    fx.fake.script(reply.text('Hello.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      await cli.run('run', '--model', 'anthropic/claude-nonesuch-1', '--fallback', PRIMARY, 'Say hello.');
      const warnings = cli
        .notes()
        .split('\n')
        .filter((line) => line.includes('warning'));
      expect(warnings).toEqual([
        'warning: model "anthropic/claude-nonesuch-1" is not in the model registry, so its cost and ' +
          'limits cannot be computed (its cost reads $0): declare it under `models` in the LLM config file',
      ]);
      expect(cli.exitCode()).toBe(0);
    });
  });

  it('cancel and decisions on a run that has ended are refused as ended, like the other verbs', async () => {
    fx.fake.script(reply.text('Over.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `ended-${crypto.randomUUID()}`;
      await cli.run('run', '--id', id, '--model', PRIMARY, 'Say over.');
      await expect(cli.run('stop', id)).rejects.toThrow(`run "${id}" has already ended (completed)`);
      await expect(cli.run('cancel', id)).rejects.toThrow(`run "${id}" has already ended (completed)`);
      await expect(cli.run('approve', id, 'toolu_late')).rejects.toThrow(`run "${id}" has already ended (completed)`);
      await expect(cli.run('reject', id, 'toolu_late')).rejects.toThrow(`run "${id}" has already ended (completed)`);
    });
  });
});
