/**
 * Schedules on the dev server: a schedule keeps the run's options, starts runs that carry its name
 * and show it in `list`, can be paused, unpaused, triggered and deleted; bad input is one line.
 */
import crypto from 'node:crypto';
import { AgentClient } from '../../src/client';
import { SCHEDULED_BY } from '../../src/contracts/search-attributes';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { runCli } from '../kit/cli';
import { testConnection, withWorker } from '../kit/temporal';
import { FALLBACK, useAgentFixture } from '../agent/agent-kit';
import { eventually } from '../kit/eventually';
import { usd } from '../../src/common/decimal';

const uniqueName = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

describe('schedules', () => {
  const fx = useAgentFixture();

  it('a triggered schedule starts a run with its options that carries its name and shows it in list', async () => {
    fx.fake.respond(() => reply.text('Inbox summarised.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const name = uniqueName('morning');
      const created = await cli.run(
        'schedule',
        'create',
        name,
        '--every',
        '1d',
        '--model',
        FALLBACK,
        '--max-turns',
        '3',
        '--approve',
        'write_note',
        '--system-prompt',
        'Be brief.',
        '--temperature',
        '0.2',
        '--max-output-tokens',
        '800',
        '--tenant',
        'acme',
        '--stream',
        'Summarise the inbox.',
      );
      expect(created).toMatch(new RegExp(`^schedule ${name} created: every 24 h, overlap skip; next run \\d{4}-`));
      try {
        const described = JSON.parse(await cli.run('schedule', 'describe', name, '--json'));
        expect(described).toMatchObject({
          name,
          timing: 'every 24 h',
          paused: false,
          overlap: 'skip',
          kind: 'react',
          model: FALLBACK,
          task: 'Summarise the inbox.',
          taskQueue,
          recentRuns: [],
        });
        const action = (await client.schedule.getHandle(name).describe()).action;
        expect(action.args?.[0]).toMatchObject({
          config: {
            task: 'Summarise the inbox.',
            limits: { maxTurns: 3 },
            tools: { approve: ['write_note'] },
            systemPrompt: 'Be brief.',
            call: { temperature: 0.2, maxTokens: 800 },
            fleet: { tenant: 'acme' },
            stream: true,
          },
        });

        expect(await cli.run('schedule', 'trigger', name)).toBe(`schedule ${name} triggered`);
        const { recentRuns } = await eventually(
          async () =>
            JSON.parse(await cli.run('schedule', 'describe', name, '--json')) as {
              recentRuns: { id: string; startedAt: string }[];
            },
          (s) => s.recentRuns.length === 1,
          'the triggered run',
        );
        const runId = recentRuns[0].id;
        expect(runId.startsWith(`${name}-`)).toBe(true);
        const result = await new AgentClient(client, taskQueue).result(runId);
        expect(result).toMatchObject({ status: 'completed', finalText: 'Inbox summarised.' });
        // The scheduled run asked its model as the options said.
        const sent = fx.fake.requests[fx.fake.requests.length - 1].body as { temperature?: number; messages: unknown };
        expect(sent.temperature).toBe(0.2);
        expect(JSON.stringify(sent.messages)).toContain('Be brief.');
        // describe shows how each recent run ended and what it cost.
        const withOutcome = JSON.parse(await cli.run('schedule', 'describe', name, '--json')) as {
          recentRuns: { costUsd: number }[];
        };
        expect(withOutcome.recentRuns).toEqual([
          {
            id: runId,
            startedAt: expect.any(String),
            status: 'completed',
            stopReason: 'completed',
            costUsd: expect.any(Number),
          },
        ]);
        expect((await cli.run('schedule', 'describe', name)).split('\n')).toEqual(
          expect.arrayContaining([
            'recent runs:',
            `  ${runId} started ${recentRuns[0].startedAt.replace(/\.\d+Z$/, 'Z')}: completed, ` +
              usd(withOutcome.recentRuns[0].costUsd),
          ]),
        );
        const described2 = await client.workflow.getHandle(runId).describe();
        expect(described2.typedSearchAttributes.get(SCHEDULED_BY)).toBe(name);
        expect(await described2.staticSummary()).toBe('react · Summarise the inbox.');

        const listed = await eventually(
          () => cli.run('list', '--schedule', name),
          (text) => text.includes(runId),
          'the scheduled run in list',
        );
        const [header, row] = listed.split('\n');
        expect(header).toMatch(/^ID\s+KIND\s+STATUS\s+MODEL\s+COST\s+STARTED\s+SCHEDULE\s+TASK$/);
        expect(row).toMatch(new RegExp(`^${runId}\\s+react\\s+completed\\s+${FALLBACK}\\s.*\\s${name}\\s+Summarise`));
        expect(JSON.parse(await cli.run('list', '--schedule', name, '--json'))).toEqual([
          expect.objectContaining({ id: runId, schedule: name }),
        ]);
        expect(await cli.run('list', '--schedule', uniqueName('other'))).toBe('no agent runs');
      } finally {
        await cli.run('schedule', 'delete', name);
      }
    });
  });

  it('an interval schedule starts runs by itself until it is paused', async () => {
    fx.fake.respond(() => reply.text('Tick.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const name = uniqueName('tick');
      await cli.run(
        'schedule',
        'create',
        name,
        '--every',
        '1s',
        '--overlap',
        'allow_all',
        '--model',
        FALLBACK,
        'Tick.',
      );
      try {
        const runs = await eventually(
          async () => JSON.parse(await cli.run('list', '--schedule', name, '--json')) as { id: string }[],
          (l) => l.length >= 2,
          'two runs of the interval schedule',
        );
        expect(runs.every((r) => r.id.startsWith(`${name}-`))).toBe(true);
        expect(await cli.run('schedule', 'pause', name, '--note', 'enough ticks')).toBe(`schedule ${name} paused`);
        expect(JSON.parse(await cli.run('schedule', 'describe', name, '--json'))).toMatchObject({
          paused: true,
          note: 'enough ticks',
          overlap: 'allow_all',
          timing: 'every 1 s',
        });
      } finally {
        await cli.run('schedule', 'delete', name);
      }
    });
  });

  it('trigger refuses a paused schedule with exit code 2; --force starts one run, which describe shows ended', async () => {
    fx.fake.respond(() => reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      const name = uniqueName('held');
      await cli.run(
        'schedule',
        'create',
        name,
        '--every',
        '1d',
        '--paused',
        '--note',
        'venue closed',
        '--model',
        FALLBACK,
        '--max-turns',
        '1',
        'Add 1 and 2.',
      );
      try {
        const { address, namespace } = await testConnection();
        const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
        const refused = await runCli(['--task-queue', taskQueue, 'schedule', 'trigger', name], { env });
        expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
          code: 2,
          stdout: '',
          stderr:
            `durable-agents: schedule "${name}" is paused (venue closed), so nothing was started: unpause it ` +
            `(durable-agents schedule unpause ${name}), or start one run while it stays paused ` +
            `(durable-agents schedule trigger ${name} --force)\n`,
        });
        expect(JSON.parse(await cli.run('schedule', 'describe', name, '--json'))).toMatchObject({ actionsTaken: 0 });

        expect(await cli.run('schedule', 'trigger', name, '--force')).toBe(
          `schedule ${name} triggered while paused: one run starts now, and the schedule stays paused`,
        );
        const { recentRuns } = await eventually(
          async () =>
            JSON.parse(await cli.run('schedule', 'describe', name, '--json')) as {
              paused: boolean;
              recentRuns: { id: string; status?: string }[];
            },
          (s) => s.recentRuns.length === 1 && s.recentRuns[0].status !== 'running',
          'the forced run, ended',
        );
        expect(recentRuns[0]).toMatchObject({
          status: 'stopped',
          stopReason: 'max_turns',
          costUsd: expect.any(Number),
        });
        const text = await cli.run('schedule', 'describe', name);
        expect(text.split('\n')[0]).toBe(`schedule ${name}: every 24 h, overlap skip, paused (venue closed)`);
        expect(text).toMatch(
          new RegExp(`^  ${recentRuns[0].id} started \\S+: stopped \\(max_turns\\), \\$\\d+\\.\\d{4}$`, 'm'),
        );
      } finally {
        await cli.run('schedule', 'delete', name);
      }
    });
  });

  it('list, pause, unpause and delete act on the named schedule; unknown names and duplicates are refused', async () => {
    const { client } = await testConnection();
    const cli = agentCli(client, `nobody-${crypto.randomUUID()}`);
    const name = uniqueName('weekday');
    await cli.run('schedule', 'create', name, '--cron', '0 9 * * MON-FRI', '--paused', '--model', FALLBACK, 'Plan.');
    try {
      await expect(cli.run('schedule', 'create', name, '--every', '1h', '--model', FALLBACK, 'Again.')).rejects.toThrow(
        `a schedule named "${name}" already exists: choose another name or delete it first`,
      );
      const row = await eventually(
        async () => (await cli.run('schedule', 'list')).split('\n').find((l) => l.startsWith(`${name} `)),
        (r) => r !== undefined,
        'the schedule in the list',
      );
      expect(row).toMatch(new RegExp(`^${name}\\s+cron 0 9 \\* \\* MON-FRI\\s+paused\\s`));
      const text = await cli.run('schedule', 'describe', name);
      expect(text.split('\n')[0]).toBe(`schedule ${name}: cron 0 9 * * MON-FRI, overlap skip, paused`);
      // A paused schedule starts nothing: it shows no next run.
      expect(text.split('\n')).toContain('next: - (paused)');
      expect(row?.split(/\s{2,}/)[3]).toBe('-');
      expect(await cli.run('schedule', 'unpause', name)).toBe(`schedule ${name} unpaused`);
      const next = JSON.parse(await cli.run('schedule', 'describe', name, '--json')) as {
        paused: boolean;
        nextRuns: string[];
      };
      expect(next.paused).toBe(false);
      expect(next.nextRuns.length).toBeGreaterThan(0);
      expect(new Date(next.nextRuns[0]).getUTCHours()).toBe(9);
      expect(await cli.run('schedule', 'pause', name)).toBe(`schedule ${name} paused`);
      expect(await cli.run('schedule', 'delete', name)).toBe(`schedule ${name} deleted`);
      await expect(cli.run('schedule', 'describe', name)).rejects.toThrow(`no schedule named "${name}"`);
      for (const verb of ['pause', 'unpause', 'trigger', 'delete'])
        await expect(cli.run('schedule', verb, name)).rejects.toThrow(`no schedule named "${name}"`);
    } finally {
      await cli.run('schedule', 'delete', name).catch(() => undefined);
    }
  });

  it('a bad cron expression, a bad duration or a missing timing is one line and exit code 2', async () => {
    const { address, namespace } = await testConnection();
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
    const name = uniqueName('bad');
    const cases: [string[], RegExp][] = [
      [
        ['--cron', '61 25 * * *'],
        /^durable-agents: cron expression "61 25 \* \* \*" is invalid: Minute is not in range \[0-59\].*\n$/,
      ],
      [
        ['--cron', '0 0 30 2 *'],
        /^durable-agents: cron expression "0 0 30 2 \*" never comes: no date matches it \(nothing was created\)\n$/,
      ],
      [['--every', 'soon'], /^durable-agents: .*"soon" is not a duration \(e\.g\. 30s, 5m, 2h, 1d\)\..*\n$/],
      [['--every', '500'], /^durable-agents: a schedule interval must be at least 1 s\n$/],
      [[], /^durable-agents: give the schedule exactly one of --every DURATION or --cron EXPR\n$/],
      [['--every', '1h', '--cron', '0 9 * * *'], /^durable-agents: give the schedule exactly one of/],
      [['--every', '1h', '--overlap', 'sometimes'], /^durable-agents: .*'sometimes' is invalid.*\n$/],
    ];
    for (const [flags, line] of cases) {
      const r = await runCli(['schedule', 'create', name, ...flags, '--model', FALLBACK, 'x'], { env });
      expect({ flags, code: r.code, stderr: r.stderr }).toEqual({
        flags,
        code: 2,
        stderr: expect.stringMatching(line),
      });
    }
    const unknown = await runCli(['schedule', 'trigger', name], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`durable-agents: no schedule named "${name}"\n`);
    const badName = await runCli(['schedule', 'create', 'no spaces', '--every', '1h', '--model', FALLBACK, 'x'], {
      env,
    });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/^durable-agents: schedule name "no spaces" must start with a letter or digit/);
  });
});
