/**
 * PostgreSQL visibility reads a Text search attribute as a tsvector literal, in which `:` after a
 * word starts its positions and `\` escapes: a run whose task held them as they are would never be
 * written to visibility, so never listed. The run's `DurableAgentTask` keeps the words and drops
 * those characters, and the run is found like any other.
 */
import crypto from 'node:crypto';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';
import { eventually } from '../kit/eventually';

describe('a run whose task PostgreSQL would not read as text', () => {
  const fx = useAgentFixture();

  it('"Fix: the bug" is listed by `list` with its task and found by a visibility query on its words', async () => {
    fx.fake.script(reply.text('Fixed.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const id = `fix-the-bug-${crypto.randomUUID()}`;
      const cli = agentCli(client, taskQueue);
      await cli.run('run', '--id', id, '--model', PRIMARY, 'Fix: the bug in C:\\src\\app.ts');
      expect(await client.workflow.getHandle(id).result()).toMatchObject({ status: 'completed' });

      type Listed = { id: string; task?: string; agentStatus?: string };
      const listed = await eventually(
        async () =>
          (JSON.parse(await cli.run('list', '--json', '--limit', '200')) as Listed[]).find((r) => r.id === id),
        (entry) => entry?.agentStatus === 'completed',
        'the finished run in `list`',
      );
      expect(listed?.task).toBe('Fix the bug in C src app.ts');
      expect((await cli.run('list', '--limit', '200')).split('\n').find((l) => l.startsWith(id))).toContain(
        'Fix the bug in C src app.ts',
      );

      const found: string[] = [];
      const query = `WorkflowId = '${id}' AND DurableAgentTask = 'bug' AND ExecutionStatus = 'Completed'`;
      for await (const run of client.workflow.list({ query })) found.push(run.workflowId);
      expect(found).toEqual([id]);
      expect((await client.workflow.count(`DurableAgentTask = 'login' AND WorkflowId = '${id}'`)).count).toBe(0);
    });
  });
});
