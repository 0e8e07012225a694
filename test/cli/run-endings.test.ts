/**
 * Every way a run ends is named the same everywhere: watchers of a cancelled run print its end line
 * and exit with the cancel code.
 */
import crypto from 'node:crypto';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
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
});
