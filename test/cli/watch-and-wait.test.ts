/**
 * What a user sees while a run works and when it ends: the progress line on a terminal, pev's
 * structured answers as fields that fill in, one `done` line, and results of runs that failed.
 */
import { AgentClient } from '../../src/client';
import { AnswerView } from '../../src/cli/answer-view';
import { AnswerStream, looksStructured } from '../../src/policy/answer-stream';
import { reply } from '../../src/testing/fake-provider';
import { agentCli } from '../kit/agent-cli';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitFor } from '../agent/agent-kit';
import { answer, usePevFixture } from '../pev/pev-kit';

describe('waiting for a run', () => {
  const fx = useAgentFixture();

  it('draws one progress line in place on a terminal and clears it when the result comes', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'slow_step', arguments: { label: 'progress' } }]), reply.text('Done.'));
    let screen = '';
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, {}, { tty: (text) => (screen += text) });
      const running = cli.run('run', '--model', PRIMARY, 'Run the slow step.');
      await waitFor(() => /turn 1 · running · anthropic\/claude-sonnet-4-6 · \d+ s/.test(screen), 'a progress line');
      fx.latch.open();
      expect(await running).toContain('Done.');
    });
    // Every redraw starts by clearing the line, and the last write clears it for the result.
    expect(screen.startsWith('\r\x1b[2K')).toBe(true);
    expect(screen.endsWith('\r\x1b[2K')).toBe(true);
    expect(screen).not.toContain('\n');
  });

  it('run --watch says why a tool call failed, under its line', async () => {
    fx.resetLatch();
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 'two', b: 3 }, id: 'toolu_bad1' }]),
      reply.text('The arguments were wrong.'),
    );
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      await cli.run('run', '--model', PRIMARY, '--watch', 'Add two and 3.');
      expect(cli.printed()).toMatch(
        /\[turn 1\] tool add \(toolu_bad1\) failed in \d+ ms\n {4}-> Tool "add": Invalid arguments: .*expected number, received string/,
      );
    });
  });

  it('stays quiet when stderr is not a terminal', async () => {
    fx.resetLatch();
    fx.fake.script(reply.text('Quiet.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue);
      expect(await cli.run('run', '--model', PRIMARY, 'Say it.')).toContain('Quiet.');
      expect(cli.notes()).toMatch(/^run say-it-[0-9a-f]{12} started on task queue "[^"]+"\n$/);
    });
  });

  it('reads the result a failed run carries in its failure, and exits 1 for it', async () => {
    fx.fake.script(reply.error(401));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = new AgentClient(client, taskQueue);
      const id = await agents.start({ task: 'Try with a revoked key.', model: PRIMARY });
      expect(await agents.result(id)).toMatchObject({
        id,
        status: 'failed',
        stopReason: 'error',
        error: { type: 'LlmAuthentication', retryable: false },
      });
      const cli = agentCli(client, taskQueue);
      const printed = await cli.run('result', id);
      expect(printed).toMatch(new RegExp(`^${id}: failed \\(error\\) after 1 turn on `));
      expect(printed).not.toContain('LlmAuthentication');
      expect(cli.notes()).toMatch(new RegExp(`^durable-agents: run ${id} failed: LlmAuthentication: [^\\n]+\\n$`));
      expect(cli.exitCode()).toBe(1);
    });
  });
});

describe('structured answers as they stream', () => {
  it('show as fields that only grow at their end, from pieces of any size', () => {
    const json = JSON.stringify({
      type: 'component',
      component: 'planner-response',
      summary: 'Two steps: read, then count.',
      needsMorePlanning: false,
      todos: [
        { id: 'task-1', description: 'Read the file', priority: 1, status: 'pending' },
        { id: 'task-2', description: 'Count the lines', priority: 2, status: 'pending' },
      ],
    });
    const whole = new AnswerStream();
    let wholeText = '';
    const once = new AnswerView('planner', (t) => (wholeText += t));
    whole.push(json);
    once.show(whole.value!);
    once.render(true);
    for (const size of [1, 3, 8, 50]) {
      let out = '';
      const stream = new AnswerStream();
      const view = new AnswerView('planner', (t) => (out += t));
      const seen: string[] = [];
      for (let i = 0; i < json.length; i += size) {
        if (stream.push(json.slice(i, i + size))) view.show(stream.value!);
        view.render();
        seen.push(out);
      }
      view.render(true);
      expect(out).toBe(wholeText);
      expect(seen.some((s) => s.length > 0 && s.length < out.length)).toBe(true);
    }
    expect(whole.value).toMatchObject({ todos: [{ id: 'task-1' }, { id: 'task-2' }] });
    expect(wholeText).toBe(
      [
        '  summary: Two steps: read, then count.',
        '  more planning needed: no',
        '  todos:',
        '    [ ] task-1: Read the file',
        '    [ ] task-2: Count the lines',
        '',
      ].join('\n'),
    );
    expect(looksStructured('  ```json\n{')).toBe(true);
    expect(looksStructured('The answer is')).toBe(false);
  });

  it('show no label for a list that stays empty, streamed or whole', () => {
    const json = JSON.stringify({ passed: true, tasks: [], summary: 'All done.' });
    for (const size of [1, 7, json.length]) {
      let out = '';
      const stream = new AnswerStream();
      const view = new AnswerView('verifier', (t) => (out += t));
      for (let i = 0; i < json.length; i += size) {
        if (stream.push(json.slice(i, i + size))) view.show(stream.value!);
        view.render();
      }
      view.render(true);
      expect(out).toBe('  passed: yes\n  summary: All done.\n');
    }
  });
});

describe('watching a pev run', () => {
  const fx = usePevFixture();

  it("run --watch shows every role's answer of a model that answers at once, whenever the run ends", async () => {
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      for (let i = 0; i < 3; i++) {
        fx.fake.script(
          answer.plan([{ id: 'task-1', description: 'Add 2 and 3' }]),
          answer.executed('2 + 3 = 5'),
          answer.verified('The sum is 5.'),
        );
        const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
        const out = await cli.run('run', '--agent', 'pev', '--model', PRIMARY, '--watch', 'Add 2 and 3.');
        expect(out).toContain('] planner:\n  summary: planned 1 tasks\n');
        expect(out).toContain('] executor:\n  summary: 2 + 3 = 5\n');
        expect(out).toContain("] verifier:\n  all completed: yes\n  user's needs satisfied: yes\n  feedback: ok\n");
        expect(out).toContain('  summary: The sum is 5.\n');
      }
    });
  });

  it('run --watch shows the todos, the summary and the verdict as fields; watch --json gives components', async () => {
    const slow = { eventDelayMs: 10 };
    fx.fake.script(
      { ...answer.plan([{ id: 'task-1', description: 'Add 2 and 3' }]), ...slow },
      { ...answer.executed('2 + 3 = 5'), ...slow },
      { ...answer.verified('The sum is 5.'), ...slow },
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const cli = agentCli(client, taskQueue, { DURABLE_AGENTS_STORE_DIR: fx.store.root });
      const out = await cli.run('run', '--agent', 'pev', '--model', PRIMARY, '--watch', 'Add 2 and 3.');
      expect(out).toContain('] planner:\n  summary: planned 1 tasks\n  more planning needed: no\n  todos:\n');
      expect(out).toContain('    [ ] task-1: Add 2 and 3\n');
      expect(out).toContain('] executor:\n  summary: 2 + 3 = 5\n');
      expect(out).toContain('] verifier:\n  all completed: yes\n');
      expect(out).toContain('The sum is 5.\n');
      expect(out).toContain('] phases finished (cycle 1)\n');
      expect(out).not.toContain('"component"');
      expect(out.match(/\] done \(completed\)/g)).toHaveLength(1);
      expect(cli.exitCode()).toBe(0);

      // A front-end follows a live run: each answer as a component whose fields fill in.
      fx.fake.script(
        { ...answer.plan([{ id: 'task-1', description: 'Add 2 and 3' }]), ...slow },
        { ...answer.executed('2 + 3 = 5'), ...slow },
        { ...answer.verified('The sum is 5, checked twice over.'), eventDelayMs: 30 },
      );
      const id = await cli.run('run', '--agent', 'pev', '--model', PRIMARY, '--stream', '--detach', 'Add 2 and 3.');
      const lines = (await cli.run('watch', id, '--json')).split('\n').map((l) => JSON.parse(l));
      const components = lines.filter((l) => l.type === 'component');
      expect(new Set(components.map((c) => c.role))).toEqual(new Set(['planner', 'executor', 'verifier']));
      const verdicts = components.filter((c) => c.role === 'verifier');
      expect(verdicts.length).toBeGreaterThan(1);
      expect(verdicts[0].value.summary ?? '').not.toBe('The sum is 5, checked twice over.');
      expect(verdicts.at(-1).value).toMatchObject({
        allCompleted: true,
        summary: 'The sum is 5, checked twice over.',
      });
      expect(lines.some((l) => l.topic === 'tokens' && l.delta.kind === 'text')).toBe(false);
      expect(lines.filter((l) => l.event?.type === 'done')).toHaveLength(1);
    });
  });
});
