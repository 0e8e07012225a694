/**
 * The approvals inbox and decisions bound to what the approver saw, on the dev server: `approvals`
 * lists the pending calls of several runs with their arguments; `approve` and `reject` print the
 * arguments they decide on; a hash of other arguments is refused by the run; on a terminal
 * `approve` asks first (through an injected question here, and through a real pseudo-terminal).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { AgentClient, approvalArgsHash } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { REPO_ROOT } from '../kit/env';
import { testConnection, withWorker } from '../kit/temporal';
import { FALLBACK, useAgentFixture, waitForState } from '../agent/agent-kit';

interface InboxRow {
  runId: string;
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
  waitingSince?: string;
}

describe('approvals inbox and decisions', () => {
  const fx = useAgentFixture();

  /** Starts a run that asks to approve `call` and waits until it does. */
  async function waitingRun(
    cli: ReturnType<typeof agentCli>,
    agents: AgentClient,
    call: { name: string; arguments: Record<string, unknown>; id: string },
  ): Promise<string> {
    fx.fake.script(reply.toolCalls([call]));
    const id = await cli.run('run', '--model', FALLBACK, '--approve', call.name, '--detach', `Use ${call.name}.`);
    await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
    return id;
  }

  it('lists the pending calls of three runs with their arguments; decisions print the arguments they bind to', async () => {
    fx.fake.respond(() => reply.text('Done.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const a = await waitingRun(cli, agents, { name: 'delete_file', arguments: { path: 'old.log' }, id: 'call_a' });
      const b = await waitingRun(cli, agents, { name: 'write_note', arguments: { text: 'ship it' }, id: 'call_b' });
      const c = await waitingRun(cli, agents, { name: 'delete_file', arguments: { path: 'tmp/' }, id: 'call_c' });

      const inbox = JSON.parse(await cli.run('approvals', '--json')) as InboxRow[];
      const mine = inbox.filter((r) => [a, b, c].includes(r.runId));
      expect(mine).toEqual([
        expect.objectContaining({ runId: a, toolCallId: 'call_a', tool: 'delete_file', args: { path: 'old.log' } }),
        expect.objectContaining({ runId: b, toolCallId: 'call_b', tool: 'write_note', args: { text: 'ship it' } }),
        expect.objectContaining({ runId: c, toolCallId: 'call_c', tool: 'delete_file', args: { path: 'tmp/' } }),
      ]);
      for (const row of mine) {
        expect(row.argsHash).toBe(approvalArgsHash(row.args));
        expect(Date.parse(row.waitingSince ?? '')).toBeLessThanOrEqual(Date.now());
      }
      const table = await cli.run('approvals');
      expect(table.split('\n')[0]).toMatch(/^RUN\s+CALL\s+TOOL\s+WAITING SINCE\s+ARGUMENTS$/);
      expect(table.split('\n').find((l) => l.startsWith(b))).toMatch(
        /call_b\s+write_note\s+\S+Z\s+\{"text":"ship it"\}$/,
      );

      const otherHash = approvalArgsHash({ path: 'everything/' });
      await expect(cli.run('approve', a, 'call_a', '--args-hash', otherHash)).rejects.toThrow(
        `refused by run "${a}": the arguments of tool call call_a differ from the ones approved`,
      );
      expect(fx.calls).toEqual([]);
      expect((await agents.state(a)).pendingApprovals).toHaveLength(1);

      const approved = await cli.run('approve', a, 'call_a', '--args-hash', mine[0].argsHash);
      expect(approved.split('\n')).toEqual([
        `delete_file call_a in run ${a} (args hash ${mine[0].argsHash}):`,
        '  {',
        '    "path": "old.log"',
        '  }',
        'delete_file call_a: approved',
      ]);
      const rejected = await cli.run('reject', b, 'call_b', '--reason', 'not yet');
      expect(rejected).toContain('"text": "ship it"');
      expect(rejected.split('\n').at(-1)).toBe('write_note call_b: rejected');
      const decision = JSON.parse(await cli.run('approve', c, 'call_c', '--json'));
      expect(decision).toEqual({
        toolCallId: 'call_c',
        tool: 'delete_file',
        state: 'approved',
        args: { path: 'tmp/' },
        argsHash: mine[2].argsHash,
      });
      expect(cli.notes()).toContain(`delete_file call_c in run ${c}`);
      for (const id of [a, b, c]) await agents.result(id);
      expect(fx.calls.sort()).toEqual(['delete_file:old.log', 'delete_file:tmp/']);
      const after = JSON.parse(await cli.run('approvals', '--json')) as InboxRow[];
      expect(after.filter((r) => [a, b, c].includes(r.runId))).toEqual([]);
    });
  });

  it('approvals --tenant and list --tenant show only the runs of that tenant', async () => {
    fx.fake.respond(() => reply.text('Done.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const start = async (tenant: string, id: string) => {
        fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: `${tenant}.log` }, id }]));
        const run = await cli.run(
          'run',
          '--model',
          FALLBACK,
          '--tenant',
          tenant,
          '--approve',
          'delete_file',
          '--detach',
          'Delete the log.',
        );
        await waitForState(agents, run, (s) => s.status === 'awaiting_approval');
        return run;
      };
      const acme = await start('acme', 'call_acme');
      const globex = await start('globex', 'call_globex');
      const inbox = JSON.parse(await cli.run('approvals', '--json', '--tenant', 'acme')) as InboxRow[];
      expect(inbox.map((r) => [r.runId, r.toolCallId])).toEqual([[acme, 'call_acme']]);
      const listed = JSON.parse(await cli.run('list', '--json', '--tenant', 'globex')) as { id: string }[];
      expect(listed.map((r) => r.id)).toEqual([globex]);
      await Promise.all([acme, globex].map((id) => agents.terminate(id, 'test done')));
    });
  });

  it('on a terminal approve shows the arguments and sends nothing unless the person says yes', async () => {
    fx.fake.respond(() => reply.text('Done.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const questions: string[] = [];
      let answer = false;
      const cli = agentCli(
        client,
        taskQueue,
        {},
        {
          confirm: async (q) => {
            questions.push(q);
            return answer;
          },
        },
      );
      const agents = new AgentClient(client, taskQueue);
      const id = await waitingRun(cli, agents, { name: 'delete_file', arguments: { path: 'db.sqlite' }, id: 'call_t' });
      const declined = await cli.run('approve', id, 'call_t');
      expect(declined).toContain('"path": "db.sqlite"');
      expect(questions).toEqual(['approve these arguments? [y/N] ']);
      expect(cli.notes()).toContain('not approved: nothing was sent');
      expect(cli.exitCode()).toBe(1);
      expect((await agents.state(id)).pendingApprovals).toEqual([expect.objectContaining({ toolCallId: 'call_t' })]);

      expect(await cli.run('approve', id, 'call_t', '--yes')).toMatch(/delete_file call_t: approved$/);
      expect(questions).toHaveLength(1);
      await agents.result(id);
      expect(fx.calls).toEqual(['delete_file:db.sqlite']);

      const second = await waitingRun(cli, agents, { name: 'delete_file', arguments: { path: 'x' }, id: 'call_u' });
      answer = true;
      expect(await cli.run('approve', second, 'call_u')).toMatch(/delete_file call_u: approved$/);
      expect(questions).toHaveLength(2);
    });
  });

  it('approve in a pseudo-terminal prints the arguments, waits for the answer and approves on yes', async () => {
    fx.fake.respond(() => reply.text('Done.'));
    const { address, namespace } = await testConnection();
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const agents = new AgentClient(client, taskQueue);
      const id = await waitingRun(cli, agents, { name: 'write_note', arguments: { text: 'from a tty' }, id: 'call_p' });
      const node = [process.execPath, '-r', path.join(REPO_ROOT, 'scripts', 'register-ts.js')];
      const command = [...node, path.join(REPO_ROOT, 'test', 'kit', 'cli-main.ts'), 'approve', id, 'call_p'];
      // `script` runs the command on a new pseudo-terminal and relays our pipe to it.
      const child = spawn('script', ['-qefc', command.map((a) => `'${a}'`).join(' '), '/dev/null'], {
        env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let seen = '';
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('approve these arguments? [y/N]')) resolve();
        });
        child.once('close', () => reject(new Error(`ended before asking: ${seen}`)));
      });
      expect(seen).toContain('"text": "from a tty"');
      expect((await agents.state(id)).pendingApprovals).toHaveLength(1);
      child.stdin.write('y\n');
      expect(await closed).toBe(0);
      expect(seen).toContain('write_note call_p: approved');
      await agents.result(id);
      expect(fx.calls).toEqual(['write_note:from a tty']);
    });
  });
});
