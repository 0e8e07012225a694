/**
 * Served tool results (docs/evals.md): a run with an `eval` record answers its tool calls from the
 * table, never runs a tool the table does not answer unless it is a read the record allows, counts
 * every such call as drift, and hands the record to its sub-agents.
 */
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, resultTexts, useAgentFixture } from './agent-kit';
import { parentId, startParent, who } from './subagents-kit';
import type { EvalSpec } from '../../src/contracts/eval-spec';

const TABLE: EvalSpec = {
  served: [
    {
      tool: 'write_note',
      args: { text: 'hello' },
      results: [{ text: 'wrote 5 characters (served)' }, { throws: 'disk full' }],
    },
  ],
};

describe('served tool results', () => {
  const fx = useAgentFixture();

  it('serves matched calls in order, runs no tool, and counts each invented call as drift', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'write_note', arguments: { text: 'hello' } },
        { name: 'add', arguments: { a: 1, b: 2 } },
      ]),
      reply.toolCalls([
        { name: 'write_note', arguments: { text: 'hello' } },
        { name: 'delete_file', arguments: { path: 'notes.md' } },
        { name: 'write_note', arguments: { text: 'other' } },
      ]),
      reply.text('Done.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Write the note.', model: PRIMARY, eval: TABLE });
      return agents.result(id);
    });
    expect(fx.calls).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', finalText: 'Done.' });
    expect(result.eval).toMatchObject({ served: 2, live: 0, drift: 3 });
    expect(result.eval?.driftCalls.map((d) => `${d.tool}@${d.turn}`)).toEqual([
      'add@1',
      'delete_file@2',
      'write_note@2',
    ]);
    const [first, second] = [resultTexts(fx.fake.requests[1]), resultTexts(fx.fake.requests[2]).slice(2)];
    expect(first[0]).toBe('wrote 5 characters (served)');
    expect(first[1]).toMatch(/^Not executed: this run is an eval/);
    expect(second[0]).toBe('Tool "write_note" failed: disk full');
    expect(second[1]).toMatch(/^Not executed: .*"delete_file"/);
    expect(second[2]).toMatch(/^Not executed: .*"write_note"/);
  });

  it('runs an unmatched read live only when the record allows it; a call with side effects never', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'add', arguments: { a: 1, b: 2 } },
        { name: 'delete_file', arguments: { path: 'notes.md' } },
      ]),
      reply.text('Three.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add one and two.',
        model: PRIMARY,
        eval: { ...TABLE, liveReads: true },
      });
      return agents.result(id);
    });
    expect(fx.calls).toEqual(['add:1+2']);
    expect(result.eval).toMatchObject({ served: 0, live: 1, drift: 1 });
    expect(resultTexts(fx.fake.requests[1])).toEqual(['3', expect.stringMatching(/^Not executed: .*"delete_file"/)]);
  });

  it('a sub-agent inherits the record: its calls are served too', async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'write it' }, id: 'toolu_r' }])
          : reply.text('The researcher wrote it.');
      return answers === 0
        ? reply.toolCalls([
            { name: 'write_note', arguments: { text: 'hello' } },
            { name: 'delete_file', arguments: { path: 'x' } },
          ])
        : reply.text('written');
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startParent(agents, { id: parentId('served-tools-child'), eval: TABLE });
      const result = await agents.result(id);
      return { result, child: await agents.result(`${id}/researcher-toolu_r`) };
    });
    expect(fx.calls).toEqual([]);
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'The researcher wrote it.' });
    expect(out.child.eval).toMatchObject({ served: 1, drift: 1 });
  });

  it("queues the record's follow-ups in the run itself: each takes a turn when the run would end", async () => {
    fx.fake.script(reply.text('First.'), reply.text('Second.'), reply.text('Third.'));
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Answer.',
        model: PRIMARY,
        eval: { served: [], followUps: ['Again.', 'Once more.'] },
      });
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Third.', turns: 3 });
    expect(fx.fake.requests).toHaveLength(3);
  });

  it("queues the record's steering as the turn it names starts: the model reads it from the next turn", async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
      reply.text('It is 3.'),
      reply.text('Il fait 3.'),
    );
    const { result, state } = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add one and two.',
        model: PRIMARY,
        eval: { served: [{ tool: 'add', results: [{ text: '3' }] }], steer: [{ turn: 2, text: 'Answer in French.' }] },
      });
      const result = await agents.result(id);
      // The replay gate's history of this path: steering from the record, and compact model-call records.
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'eval-steer');
      return { result, state: await agents.state(id) };
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Il fait 3.', turns: 3 });
    const said = fx.fake.requests.map((r) => JSON.stringify(r.body.messages).includes('Answer in French.'));
    expect(said).toEqual([false, false, true]);
    expect(state.events.filter((e) => e.type === 'steering').map((e) => e.text)).toEqual(['Answer in French.']);
    expect(fx.calls).toEqual([]);
  });

  it('decides its approvals from the record: a named tool gets its decision, any other call is rejected', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'write_note', arguments: { text: 'hello' }, id: 'toolu_note' },
        { name: 'delete_file', arguments: { path: 'old.md' }, id: 'toolu_delete' },
      ]),
      reply.text('Done.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Write the note, then delete old.md.',
        model: PRIMARY,
        tools: { approve: ['write_note', 'delete_file'] },
        eval: { ...TABLE, decisions: [{ tool: 'write_note', decision: 'approve' }] },
      });
      // No client decides anything: the run does, as it asks.
      const result = await agents.result(id);
      return { result, state: await agents.state(id) };
    });
    expect(fx.calls).toEqual([]);
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Done.' });
    expect(out.result.eval).toMatchObject({ served: 1, drift: 0 });
    const events = 'events' in out.state ? out.state.events : [];
    expect(
      events.flatMap((e) =>
        e.type === 'approval_required' || e.type === 'approval_decided'
          ? [[e.type, e.tool, ...(e.type === 'approval_decided' ? [e.decision, e.by] : [])]]
          : [],
      ),
    ).toEqual([
      ['approval_required', 'write_note'],
      ['approval_required', 'delete_file'],
      ['approval_decided', 'write_note', 'approved', 'eval'],
      ['approval_decided', 'delete_file', 'rejected', 'eval'],
    ]);
    const texts = resultTexts(fx.fake.requests[1]);
    expect(texts[0]).toBe('wrote 5 characters (served)');
    expect(texts[1]).toBe(
      'Rejected by the eval: This eval case gives no approval for this tool. The tool was not run.',
    );
  });

  it('refuses a malformed record before the run starts, naming each problem', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(
        agents.start({
          task: 'x',
          model: PRIMARY,
          eval: {
            served: [
              { tool: 'write_note', results: [] },
              { tool: 'add', results: [{ txt: 'x' }] },
            ],
            children: [{ agent: 'researcher' }],
          } as never,
        }),
      ).rejects.toThrow(
        /eval.served\[0\] needs at least one result.*eval.served\[1\].results\[0\] needs text \(or throws\).*eval.children\[0\] needs the agent/,
      );
    });
    expect(fx.fake.requests).toHaveLength(0);
  });
});
