/**
 * A run's plan and its questions to the user, from the command line (docs/plans.md): `run --plan`,
 * the model's `update_plan` tool, `set-plan` per item, `run --ask-user` and `answer`, on one worker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { saveHistoryIfRecording, useWorker } from '../kit/temporal';
import {
  PRIMARY,
  anthropicMessages,
  currentDetailsOf,
  holdReply,
  resultTexts,
  useAgentFixture,
  waitFor,
  waitForState,
} from './agent-kit';

/** The plan recited at the end of a recorded request. */
const recited = (body: Record<string, unknown>): string => {
  const messages = anthropicMessages(body);
  return JSON.stringify(messages[messages.length - 1].blocks);
};

describe('plans and questions to the user', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));
  const cli = () => agentCli(worker.client, worker.taskQueue).run;
  const agents = () => new AgentClient(worker.client, worker.taskQueue, { store: fx.store });

  it('the model ticks its own plan, the client adds an item, and each request recites the plan as it is', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-')), 'plan.md');
    fs.writeFileSync(file, '# Plan\n- [ ] Add the numbers\n- [ ] Check the sum\n');
    fx.fake.script(reply.toolCalls([{ name: 'update_plan', arguments: { done: ['1'] } }]));
    const held = holdReply(fx, reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }]));
    const { id } = JSON.parse(
      await cli()('run', '--model', PRIMARY, '--plan', file, '--detach', '--json', 'Add one and one.'),
    );
    await waitFor(() => fx.fake.requests.length === 2, 'the second model call');
    expect(await cli()('set-plan', id, '--add', 'Report the total')).toBe(
      `plan sent to ${id}:\n  [x] 1. Add the numbers\n  [ ] 2. Check the sum\n  [ ] 3. Report the total`,
    );
    await expect(cli()('set-plan', id, '--done', '9')).rejects.toThrow(/no plan item "9"; ids: 1, 2, 3/);
    fx.fake.script(reply.text('Two.'));
    held.open();
    expect(await agents().result(id)).toMatchObject({ status: 'completed', finalText: 'Two.' });
    await saveHistoryIfRecording(worker.client.workflow.getHandle(id), 'agent-plan-tool');
    const [first, second, third] = fx.fake.requests.map((r) => r.body);
    expect((first.tools as { name: string }[]).map((t) => t.name)).toContain('update_plan');
    expect(recited(first)).toContain('[ ] 1. Add the numbers\\n[ ] 2. Check the sum');
    expect(resultTexts(fx.fake.requests[1])[0]).toBe('Plan:\n[x] 1: Add the numbers\n[ ] 2: Check the sum');
    expect(recited(second)).toContain('[x] 1. Add the numbers\\n[ ] 2. Check the sum');
    expect(recited(third)).toContain('[x] 1. Add the numbers\\n[ ] 2. Check the sum\\n[ ] 3. Report the total');
  });

  it("ask_user waits for the user's answer, shown in state and the current details; answer gives it", async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'ask_user', arguments: { question: 'Which city?', options: ['Paris', 'Rome'] } }]),
      reply.text('Rome it is.'),
    );
    const { id } = JSON.parse(
      await cli()('run', '--model', PRIMARY, '--ask-user', '--detach', '--json', 'Plan a trip.'),
    );
    const waiting = await waitForState(agents(), id, (s) => s.status === 'awaiting_client_tools');
    const [question] = waiting.clientToolRequests;
    expect(question).toMatchObject({ tool: 'ask_user', args: { question: 'Which city?' } });
    expect(await cli()('state', id)).toContain(
      `asks the user: Which city? (Paris / Rome)\n  answer: durable-agents answer ${id} TEXT --call ${question.toolCallId}`,
    );
    const details = await currentDetailsOf(worker.client.workflow.getHandle(id));
    expect(details).toContain("**Waiting for the user's answer**");
    expect(details).toContain(`durable-agents answer ${id} '…' --call ${question.toolCallId}`);
    await cli()('note', id, 'Asked from the support desk.', '--system-event');
    expect(await cli()('answer', id, 'Rome')).toBe(`answer to "Which city? (Paris / Rome)" accepted by ${id}`);
    expect(await agents().result(id)).toMatchObject({ status: 'completed', finalText: 'Rome it is.' });
    await saveHistoryIfRecording(worker.client.workflow.getHandle(id), 'agent-ask-user');
    expect(resultTexts(fx.fake.requests[1])).toEqual(['Rome']);
    expect(await agents().messages(id)).toContainEqual(
      expect.objectContaining({ role: 'note', kind: 'system_event', text: 'Asked from the support desk.' }),
    );
    await expect(cli()('answer', id, 'Paris')).rejects.toThrow(/has already ended|is not waiting for an answer/);
  });
});
