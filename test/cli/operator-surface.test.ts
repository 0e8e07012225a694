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

/** Polls `fn` until it returns a value `ok` accepts (visibility is eventually consistent). */
async function eventually<T>(fn: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await fn();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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
      await cli.run('terminate', id);
      const row = async () =>
        (JSON.parse(await cli.run('list', '--json', '--limit', '200')) as Listed[]).find((r) => r.id === id);
      expect(await eventually(row, (r) => r?.status === 'TERMINATED', 'the run listed as terminated')).toMatchObject({
        agentStatus: 'terminated',
      });
      expect((await waiting()).map((r) => r.id)).not.toContain(id);
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
        `durable-agents: run ${id} waits for approval of delete_file toolu_fg with {"path":"old.txt"}\n` +
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
});
