import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import type { PevStateView } from '../../src/contracts/pev-run';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FALLBACK, PRIMARY, answer, roleOf, systemOf, usePevFixture, waitFor } from './pev-kit';

const EXAMPLE_PROMPTS = path.join(__dirname, '../../prompts/examples/workspace-assistant');

describe('PEV through the CLI', () => {
  const fx = usePevFixture();

  it('state --json shows phase, cycle, round, current todo and todo statuses; result --json carries finalText and the todos', async () => {
    fx.fake.script(
      answer.plan([
        { id: 'task-1', description: 'Run the slow step' },
        { id: 'task-2', description: 'Add 1 and 1' },
      ]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'cli' } }]),
      answer.executed('slow step done'),
      answer.executed('2'),
      answer.verified('Done: the step ran and 1 + 1 = 2.'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      const { id } = JSON.parse(
        await cli(
          'run',
          '--agent',
          'pev',
          '--model',
          PRIMARY,
          '--detach',
          '--json',
          'Run the slow step, then add 1 and 1.',
        ),
      );
      await waitFor(() => fx.calls.includes('slow_step:cli'), 'the slow step');
      const state = JSON.parse(await cli('state', id, '--json'));
      expect(state).toMatchObject({
        kind: 'pev',
        pev: {
          phase: 'executing',
          cycle: 1,
          round: 1,
          currentTodoId: 'task-1',
          todos: [
            expect.objectContaining({ id: 'task-1', status: 'executing' }),
            expect.objectContaining({ id: 'task-2', status: 'pending' }),
          ],
        },
      });
      fx.latch.open();
      await waitForState(new AgentClient(client, taskQueue), id, (s) => s.status === 'completed');
      const result = JSON.parse(await cli('result', id, '--json'));
      expect(result).toMatchObject({
        kind: 'pev',
        stopReason: 'completed',
        finalText: 'Done: the step ran and 1 + 1 = 2.',
        todos: [
          expect.objectContaining({ id: 'task-1', status: 'completed', result: 'slow step done' }),
          expect.objectContaining({ id: 'task-2', status: 'completed', result: '2' }),
        ],
      });
    });
  });

  it('run --agent pev takes the mode, role models, prompts directory and limits; state shows the phase and todos', async () => {
    fx.fake.reset();
    fx.calls.length = 0;
    fx.resetLatch();
    fx.fake.script(
      answer.plan([{ id: 'step-1', description: 'Run the slow step' }], true),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'plan' } }]),
      answer.executed('ran it'),
      answer.verified('The slow step ran.'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const commands = agentCli(client, taskQueue);
      const cli = commands.run;
      const running = cli(
        'run',
        '--agent',
        'pev',
        '--model',
        PRIMARY,
        '--mode',
        'plan',
        '--role-model',
        `executor=${FALLBACK}`,
        '--prompts',
        EXAMPLE_PROMPTS,
        '--max-executor-rounds',
        '4',
        '--json',
        'Run the slow step.',
      );
      await waitFor(() => fx.calls.includes('slow_step:plan'), 'the slow step');
      // The run's id, as the foreground run told it (the file's earlier runs share the worker's queue).
      const id = /run (\S+) started on task queue/.exec(commands.notes())?.[1] ?? '';
      expect(await cli('state', id)).toMatch(
        /phase executing · cycle 1 · round 1 · todo step-1\n {2}\[executing\] step-1: Run the slow step/,
      );
      fx.latch.open();
      const result = JSON.parse(await running);
      expect(result).toMatchObject({
        kind: 'pev',
        finalText: 'The slow step ran.',
        todos: [expect.objectContaining({ id: 'step-1', status: 'completed' })],
        pev: { mode: 'plan' },
      });
    });
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'openai', 'openai', 'anthropic']);
    expect(String(fx.fake.requests[0].body.system ? JSON.stringify(fx.fake.requests[0].body.system) : '')).toContain(
      'Workspace assistant: planning',
    );
  });

  it('refuses PEV options for another agent kind and an unknown mode', async () => {
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      await expect(cli('run', '--model', PRIMARY, '--mode', 'plan', 'task')).rejects.toThrow(
        '--mode applies to --agent pev only',
      );
      await expect(
        cli('run', '--model', PRIMARY, '--mode', 'plan', '--max-cycles', '2', '--confirm-plan', 'task'),
      ).rejects.toThrow('--mode, --max-cycles and --confirm-plan apply to --agent pev only');
      await expect(cli('run', '--agent', 'pev', '--model', PRIMARY, '--mode', 'later', 'task')).rejects.toThrow(
        '"later" is not a mode (pev or plan)',
      );
      await expect(
        cli('run', '--agent', 'pev', '--model', PRIMARY, '--role-model', 'executor', 'task'),
      ).rejects.toThrow('is not role=provider/model');
    });
  });

  it("run --business-context and --role-context give each role the run's own context; misplaced ones are refused", async () => {
    fx.fake.reset();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pev-context-'));
    fs.writeFileSync(path.join(dir, 'shared.md'), 'Our customers are libraries.');
    fs.writeFileSync(path.join(dir, 'executor.md'), 'Never delete a catalogue record.');
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'List the records' }]),
      answer.executed('listed'),
      answer.verified('Listed the records.'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      const result = JSON.parse(
        await cli(
          'run',
          '--agent',
          'pev',
          '--model',
          PRIMARY,
          '--business-context',
          path.join(dir, 'shared.md'),
          '--role-context',
          `executor=${path.join(dir, 'executor.md')}`,
          '--json',
          'List the records.',
        ),
      );
      expect(result).toMatchObject({ status: 'completed', finalText: 'Listed the records.' });
      const systems = Object.fromEntries(fx.fake.requests.map((r) => [roleOf(r), systemOf(r)]));
      expect(Object.keys(systems).sort()).toEqual(['executor', 'planner', 'verifier']);
      for (const role of ['planner', 'executor', 'verifier'])
        expect(systems[role]).toContain('Our customers are libraries.');
      expect(systems.executor).toContain('Never delete a catalogue record.');
      expect(systems.planner).not.toContain('Never delete');

      const agents = new AgentClient(client, taskQueue);
      await expect(
        agents.start({ task: 't', model: PRIMARY, pev: { businessContext: { shared: 'x' } } }),
      ).rejects.toThrow('pev options apply to pev runs only, not react');
      await expect(
        agents.start({ task: 't', kind: 'pev', model: PRIMARY, pev: { businessContext: { roles: { critic: 'x' } } } }),
      ).rejects.toThrow('pev.businessContext.roles.critic: no such role; roles: planner, executor, verifier');
      await expect(
        cli('run', '--agent', 'pev', '--model', PRIMARY, '--role-context', 'executor', 'task'),
      ).rejects.toThrow('"executor" is not role=FILE');
      await expect(cli('run', '--model', PRIMARY, '--business-context', 'x.md', 'task')).rejects.toThrow(
        '--business-context applies to --agent pev only',
      );
      await expect(
        cli('run', '--agent', 'pev', '--model', PRIMARY, '--business-context', path.join(dir, 'none.md'), 'task'),
      ).rejects.toThrow(`--business-context ${path.join(dir, 'none.md')} cannot be read: ENOENT`);
    });
  });

  it('run --confirm-plan waits for `plan`, which rejects with feedback and then approves', async () => {
    fx.fake.reset();
    fx.calls.length = 0;
    fx.fake.script(
      answer.plan([{ id: 'step-1', description: 'Add 1 and 1' }]),
      answer.plan([{ id: 'step-1', description: 'Add 1 and 2' }]),
      answer.executed('3'),
      answer.verified('1 + 2 = 3'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue).run;
      const agents = new AgentClient(client, taskQueue);
      const id = await cli('run', '--agent', 'pev', '--model', PRIMARY, '--confirm-plan', '--detach', 'Add 1 and 2.');
      await waitForState(agents, id, (s) => (s as PevStateView).pev?.phase === 'confirming');
      // The approvals inbox lists the plan beside the tool calls, with the commands that decide it.
      let inbox = '';
      for (let tries = 0; tries < 100 && !inbox.includes(id); tries++) {
        inbox = await cli('approvals', '--limit', '1000');
        if (!inbox.includes(id)) await new Promise((r) => setTimeout(r, 200));
      }
      expect(inbox.split('\n').find((l) => l.startsWith(id))).toMatch(
        new RegExp(
          `^${id}\\s+a decision on the plan of cycle 1\\s+durable-agents plan ${id} \\| ` +
            `durable-agents plan ${id} --reject --feedback TEXT$`,
        ),
      );
      const listed = JSON.parse(await cli('approvals', '--json', '--limit', '1000')) as { runId: string }[];
      expect(listed.find((e) => e.runId === id)).toMatchObject({ waitsFor: 'a decision on the plan of cycle 1' });
      expect(await cli('plan', id, '--reject', '--feedback', 'It is 1 and 2.')).toBe('plan of cycle 1: rejected');
      await waitForState(
        agents,
        id,
        (s) => (s as PevStateView).pev?.phase === 'confirming' && fx.fake.requests.length === 2,
      );
      expect(await cli('state', id)).toContain('phase confirming · cycle 1 · round 0\n  [pending] step-1: Add 1 and 2');
      expect(await cli('plan', id)).toBe('plan of cycle 1: approved');
      expect(JSON.parse(await cli('result', id, '--json'))).toMatchObject({
        finalText: '1 + 2 = 3',
        todos: [expect.objectContaining({ description: 'Add 1 and 2' })],
      });
      // The trace gives each decision, with the rejection's feedback, where it came in the run.
      const notes = (await cli('trace', id))
        .split('\n')
        .filter((l) => /^ {4}(planning|confirming|executing|plan of)/.test(l))
        .map((l) => l.trim().replace(/after \d+ s/, 'after N s'));
      expect(notes).toEqual([
        'planning (cycle 1)',
        'confirming (cycle 1)',
        'plan of cycle 1 rejected after N s: It is 1 and 2.',
        'planning (cycle 1)',
        'confirming (cycle 1)',
        'plan of cycle 1 approved after N s',
        'executing todo step-1 (cycle 1)',
      ]);
    });
  });

  it('a foreground run waiting on its plan names `plan ID`, and so do its state and a refused approve', async () => {
    fx.fake.reset();
    fx.calls.length = 0;
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Add 2 and 2' }]),
      answer.executed('4'),
      answer.verified('2 + 2 = 4'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const id = `plan-waits-${crypto.randomUUID()}`;
      const run = cli.run('run', '--agent', 'pev', '--model', PRIMARY, '--confirm-plan', '--id', id, 'Add 2 and 2.');
      await waitFor(() => cli.notes().includes('waits for a decision on the plan'), 'the plan notice');
      expect(cli.notes()).toContain(
        `run ${id} waits for a decision on the plan of cycle 1\n` +
          `  approve: durable-agents plan ${id}\n` +
          `  reject:  durable-agents plan ${id} --reject --feedback TEXT\n` +
          `  read it: durable-agents state ${id}\n`,
      );
      expect(await cli.run('state', id)).toContain(
        'awaiting a decision on the plan of cycle 1:\n' +
          `  approve: durable-agents plan ${id}\n` +
          `  reject:  durable-agents plan ${id} --reject --feedback TEXT`,
      );
      await expect(cli.run('approve', id, 'task-1')).rejects.toThrow(
        `run "${id}" has no pending approval for tool call "task-1": it waits for a decision on the plan of cycle 1; ` +
          `approve it with \`durable-agents plan ${id}\``,
      );
      expect(await cli.run('plan', id)).toBe('plan of cycle 1: approved');
      expect(await run).toMatch(/^2 \+ 2 = 4/);
    });
  });
});
