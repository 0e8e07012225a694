import { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { registerAgentCommands } from '../../src/cli/commands/agent';
import { AgentClient } from '../../src/client/index';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import { PRIMARY, answer, pevFixture, waitFor, type PevFixture } from './pev-kit';

/** The agent commands bound to the test server; returns what they printed. */
function cliOn(client: Client, taskQueue: string) {
  return async (...args: string[]): Promise<string> => {
    const printed: string[] = [];
    const program = new Command('durable-agents').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    registerAgentCommands(program, { connect: async () => ({ agents: new AgentClient(client, taskQueue), close: async () => undefined }), out: (t) => printed.push(t), env: {} });
    await program.parseAsync(['node', 'durable-agents', ...args]);
    return printed.join('\n');
  };
}

describe('PEV through the CLI', () => {
  let fx: PevFixture;
  beforeAll(async () => {
    fx = await pevFixture();
  });
  afterAll(() => fx.close());

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
      const cli = cliOn(client, taskQueue);
      const { id } = JSON.parse(await cli('run', '--agent', 'pev', '--model', PRIMARY, '--detach', '--json', 'Run the slow step, then add 1 and 1.'));
      await waitFor(() => fx.calls.includes('slow_step:cli'), 'the slow step');
      const state = JSON.parse(await cli('state', id, '--json'));
      expect(state).toMatchObject({
        kind: 'pev',
        pev: {
          phase: 'executing',
          cycle: 1,
          round: 1,
          currentTodoId: 'task-1',
          todos: [expect.objectContaining({ id: 'task-1', status: 'executing' }), expect.objectContaining({ id: 'task-2', status: 'pending' })],
        },
      });
      fx.latch.open();
      await waitForState(new AgentClient(client, taskQueue), id, (s) => s.status === 'completed');
      const result = JSON.parse(await cli('result', id, '--json'));
      expect(result).toMatchObject({
        kind: 'pev',
        stopReason: 'completed',
        finalText: 'Done: the step ran and 1 + 1 = 2.',
        todos: [expect.objectContaining({ id: 'task-1', status: 'completed', result: 'slow step done' }), expect.objectContaining({ id: 'task-2', status: 'completed', result: '2' })],
      });
    });
  });
});
