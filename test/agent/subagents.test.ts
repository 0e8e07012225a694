/**
 * Sub-agents: each a tool named after it that the workflow runs as a child workflow, concurrently
 * within an answer, within the parent's budget, ended with the parent, refused before start when it
 * asks for more than the parent may use (approvals and client tools: subagents-people.test.ts).
 */
import type { AgentResult, AgentStateView } from '../../src/contracts/agent-run';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { createPevActivities } from '../../src/activities/pev';
import { answer } from '../pev/pev-kit';
import { agentCli } from '../kit/agent-cli';
import { runCli } from '../kit/cli';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { Latch, PRIMARY, toolResultTexts, unansweredCalls, useAgentFixture, waitFor, waitForState } from './agent-kit';
import { AGENTS, parentId, signalled, startParent as start, who } from './subagents-kit';

const twoCalls = reply.toolCalls([
  { name: 'researcher', arguments: { task: 'alpha' }, id: 'toolu_alpha' },
  { name: 'researcher', arguments: { task: 'beta', context: 'the second thing' }, id: 'toolu_beta' },
]);

describe('sub-agents', () => {
  const fx = useAgentFixture();

  it('offers each sub-agent as a tool, runs two calls of one answer as concurrent child runs, and reads their answers', async () => {
    const order: string[] = [];
    const betaAsked = new Latch();
    fx.fake.respond(async (request): Promise<FakeStep> => {
      const { agent, task, answers } = who(request);
      if (agent === 'parent') return answers === 0 ? twoCalls : reply.text('alpha is 1 and beta is 2.');
      const name = task.startsWith('alpha') ? 'alpha' : 'beta';
      order.push(`${name} asked`);
      if (name === 'beta') betaAsked.open();
      // The first child answers only once the second has asked: sequential children would never get here.
      else await Promise.race([betaAsked.opened, new Promise((r) => setTimeout(r, 15_000).unref())]);
      order.push(`${name} answered`);
      return reply.text(`${name} = ${name === 'alpha' ? 1 : 2}`, { usage: { input: 100, output: 10 } });
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { id: parentId('subagents-parallel') });
      const result = await agents.result(id);
      const child = client.workflow.getHandle(`${id}/researcher-toolu_alpha`);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'subagents-parallel');
      // `list --parent`: the children, from the server's visibility store (which lags a little).
      let listed: string[] = [];
      for (let tries = 0; listed.length < 2 && tries < 50; tries++) {
        listed = (await agents.list({ parent: id })).map((r) => r.id).sort();
        if (listed.length < 2) await new Promise((r) => setTimeout(r, 200));
      }
      await saveHistoryIfRecording(child, 'subagents-child');
      return { id, result, listed, state: await agents.state(id), child: await child.describe() };
    });
    expect(order.indexOf('beta asked')).toBeLessThan(order.indexOf('alpha answered'));
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'alpha is 1 and beta is 2.' });
    const tools = (fx.fake.requests[0].body.tools as { name: string; input_schema: unknown }[]).find(
      (t) => t.name === 'researcher',
    );
    expect(tools?.input_schema).toMatchObject({ required: ['task'] });
    const texts = await toolResultTexts(fx, out.state as AgentStateView);
    expect(texts[0]).toContain('alpha = 1');
    expect(texts[1]).toContain('beta = 2');
    // The child names its parent, and its task carries the call's context.
    expect(out.child.parentExecution?.workflowId).toBe(out.id);
    expect(out.listed).toEqual([`${out.id}/researcher-toolu_alpha`, `${out.id}/researcher-toolu_beta`]);
    expect(fx.fake.requests.map(who).find((w) => w.task.startsWith('beta'))?.task).toContain('the second thing');
    // The children's spend is in the parent's totals, and the parent lists each child.
    const children = out.result.children ?? [];
    expect(children.map((c) => [c.id, c.agent, c.status, c.stopReason])).toEqual([
      [`${out.id}/researcher-toolu_alpha`, 'researcher', 'completed', 'completed'],
      [`${out.id}/researcher-toolu_beta`, 'researcher', 'completed', 'completed'],
    ]);
    expect(children.every((c) => c.usage.inputTokens === 100)).toBe(true);
    expect(out.result.usage.inputTokens).toBeGreaterThanOrEqual(200);
    const events = (out.state as AgentStateView).events.map((e) => e.type);
    expect(events.filter((t) => t === 'child_start')).toHaveLength(2);
    expect(events.filter((t) => t === 'child_end')).toHaveLength(2);
  });

  it("gives a child the parent's call settings when its declaration names none: its requests ask for the parent's max tokens", async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'alpha' }, id: 'toolu_inherit' }])
          : reply.text('alpha is 1.');
      return reply.text('alpha = 1');
    });
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { id: parentId('subagents-inherit'), call: { maxTokens: 500, temperature: 0.2 } });
      expect(await agents.result(id)).toMatchObject({ status: 'completed', finalText: 'alpha is 1.' });
    });
    const asked = fx.fake.requests.map((r) => ({
      agent: who(r).agent,
      maxTokens: r.body.max_tokens,
      temperature: r.body.temperature,
    }));
    expect(asked.filter((a) => a.agent !== 'parent')).toEqual([
      { agent: 'researcher', maxTokens: 500, temperature: 0.2 },
    ]);
    expect(asked.filter((a) => a.agent === 'parent').every((a) => a.maxTokens === 500)).toBe(true);
  });

  it("stops a child that would overspend the parent's budget with reason budget, and the parent reads why", async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'big' }, id: 'toolu_big' }], {
              usage: { input: 100, output: 50 },
            })
          : reply.text('Out of budget.');
      return reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }], { usage: { input: 1900, output: 10 } });
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { id: parentId('subagents-budget'), limits: { maxTotalTokens: 2_000 } });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'subagents-budget');
      const child = (await agents.result(`${id}/researcher-toolu_big`)) as AgentResult;
      const described = await client.workflow.getHandle(`${id}/researcher-toolu_big`).describe();
      const parentDetails = await (await client.workflow.getHandle(id).describe()).staticDetails();
      const metadata = { summary: await described.staticSummary(), details: await described.staticDetails() };
      return { id, result, child, metadata, parentDetails, state: (await agents.state(id)) as AgentStateView };
    });
    expect(out.child).toMatchObject({ stopReason: 'budget', turns: 1 });
    // The child's page says what it is: its agent, model, tools, its share of the budget and its parent.
    expect(out.metadata.summary).toBe('sub-agent researcher: big');
    expect(out.metadata.details).toContain(`- **Parent** \`${out.id}\`, as its researcher`);
    expect(out.metadata.details).toMatch(/- \*\*Limits\*\* .* · 1[0-9]{3} tokens/);
    expect(out.metadata.details).toContain('> big');
    expect(out.parentDetails).toMatch(/- \*\*Sub-agents\*\* .*researcher/);
    const [text] = await toolResultTexts(fx, out.state);
    expect(text).toContain('stop reason budget');
    expect(out.result.children?.[0]).toMatchObject({ stopReason: 'budget' });
    // The child's 1,910 tokens count toward the parent, which stops at its own limit.
    expect(out.result.stopReason).toBe('token_budget');
  });

  it('gives children that run at once shares of what the parent has left, so together they hold no more', async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0 ? { ...twoCalls, usage: { input: 100, output: 50 } } : reply.text('Out of budget.');
      return reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }], { usage: { input: 400, output: 0 } });
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { limits: { maxTotalTokens: 3_000 } });
      const result = await agents.result(id);
      const limits = await Promise.all(
        ['toolu_alpha', 'toolu_beta'].map(async (call) => (await agents.state(`${id}/researcher-${call}`)).limits),
      );
      return { result, limits };
    });
    // 3,000 less the parent's first answer (150 tokens), split between the two children.
    expect(out.limits.map((l) => l.maxTotalTokens)).toEqual([1_425, 1_425]);
    const children = out.result.children ?? [];
    expect(children.map((c) => c.stopReason)).toEqual(['budget', 'budget']);
    // Each child stops at 95 % of its share; its last turn (400 tokens) may pass it.
    for (const c of children) expect(c.usage.inputTokens).toBeLessThanOrEqual(1_425 + 400);
    expect(children.reduce((sum, c) => sum + c.usage.inputTokens, 0)).toBeLessThanOrEqual(2_850 + 2 * 400);
    expect(out.result.stopReason).toBe('token_budget');
  });

  it.each([
    ['cancelled', 'subagents-cancel'],
    ['stopped', 'subagents-stop'],
  ] as const)('ends every child, each with its result, when the parent is %s', async (reason, history) => {
    const held = new Latch();
    fx.fake.respond(async (request): Promise<FakeStep> => {
      const { agent, answers } = who(request);
      if (agent === 'parent') return answers === 0 ? twoCalls : reply.text('unused');
      await held.opened;
      return reply.toolCalls([{ name: 'write_note', arguments: { text: 'late' } }]);
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { id: parentId(history) });
      await waitFor(() => fx.fake.requests.filter((r) => who(r).agent !== 'parent').length === 2, 'both children');
      const handle = client.workflow.getHandle(id);
      if (reason === 'cancelled') await handle.cancel();
      else await agents.stop(id, 'enough');
      // The children's model calls answer only once the parent has passed the stop on to both.
      for (const call of ['toolu_alpha', 'toolu_beta']) await signalled(client, `${id}/researcher-${call}`);
      held.open();
      const result = (await handle.result()) as AgentResult;
      await saveHistoryIfRecording(handle, history);
      return { result, state: (await agents.state(id)) as AgentStateView };
    });
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: reason });
    expect(out.result.children?.map((c) => [c.status, c.stopReason])).toEqual([
      ['stopped', reason],
      ['stopped', reason],
    ]);
    expect(unansweredCalls(out.state)).toEqual([]);
    for (const text of await toolResultTexts(fx, out.state)) expect(text).toContain(`stop reason ${reason}`);
    expect(fx.calls).toEqual([]);
  });

  it("runs from the command line: the config file's agents and --agents; state, approve, watch, trace and transcript through the parent", async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (agent === 'parent')
        return answers === 0
          ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'note it' }, id: 'toolu_r' }])
          : reply.text('Noted.');
      return answers === 0
        ? reply.toolCalls([{ name: 'write_note', arguments: { text: 'hello' }, id: 'toolu_note' }])
        : reply.text('wrote it');
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'subagents-'));
    const config = path.join(dir, 'durable-agents.json');
    fs.writeFileSync(config, JSON.stringify({ agents: AGENTS }));
    const extra = path.join(dir, 'agents.json');
    fs.writeFileSync(extra, JSON.stringify({ summariser: { description: 'Summarises a text.' } }));
    const seen = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_CONFIG: config });
      const args = ['--model', PRIMARY, '--agents', extra, '--approve', 'write_note', '--detach', 'Note hello.'];
      const id = await cli.run('run', ...args);
      const childId = `${id}/researcher-toolu_r`;
      // Watched live, from before the child starts to after the parent ends.
      const watching = cli.run('watch', id, '--no-tokens');
      await waitForState(fx.agents(client, taskQueue), id, (s) => (s.childApprovals ?? []).length > 0);
      const state = await cli.run('state', id);
      expect(state).toContain(`awaiting approval in ${childId}: toolu_note write_note {"text":"hello"}`);
      expect(state).toContain(`approve: durable-agents approve ${id} toolu_note`);
      expect(state).toContain(`child ${childId} (researcher, call toolu_r): running`);
      await cli.run('approve', id, 'toolu_note');
      expect(await cli.run('result', id)).toContain('Noted.');
      const watched = await watching;
      const trace = await cli.run('trace', id);
      const transcript = await runCli(['transcript', id, '--children'], {
        env: { DURABLE_AGENTS_STORE_DIR: fx.store.root },
      });
      return { id, childId, watched, trace, transcript: transcript.stdout };
    });
    const { id, childId, watched, trace, transcript } = seen;
    // watch: the child's start, its turns and its end, under the parent's call.
    expect(watched).toContain(`sub-agent researcher (toolu_r) started as ${childId}: note it`);
    expect(watched).toContain(`  researcher (toolu_r) [turn 1] calling ${PRIMARY}`);
    expect(watched).toContain(
      `  researcher (toolu_r) [turn 1] write_note (toolu_note) needs approval of {"text":"hello"}: ` +
        `durable-agents approve ${id} toolu_note`,
    );
    expect(watched).toMatch(/ {2}researcher \(toolu_r\) \[turn 2\] done \(completed\) after 2 turns/);
    expect(watched).toMatch(/sub-agent researcher \(toolu_r\) completed \(completed\)/);
    expect(watched.indexOf('  researcher (toolu_r) [turn 2] done')).toBeLessThan(watched.indexOf('[turn 2] done'));
    // trace: the child's steps under the call that started it.
    expect(trace).toMatch(
      new RegExp(
        `researcher \\(toolu_r\\)[^\\n]*\\n(.*\\n)*? {6}sub-agent researcher \\(call toolu_r\\) ran as ${childId}:`,
      ),
    );
    const [, child] = trace.split(`ran as ${childId}:\n`);
    // The child's approved call reads after its approval.
    expect(child).toMatch(
      /^ {10,}turn 1: [^\n]*\n {12,}approval asked for write_note \(toolu_note\)[^\n]*\n {12,}write_note \(toolu_note\) approved\n {12,}write_note \(toolu_note\) \{"text":"hello"\}/m,
    );
    // transcript --children: the child's conversation under the call.
    expect(transcript).toContain(`   calls researcher({"task":"note it"}) [toolu_r]\n   -- child run ${childId} --`);
    expect(transcript).toContain(
      '      #1 assistant [anthropic/claude-sonnet-4-6]:\n         calls write_note({"text":"hello"})',
    );
    const offered = (fx.fake.requests[0].body.tools as { name: string }[]).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['researcher', 'summariser']));
    expect(fx.calls).toEqual(['write_note:hello']);
  });

  it('runs a sub-agent of kind pev as a planner/executor/verifier child, and reads its verified summary', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'planner', arguments: { task: 'Add 2 and 3.' }, id: 'toolu_p' }]),
      answer.plan([{ id: 'task-1', description: 'Add 2 and 3' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }]),
      answer.executed('2 + 3 = 5'),
      answer.verified('The sum is 5.'),
      reply.text('The planner says 5.'),
    );
    const activities = { ...fx.activities, ...createPevActivities({ store: fx.store }) };
    const out = await withWorker({ activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, {
        agents: { planner: { description: 'Plans, does and checks a task.', kind: 'pev', tools: ['add'] } },
      });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(`${id}/planner-toolu_p`), 'subagents-pev-child');
      return { result, state: (await agents.state(id)) as AgentStateView };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'The planner says 5.' });
    expect(out.result.children?.[0]).toMatchObject({ agent: 'planner', status: 'completed', stopReason: 'completed' });
    const [text] = await toolResultTexts(fx, out.state);
    expect(text).toContain('The sum is 5.');
    expect(fx.calls).toEqual(['add:2+3']);
  });

  it('refuses a sub-agent that asks for a tool the run may not use, before anything starts', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(
        start(agents, {
          tools: { allow: ['add'] },
          agents: { writer: { description: 'Writes notes.', tools: ['add', 'write_note'] } },
        }),
      ).rejects.toThrow(
        'sub-agent "writer" asks for the tool "write_note", which this run may not use (its tools: add)',
      );
    });
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('fails a run whose sub-agent asks for a tool the worker lacks in its first step, before any model call', async () => {
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, {
        agents: { finder: { description: 'Finds files.', tools: ['add', 'nosuch_tool'] } },
      });
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'failed', error: { type: 'UnknownTool' } });
    expect(result.error?.message).toMatch(
      /^The run allows "nosuch_tool" \(for its sub-agent "finder"\), but this worker has no tool of that name \(its tools: add, /,
    );
    expect(fx.fake.requests).toHaveLength(0);
  });

  it('gives a call deeper than the depth limit an error result instead of a child', async () => {
    fx.fake.respond((request): FakeStep => {
      const { agent, answers } = who(request);
      if (answers > 0) return reply.text(`${agent} done`);
      return reply.toolCalls([
        { name: 'researcher', arguments: { task: 'deeper' }, id: agent === 'parent' ? 'toolu_1' : 'toolu_2' },
      ]);
    });
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await start(agents, { limits: { maxAgentDepth: 1 } });
      const result = await agents.result(id);
      const child = (await agents.state(`${id}/researcher-toolu_1`)) as AgentStateView;
      return { result, child };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'parent done' });
    expect(out.child.parent).toMatchObject({ depth: 1, agent: 'researcher' });
    const [text] = await toolResultTexts(fx, out.child);
    expect(text).toContain('would run at depth 2, and sub-agents may nest 1 deep');
    expect(out.child.children).toBeUndefined();
  });
});
