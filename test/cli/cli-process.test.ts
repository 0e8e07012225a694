/**
 * The CLI as a user runs it, a new process each time: exit codes, the lines it prints at once,
 * the no-worker notice, Ctrl-C, a closed pipe, the server flags and the version.
 */
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { runCli, spawnCli, stopProcess, waitForOutput } from '../kit/cli';
import { REPO_ROOT } from '../kit/env';
import { testConnection, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

const EXIT = { ok: 0, failed: 1, usage: 2, stopped: 3, unreachable: 4, noWorker: 5, interrupted: 130 };

describe('the CLI as a process', () => {
  const fx = useAgentFixture();

  it('exits 0 for a completed run, 1 for a failed one, 3 for one that hit a limit, 2 for bad usage', async () => {
    const { address, namespace } = await testConnection();
    await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue };
      fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 4, b: 5 } }]), reply.text('Nine.'));
      const done = await runCli(['run', '--model', PRIMARY, '--tools', 'add', '--json', 'Add 4 and 5.'], { env });
      expect(done.code).toBe(EXIT.ok);
      expect(JSON.parse(done.stdout)).toMatchObject({ status: 'completed', finalText: 'Nine.' });
      // The id and the link come at once, on stderr: stdout holds only the JSON.
      const [started] = done.stderr.split('\n');
      expect(started).toMatch(new RegExp(`^run add-4-and-5-[0-9a-f]{12} started on task queue "${taskQueue}"$`));

      fx.fake.script(reply.error(401, { message: 'invalid x-api-key' }));
      const failed = await runCli(['run', '--model', PRIMARY, '--id', `failing-${crypto.randomUUID()}`, 'Hi.'], {
        env,
      });
      expect(failed.code).toBe(EXIT.failed);
      expect(failed.stdout).toContain('failed (error)');
      const id = /^run (\S+) started/.exec(failed.stderr)![1];
      expect((await runCli(['result', id], { env })).code).toBe(EXIT.failed);

      fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]));
      const limited = await runCli(['run', '--model', PRIMARY, '--max-turns', '1', '--json', 'Add.'], { env });
      expect(limited.code).toBe(EXIT.stopped);
      expect(JSON.parse(limited.stdout)).toMatchObject({ stopReason: 'max_turns' });

      const usage = await runCli(['run', '--model', PRIMARY, '--max-cost', 'lots', 'x'], { env });
      expect(usage.code).toBe(EXIT.usage);
      expect(usage.stderr).toBe(
        "durable-agents: option '--max-cost <usd>' argument 'lots' is invalid. \"lots\" is not a number of USD from 0.000001 to 1000000000. (see --help)\n",
      );
      const unknown = await runCli(['state', 'agent-nobody'], { env });
      expect(unknown.code).toBe(EXIT.usage);
      expect(unknown.stderr).toBe('durable-agents: no agent run with id "agent-nobody"\n');
      const provider = await runCli(['run', '--model', 'nowhere/m', 'x'], { env });
      expect(provider.code).toBe(EXIT.usage);
      expect(provider.stderr).toMatch(/^durable-agents: Unknown provider "nowhere"[^\n]*\n$/);
    });
  });

  it('says within seconds that no worker polls the queue, and at Ctrl-C how to reach the run that goes on', async () => {
    const { address, namespace, client } = await testConnection();
    const queue = `nobody-${crypto.randomUUID()}`;
    const id = `waiting-${crypto.randomUUID()}`;
    const child = spawnCli(['run', '--id', id, '--model', PRIMARY, '--task-queue', queue, 'Wait for a worker.'], {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace },
    });
    // Timed from the run's start: how long a process takes to start on a busy machine is not the point.
    let printed = '';
    let runStarted = 0;
    child.stderr?.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (runStarted === 0 && printed.includes(`run ${id} started`)) runStarted = Date.now();
    });
    const seen = await waitForOutput(child, /no worker is polling/, 'stderr');
    expect(runStarted).toBeGreaterThan(0);
    expect(Date.now() - runStarted).toBeLessThan(10_000);
    expect(seen).toContain(
      `no worker is polling task queue "${queue}": run ${id} waits until one does; start one with ` +
        `\`durable-agents worker --task-queue ${queue}\``,
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await stopProcess(child, 'SIGINT')).toBe(EXIT.interrupted);
    expect(stderr).toContain(`run ${id} goes on`);
    for (const command of ['watch', 'result', 'stop']) expect(stderr).toContain(`durable-agents ${command} ${id}`);
    expect((await client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');

    const state = await runCli(['state', id], { env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace } });
    expect(state.code).toBe(EXIT.noWorker);
    expect(state.stderr).toContain(`no worker is polling task queue "${queue}"`);
    await client.workflow.getHandle(id).terminate('test over');
  });

  it('at Ctrl-C while a run waits for an approval, names the commands that approve or reject the call', async () => {
    const { address, namespace } = await testConnection();
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'x.txt' }, id: 'toolu_int' }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const id = `interrupted-${crypto.randomUUID()}`;
      const child = spawnCli(['run', '--id', id, '--model', PRIMARY, '--approve', 'delete_file', 'Delete x.txt.'], {
        env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_TASK_QUEUE: taskQueue },
      });
      const seen = await waitForOutput(child, /reject: {2}durable-agents reject \S+ toolu_int/, 'stderr');
      expect(seen).toContain(`run ${id} waits for approval of delete_file toolu_int with {"path":"x.txt"}`);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await stopProcess(child, 'SIGINT')).toBe(EXIT.interrupted);
      expect(stderr).toContain(`run ${id} goes on`);
      expect(stderr).toContain(
        '  it waits for approval of delete_file toolu_int:\n' +
          `    approve: durable-agents approve ${id} toolu_int\n` +
          `    reject:  durable-agents reject ${id} toolu_int --reason TEXT\n`,
      );
      await client.workflow.getHandle(id).terminate('test over');
    });
  });

  it('run --detach says on stderr that no worker polls the queue, and returns', async () => {
    const { address, namespace, client } = await testConnection();
    const queue = `nobody-${crypto.randomUUID()}`;
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
    const alone = await runCli(['run', '--detach', '--model', PRIMARY, '--task-queue', queue, 'Wait for a worker.'], {
      env,
    });
    expect(alone.code).toBe(EXIT.ok);
    const id = alone.stdout.trim();
    // A notice is a line of its own with no prefix: only errors start with `durable-agents:`.
    expect(alone.stderr.split('\n')).toContain(
      `no worker is polling task queue "${queue}": run ${id} waits until one does; start one ` +
        `with \`durable-agents worker --task-queue ${queue}\``,
    );
    await client.workflow.getHandle(id).terminate('test over');
    await withWorker({ activities: fx.activities }, async ({ taskQueue }) => {
      fx.fake.script(reply.text('Here.'));
      const served = await runCli(['run', '--detach', '--model', PRIMARY, '--task-queue', taskQueue, 'Hi.'], { env });
      expect(served.code).toBe(EXIT.ok);
      expect(served.stderr).not.toContain('no worker');
      await client.workflow.getHandle(served.stdout.trim()).result();
    });
  });

  it('list | head -1 ends cleanly; --version; server flags over the environment; an unreachable server', async () => {
    const { address, namespace, client } = await testConnection();
    const queue = `nobody-${crypto.randomUUID()}`;
    const agents = new AgentClient(client, queue);
    // More than a pipe holds, so the CLI is still writing when head has gone.
    const long = 'a task with a long first line that fills the list '.repeat(3);
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, i) => agents.start({ task: `${long}${i}`, model: PRIMARY, id: `${queue}-${i}` })),
    );
    const cli = `${JSON.stringify(process.execPath)} -r ${path.join(REPO_ROOT, 'scripts', 'register-ts.js')} ${path.join(REPO_ROOT, 'test', 'kit', 'cli-main.ts')}`;
    const piped = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const sh = spawn(
        'bash',
        [
          '-c',
          `${cli} --address ${address} --namespace ${namespace} list --json --limit 500 | head -c 200; exit \${PIPESTATUS[0]}`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      sh.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      sh.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      sh.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(piped).toEqual({ code: 0, stdout: expect.stringMatching(/^\[/), stderr: '' });
    await Promise.all(ids.map((id) => client.workflow.getHandle(id).terminate('test over')));

    const kind = await runCli(['list', '--kind', 'bogus']);
    expect(kind.code).toBe(EXIT.usage);
    expect(kind.stderr).toMatch(/^durable-agents: [^\n]*"bogus" is not an agent kind \(react, [^\n]*pev[^\n]*\)/);
    expect(kind.stdout).toBe('');

    const version = await runCli(['--version']);
    expect(version).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });

    // The flag wins over the environment, and an unset address is named.
    const flagged = await runCli(['--address', address, '--namespace', namespace, 'list', '--limit', '1'], {
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    expect(flagged.code).toBe(EXIT.ok);
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: '' };
    const unset = await runCli(['list', '--json'], { env, replaceEnv: true });
    expect(unset.stderr).not.toContain('using the Temporal server');
    const verbose = await runCli(['list', '--verbose'], { env, replaceEnv: true });
    expect(verbose.stderr.split('\n')[0]).toBe(
      'using the Temporal server at localhost:7233, namespace default (the default: set ' +
        'TEMPORAL_ADDRESS or pass --address to choose another)',
    );
    const chosen = await runCli(['--verbose', '--address', address, '--namespace', namespace, 'list', '--json']);
    expect(chosen.code).toBe(EXIT.ok);
    expect(chosen.stderr).toBe(`using the Temporal server at ${address}, namespace ${namespace} (from --address)\n`);
    expect(JSON.parse(chosen.stdout)).toEqual(expect.any(Array));
    const unreachable = await runCli(['--address', '127.0.0.1:1', 'list']);
    expect(unreachable.code).toBe(EXIT.unreachable);
    expect(unreachable.stderr).toMatch(/^durable-agents: Cannot reach the Temporal server at --address=127\.0\.0\.1:1/);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
  });
});
