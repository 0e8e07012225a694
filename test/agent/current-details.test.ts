import type { PevStateView } from '../../src/contracts/pev-run';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { answer, startPev, usePevFixture } from '../pev/pev-kit';
import {
  CHEAP,
  PRIMARY,
  currentDetailsOf,
  quickLookup,
  timelineSummaries,
  useAgentFixture,
  waitFor,
  waitForState,
} from './agent-kit';

/** Polls the run's current details until they hold `text`; returns them. */
async function detailsHolding(read: () => Promise<string>, text: string): Promise<string> {
  let last = '';
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    last = await read();
    if (last.includes(text)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`current details never held ${JSON.stringify(text)}; last:\n${last}`);
}

describe('what a ReAct run is doing now, and what its timeline says', () => {
  const fx = useAgentFixture();

  it('shows a running tool, then the call waiting for approval with the commands that decide it, then how it ended', async () => {
    fx.resetLatch();
    fx.fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'warm-up' } }]),
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'ship it' }, id: 'toolu_note' }]),
      reply.text('Noted.'),
    );
    const { id, running, waiting, ended, timeline } = await withWorker(
      { activities: fx.activities },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await agents.start({
          tools: { approve: ['write_note'] },
          task: 'Warm up, then write a note.',
          model: PRIMARY,
        });
        const handle = client.workflow.getHandle(id);
        const details = () => currentDetailsOf(handle);
        await waitFor(() => fx.calls.includes('slow_step:warm-up'), 'the slow step to start');
        const running = await detailsHolding(details, '**Running tools**');
        fx.latch.open();
        await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
        const waiting = await detailsHolding(details, 'Waiting for approval');
        // The details give the update the Web UI's Send an Update dialog sends; sent as given, it approves.
        const data = /update `decideApproval` with `(\{.*\})`$/m.exec(waiting)?.[1];
        expect(data).toBeDefined();
        expect(await handle.executeUpdate('decideApproval', { args: [JSON.parse(data!)] })).toMatchObject({
          toolCallId: 'toolu_note',
          state: 'approved',
        });
        await agents.result(id);
        const ended = await detailsHolding(details, '- ended:');
        return { id, running, waiting, ended, timeline: await timelineSummaries(handle) };
      },
    );
    expect(running).toContain('**turn 1** · react run\n\n- phase: running\n- turn: 1 of 50');
    expect(running).toContain(`- model: \`${PRIMARY}\``);
    expect(running).toContain('**Running tools**\n- `slow_step` warm-up');

    expect(waiting).toContain('- phase: awaiting_approval\n- turn: 2 of 50');
    expect(waiting).toContain('- now: waiting for approval of write_note');
    expect(waiting).toContain('**Waiting for approval** of `write_note` (call `toolu_note`)');
    expect(waiting).toContain('```json\n{\n  "text": "ship it"\n}\n```');
    expect(waiting).toContain(`- approve: \`durable-agents approve ${id} toolu_note\``);
    expect(waiting).toContain(`- reject: \`durable-agents reject ${id} toolu_note --reason '…'\``);

    expect(ended).toMatch(/^- ended: completed$/m);
    expect(ended).not.toContain('Waiting');
    expect(timeline).toEqual([
      `callModel • turn 1 · model ${PRIMARY}`,
      'runTool • tool slow_step warm-up',
      `callModel • turn 2 · model ${PRIMARY}`,
      'waiting for approval of write_note',
      'runTool • tool write_note ship it',
      `callModel • turn 3 · model ${PRIMARY}`,
    ]);
  });

  it("shows a client tool call waiting for the client's result, and names compactions on the timeline", async () => {
    const long = (tag: string) => `${tag} `.repeat(800);
    fx.fake.script(
      reply.toolCalls([{ name: 'write_note', arguments: { text: long('alpha') } }]),
      reply.toolCalls([{ name: 'write_note', arguments: { text: long('beta') } }]),
      reply.text('The user asked for notes and a photo; alpha note written.'),
      reply.toolCalls([{ name: 'pick_photo', arguments: { album: 'cats' }, id: 'toolu_photo' }]),
      reply.text('Picked.'),
    );
    const { id, waiting, timeline } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Write two notes, then let me pick a photo.',
        model: PRIMARY,
        context: { windowTokens: 3000, thresholdRatio: 0.8, keepRecentRatio: 0.3, summaryModel: CHEAP },
      });
      const handle = client.workflow.getHandle(id);
      await waitForState(agents, id, (s) => s.status === 'awaiting_client_tools');
      const waiting = await detailsHolding(() => currentDetailsOf(handle), "Waiting for the client's result");
      await agents.submitToolResult(id, 'toolu_photo', 'cat-3.jpg');
      await agents.result(id);
      return { id, waiting, timeline: await timelineSummaries(handle) };
    });
    expect(waiting).toContain("**Waiting for the client's result** of `pick_photo` (call `toolu_photo`)");
    expect(waiting).toContain(`- answer: \`durable-agents tool-result ${id} toolu_photo '"…"'\``);
    expect(timeline).toContain("waiting for the client's result of pick_photo");
    expect(timeline).toContain(`summariseConversation • summarise 3 messages · model ${CHEAP}`);
  });
});

describe('what the timeline and current details say of quick calls a model call ran itself', () => {
  const fx = useAgentFixture(
    {},
    {
      tools: [quickLookup],
    },
  );

  it("names them in the next model call's summary, and shows the turns and cost used against the limits", async () => {
    const usage = { input: 10_000, output: 1_000 };
    fx.fake.script(
      reply.toolCalls([{ name: 'lookup', arguments: { n: 7 } }], { usage }),
      reply.toolCalls(
        [
          { name: 'lookup', arguments: { n: 8 } },
          { name: 'lookup', arguments: { n: 9 } },
        ],
        { usage },
      ),
      reply.text('Entries 7 to 9 found.', { usage }),
    );
    const { ended, timeline } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Look up 7, 8 and 9.',
        model: PRIMARY,
        limits: { maxTurns: 5, maxCostUsd: 2 },
      });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', turns: 3 });
      const handle = client.workflow.getHandle(id);
      const ended = await detailsHolding(() => currentDetailsOf(handle), '- ended:');
      return { ended, timeline: await timelineSummaries(handle) };
    });
    // The calls ran inside the model calls: no activity of their own.
    expect(timeline).toEqual([
      `callModel • turn 1 · model ${PRIMARY}`,
      `callModel • turn 2 · model ${PRIMARY} · turn 1 ran tool lookup n=7`,
      `callModel • turn 3 · model ${PRIMARY} · turn 2 ran tools lookup n=8, lookup n=9`,
    ]);
    expect(ended).toMatch(/\n- turns: 3 of 5\n- cost: \\\$0\.\d{4} of \\\$2\.00\n.*\n- ended: completed$/);
    expect(ended).not.toContain('- cost: \\$0.0000');
  });
});

describe('what a pev run is doing now, and what its timeline says', () => {
  const fx = usePevFixture();

  it('shows the plan awaiting its decision with the plan commands, and names each role and round on the timeline', async () => {
    fx.fake.script(
      answer.plan([{ id: 'step-1', description: 'Add 2 and 2' }]),
      // The executor's first call takes a while, so its details can be read while it runs.
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }], { delayMs: 2_000 }),
      answer.executed('2 + 2 = 4'),
      answer.verified('It is 4.'),
    );
    const { id, waiting, executing, ended, timeline } = await withWorker(
      { activities: fx.pevActivities },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await startPev(client, taskQueue, { task: 'Add two numbers.', pev: { confirmPlan: true } });
        const handle = client.workflow.getHandle(id);
        await waitForState(agents, id, (s) => (s as PevStateView).pev?.phase === 'confirming');
        const waiting = await detailsHolding(() => currentDetailsOf(handle), 'Waiting for plan decision');
        await agents.decidePlan(id, true);
        const executing = await detailsHolding(() => currentDetailsOf(handle), '← now');
        await handle.result();
        const ended = await detailsHolding(() => currentDetailsOf(handle), '- ended:');
        return { id, waiting, executing, ended, timeline: await timelineSummaries(handle) };
      },
    );
    expect(waiting).toContain('**planner round 1** · pev run\n\n- phase: confirming');
    expect(waiting).toContain('**Plan** · 0 of 1 todos done\n\n- [pending] step-1: Add 2 and 2');
    expect(executing).toContain('**executor todo step-1 round 1** · pev run');
    expect(executing).toContain('**Plan** · 0 of 1 todos done\n\n- [executing] step-1: Add 2 and 2 ← now');
    expect(ended).toContain('- ended: completed\n\n**Plan** · 1 of 1 todos done\n\n- [completed] step-1: Add 2 and 2');
    expect(waiting).toContain('**Waiting for plan decision** on these todos:\n\nstep-1. Add 2 and 2');
    expect(waiting).toContain(`- approve: \`durable-agents plan ${id}\``);
    expect(waiting).toContain(`- reject: \`durable-agents plan ${id} --reject --feedback '…'\``);
    expect(timeline).toEqual([
      'preparePevPrompts • prepare PEV prompts',
      `callModel • planner round 1 · model ${PRIMARY}`,
      'waiting for plan decision',
      `callModel • executor todo step-1 round 1 · model ${PRIMARY}`,
      'runTool • tool add a=2 b=2',
      `callModel • executor todo step-1 round 2 · model ${PRIMARY}`,
      `callModel • verifier round 1 · model ${PRIMARY}`,
    ]);
  });
});
