/**
 * Authored eval cases on a real server (docs/evals.md): a case's run is served its stubs, decides its
 * approvals from its eval record, takes its follow-ups and steering, and is graded over its result, events and
 * tool calls (its data graders by the workers, its grader functions by the process that holds them).
 */
import { AgentClient } from '../../src/client';
import { defineEvalCase, runEval, type CaseSettings } from '../../src/evals';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

const tidy = defineEvalCase({
  name: 'tidy-notes',
  task: 'Write the note, then delete old.md.',
  approve: ['delete_file'],
  stubs: [
    { tool: 'write_note', args: { text: 'hello' }, results: [{ text: 'wrote 5 characters' }] },
    { tool: 'delete_file', results: [{ text: 'deleted old.md' }] },
  ],
  approvals: [{ tool: 'delete_file', decision: 'approve' }],
  followUps: ['Now answer in JSON.'],
  graders: [
    { type: 'tool_called', tool: 'write_note' },
    { type: 'tool_called_with', tool: 'delete_file', args: { path: 'old.md' } },
    { type: 'tools_in_order', tools: ['write_note', 'delete_file'] },
    { type: 'approval_requested', tool: 'delete_file' },
    { type: 'tool_not_called', tool: 'add' },
    { type: 'stop_reason', is: 'completed' },
    { type: 'within', turns: { max: 3 }, drift: { max: 0 } },
    { type: 'text_json_schema', schema: { type: 'object', properties: { done: { const: true } }, required: ['done'] } },
    { type: 'check', name: 'two calls', check: (run) => run.toolCalls.length === 2 || `${run.toolCalls.length} calls` },
  ],
});

describe('eval cases', () => {
  const fx = useAgentFixture();
  const script = () =>
    fx.fake.script(
      reply.toolCalls([
        { name: 'write_note', arguments: { text: 'hello' } },
        { name: 'delete_file', arguments: { path: 'old.md' } },
      ]),
      reply.text('Done.'),
      reply.text('{"done": true}'),
    );

  const run = (c: typeof tidy) =>
    withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue, { store: fx.store });
      const settings: CaseSettings = {
        model: PRIMARY,
        fleet: { tenant: 'evals' },
        messages: (id) => agents.messages(id),
      };
      const report = await runEval(agents, [c], settings);
      return report.cases[0];
    });

  it('serves the stubs, gives the approvals and follow-ups, and every grader holds; no tool runs', async () => {
    script();
    const outcome = await run(tidy);
    expect(outcome.graders.filter((g) => !g.pass)).toEqual([]);
    expect(outcome).toMatchObject({ name: 'tidy-notes', pass: true, stopReason: 'completed', turns: 3, drift: 0 });
    expect(fx.calls).toEqual([]);
  });

  it('steers the run as the turn it names starts: the model reads it from the next turn', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]),
      reply.text('It is 3.'),
      reply.text('Il fait 3.'),
    );
    const outcome = await run(
      defineEvalCase({
        name: 'steered',
        task: 'Add one and two.',
        stubs: [{ tool: 'add', results: [{ text: '3' }] }],
        steer: [{ turn: 2, text: 'Answer in French.' }],
        graders: [
          { type: 'text_contains', text: 'Il fait 3' },
          { type: 'within', turns: { max: 3 } },
        ],
      }),
    );
    expect(outcome.graders.filter((g) => !g.pass)).toEqual([]);
    expect(outcome).toMatchObject({ pass: true, turns: 3 });
    expect(JSON.stringify(fx.fake.requests[2].body.messages)).toContain('Answer in French.');
  });

  it('a failing grader and a grader that throws fail the case, the first failure named', async () => {
    script();
    const outcome = await run({
      ...tidy,
      approvals: [],
      graders: [
        ...tidy.graders.slice(0, 1),
        { type: 'check', name: 'explodes', check: () => JSON.parse('{') as boolean },
        { type: 'tool_called_with', tool: 'delete_file', args: { path: 'new.md' } },
      ],
    });
    expect(outcome.pass).toBe(false);
    expect(outcome.failed).toEqual({
      name: 'explodes',
      pass: false,
      message: expect.stringMatching(/^the grader threw: .*JSON/),
    });
    expect(outcome.graders[2]).toMatchObject({
      pass: false,
      message: expect.stringContaining('no call of delete_file'),
    });
    // Without an approval in the case, the call was rejected: nothing ran, nothing drifted.
    expect(outcome.drift).toBe(0);
    expect(fx.calls).toEqual([]);
  });
});
