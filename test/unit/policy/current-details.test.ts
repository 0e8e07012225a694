import {
  currentDetails,
  planDecisionDetails,
  shellWord,
  type CurrentDetailsInput,
} from '../../../src/policy/current-details';

describe('current details', () => {
  const base: CurrentDetailsInput = {
    id: 'agent-1',
    kind: 'react',
    step: 'turn 3',
    phase: 'tools',
    turn: 3,
    model: 'openai/gpt-5-mini',
    running: [],
    approvals: [],
    clientTools: [],
  };

  it('show the step, phase, turn, model and the tools running with a short preview of their arguments', () => {
    const text = currentDetails({
      ...base,
      doing: 'running tools',
      running: [{ toolCallId: 'c1', tool: 'fs_read', args: { path: 'README.md' } }],
    });
    expect(text).toContain('**turn 3** · react run\n\n- phase: tools');
    expect(text).toContain('- phase: tools\n- turn: 3\n- model: `openai/gpt-5-mini`\n- now: running tools');
    expect(text).toContain('**Running tools**\n- `fs_read` README.md');
  });

  it('name a pending call with its arguments and the exact commands that approve or reject it', () => {
    const text = currentDetails({
      ...base,
      id: 'my run',
      approvals: [
        { toolCallId: 'toolu_1', tool: 'fs_write', args: { path: 'a.md', content: 'has ``` inside' }, argsHash: 'h1' },
        { toolCallId: 'toolu_2', tool: 'fs_write', args: { path: 'b.md' }, argsHash: 'h2', runId: 'my run/editor-1' },
      ],
      clientTools: [{ toolCallId: 'c2', tool: 'pick_photo', args: { album: 'cats' } }],
    });
    expect(text).toContain('**Waiting for approval** of `fs_write` (call `toolu_1`)');
    // The fence is longer than any backtick run in the arguments.
    expect(text).toContain('````json\n{\n  "path": "a.md",\n  "content": "has ``` inside"\n}\n````');
    expect(text).toContain("- approve: `durable-agents approve 'my run' toolu_1`");
    expect(text).toContain("- reject: `durable-agents reject 'my run' toolu_1 --reason '…'`");
    // The Web UI decides a call of this run's own by the update; a child's call is decided through the CLI.
    expect(text).toContain(
      '- or in the Web UI: *More Actions* → *Send an Update*, update `decideApproval` with ' +
        '`{"toolCallId":"toolu_1","argsHash":"h1","decision":"approve"}`',
    );
    expect(text.match(/Send an Update/g)).toHaveLength(1);
    expect(text).toContain("**Waiting for the client's result** of `pick_photo` (call `c2`)");
    expect(text).toContain(`- answer: \`durable-agents tool-result 'my run' c2 '"…"'\``);
  });

  it('show a plan awaiting its decision with the plan commands, and how a run ended', () => {
    const waiting = planDecisionDetails('pev-1', [
      { id: '1', description: 'Read the notes' },
      { id: '2', description: 'Write the summary' },
    ]);
    const text = currentDetails({ ...base, waiting });
    expect(text).toContain('**Waiting for plan decision** on these todos:\n\n1. Read the notes\n2. Write the summary');
    expect(text).toContain('- approve: `durable-agents plan pev-1`');
    expect(text).toContain("- reject: `durable-agents plan pev-1 --reject --feedback '…'`");
    expect(text).toContain(
      '- or in the Web UI: *More Actions* → *Send an Update*, update `decidePlan` with `{"approve":true}`',
    );

    const ended = currentDetails({
      ...base,
      doing: 'calling the model',
      ended: { stopReason: 'error', status: 'failed', error: 'authentication failed (401)' },
    });
    expect(ended).toContain('- ended: failed (error): authentication failed (401)');
    expect(ended).not.toContain('calling the model');
  });

  it("show the turns and cost against the run's limits, and keep them with a kind's progress once it ended", () => {
    const running = currentDetails({ ...base, maxTurns: 40, cost: { usd: 0.0148, maxUsd: 0.02 } });
    expect(running).toContain('- turn: 3 of 40\n- cost: \\$0.0148 of \\$0.0200\n');
    expect(currentDetails({ ...base, cost: { usd: 1.5 } })).toContain('- cost: \\$1.50\n');
    const ended = currentDetails({
      ...base,
      maxTurns: 40,
      cost: { usd: 0.0148, maxUsd: 0.02 },
      progress: '**Plan** · 2 of 2 todos done',
      ended: { stopReason: 'completed', status: 'completed' },
    });
    expect(ended).toContain('- turns: 3 of 40\n- cost: \\$0.0148 of \\$0.0200');
    expect(ended).toMatch(/- ended: completed\n\n\*\*Plan\*\* · 2 of 2 todos done$/);
  });

  it('escape dollar signs in prose, so two amounts never render as math', () => {
    const text = currentDetails({
      ...base,
      ended: {
        stopReason: 'budget',
        status: 'completed',
        error: "tenant acme's budget is spent: $0.0148 of $0.0200 this day",
      },
    });
    expect(text).toContain(
      "- ended: completed (budget): tenant acme's budget is spent: \\$0.0148 of \\$0.0200 this day",
    );
    const running = currentDetails({
      ...base,
      running: [{ toolCallId: 'c1', tool: 'shell', args: { command: 'echo $HOME $PATH' } }],
    });
    expect(running).toContain('- `shell` echo \\$HOME \\$PATH');
  });

  it('quote ids for the shell only when needed', () => {
    expect(shellWord('agent-1b2c')).toBe('agent-1b2c');
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
