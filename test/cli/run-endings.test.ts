/**
 * Every way a run ends is named the same everywhere: watchers of a cancelled run print its end line
 * and exit with the cancel code; a run cut off by a limit is stopped to `list`, which finds it by its
 * stop reason (`DurableAgentStopReason`).
 */
import crypto from 'node:crypto';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../src/contracts/search-attributes';
import { PRIMARY, useAgentFixture, waitFor, waitForState } from '../agent/agent-kit';

describe('how a run ends, as a watcher sees it', () => {
  const fx = useAgentFixture();

  it('cancel ends watch and run --watch with the run end line and exit code 3', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_cw' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const id = `cancel-watch-${crypto.randomUUID()}`;
      const fg = agentCli(client, taskQueue);
      const running = fg.run(
        'run',
        '--id',
        id,
        '--model',
        PRIMARY,
        '--approve',
        'delete_file',
        '--watch',
        'Delete a.txt.',
      );
      await waitForState(fx.agents(client, taskQueue), id, (s) => s.status === 'awaiting_approval');
      const watcher = agentCli(client, taskQueue);
      const watching = watcher.run('watch', id);
      await waitFor(() => watcher.printed().includes('toolu_cw'), 'the watch to show the approval');
      // Quiet for a while, so both watchers wait by long-poll when the cancel comes.
      await new Promise((r) => setTimeout(r, 4_000));
      await agentCli(client, taskQueue).run('cancel', id);
      const [watched, ranWatched] = await Promise.all([watching, running]);
      expect(watcher.notes()).not.toMatch(/refused/);
      expect(watched).toMatch(/done \(cancelled\)/);
      expect(watcher.exitCode()).toBe(3);
      expect(fg.notes()).not.toMatch(/refused/);
      expect(ranWatched).toMatch(/done \(cancelled\)/);
      expect(fg.exitCode()).toBe(3);
    });
  });

  it('a run cut off by a limit is stopped to list, with its stop reason, and exits 3', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_lim' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const id = `max-turns-${crypto.randomUUID()}`;
      const cli = agentCli(client, taskQueue);
      const ran = await cli.run('run', '--id', id, '--model', PRIMARY, '--max-turns', '1', 'Add 1 and 2.');
      expect(ran).toMatch(/stopped \(max_turns\)/);
      expect(cli.exitCode()).toBe(3);
      const handle = client.workflow.getHandle(id);
      expect((await handle.describe()).typedSearchAttributes.get(SA.stopReason)).toBe('max_turns');
      await saveHistoryIfRecording(handle, 'agent-stop-reason-attribute');

      const listed = async (...filters: string[]) =>
        (JSON.parse(await cli.run('list', '--json', '--limit', '100', ...filters)) as { id: string }[]).map(
          (r) => r.id,
        );
      await waitForListed(() => listed('--stop-reason', 'max_turns'), id);
      expect(await listed('--status', 'stopped')).toContain(id);
      expect(await listed('--status', 'completed')).not.toContain(id);
      expect(await listed('--stop-reason', 'cancelled')).not.toContain(id);
      const [entry] = (
        JSON.parse(await cli.run('list', '--json', '--limit', '100')) as Record<string, unknown>[]
      ).filter((r) => r.id === id);
      expect(entry).toMatchObject({ agentStatus: 'stopped', stopReason: 'max_turns' });
      expect((await cli.run('list', '--limit', '100')).split('\n').find((l) => l.startsWith(id))).toContain(
        'stopped (max_turns)',
      );
      await expect(cli.run('list', '--stop-reason', 'tired')).rejects.toThrow('"tired" is not a stop reason');
    });
  });
});

describe('a run ended from outside', () => {
  const fx = useAgentFixture();

  it('state of a run terminated while it waited says terminated and offers no decision', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_term' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = await cli.run('run', '--model', PRIMARY, '--approve', 'delete_file', '--detach', 'Delete a.txt.');
      await waitForState(fx.agents(client, taskQueue), id, (s) => s.status === 'awaiting_approval');
      await client.workflow.getHandle(id).terminate('the operator ended it');

      const shown = await cli.run('state', id);
      expect(shown.split('\n')[0]).toBe(`${id} (react): terminated (while awaiting_approval)`);
      expect(shown).not.toMatch(/approve|reject|awaiting approval/);
      expect(JSON.parse(await cli.run('state', id, '--json'))).toMatchObject({
        closedAs: 'terminated',
        lastStatus: 'awaiting_approval',
        pendingApprovals: [],
      });
    });
  });
});

/** Waits until `ids` (a visibility query, which lags the run) holds `id`. */
async function waitForListed(ids: () => Promise<string[]>, id: string): Promise<void> {
  let last: string[] = [];
  for (let i = 0; i < 100 && !last.includes(id); i++) {
    last = await ids();
    if (!last.includes(id)) await new Promise((r) => setTimeout(r, 100));
  }
  expect(last).toContain(id);
}
