/**
 * The model-graded judge (docs/evals.md, The judge) on a real server: once the eval workflow has
 * ended, the process that reports it starts the judge's run on the workers' providers (a scripted
 * judge on the fake provider), which reads the rubric, the task, the answer and, when asked, the
 * tool calls; its verdict is the case's last grader, its tokens and cost are counted apart from the
 * case's; an answer that is not a verdict fails the grader. The judge travels in the eval's input, so
 * `eval report` of a detached eval judges it, and a second report reads the verdict already given.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client';
import { JUDGE_SYSTEM_PROMPT, defineEvalCase, runEval, type CaseSettings } from '../../src/evals';
import { judgeRun } from '../../src/evals/judge';
import { reply, type FakeStep, type RecordedRequest } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture } from '../agent/agent-kit';

const RUBRIC = 'The answer names the sum of one and two.';

const adds = defineEvalCase({
  name: 'adds',
  task: 'Add one and two.',
  stubs: [{ tool: 'add', results: [{ text: '3' }], repeat: true }],
  graders: [{ type: 'tool_called', tool: 'add' }],
  judge: { rubric: RUBRIC, toolCalls: true },
});

/** Whether a request is the judge's: its system prompt is the judge's. */
const judging = (request: RecordedRequest): boolean => JSON.stringify(request.body).includes("an eval's judge");

/** What the judge's request showed it: its first user message. */
const shown = (request: RecordedRequest): string => {
  const messages = request.body.messages as { role: string; content: unknown }[];
  return JSON.stringify(messages.find((m) => m.role === 'user')?.content);
};

describe('the judge', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));

  /** The agent adds and answers 3; the judge answers `verdict`. */
  const script = (verdict: string) =>
    fx.fake.respond((request): FakeStep => {
      if (judging(request)) return reply.text(verdict);
      const answers = (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
      return answers === 0 ? reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]) : reply.text('It is 3.');
    });

  const run = async (settings: Partial<CaseSettings> = {}, c = adds) => {
    const agents = new AgentClient(worker.client, worker.taskQueue, { store: fx.store });
    const report = await runEval(agents, [c], {
      model: PRIMARY,
      fleet: { tenant: 'evals' },
      messages: (id) => agents.messages(id),
      judge: { model: FALLBACK },
      ...settings,
    });
    return report.cases[0];
  };

  it("grades the answer by the rubric on the judge's model; its tokens and cost are its own", async () => {
    script('```json\n{"pass": true, "score": 0.9, "reason": "It says 3."}\n```');
    const outcome = await run();
    expect(outcome.graders.map((g) => [g.name, g.pass])).toEqual([
      ['add called', true],
      ['judge', true],
    ]);
    expect(outcome).toMatchObject({ pass: true, judge: { pass: true, score: 0.9, reason: 'It says 3.' } });
    const judge = fx.fake.requests.filter(judging);
    expect(judge).toHaveLength(1);
    // The judge ran on its own model, and read the rubric, the task, the calls and the answer.
    expect(judge[0].api).toBe('openai');
    expect(judge[0].body.tools ?? []).toEqual([]);
    expect(JSON.stringify(judge[0].body)).toContain(JSON.stringify(JUDGE_SYSTEM_PROMPT).slice(1, 40));
    for (const part of [RUBRIC, 'Add one and two.', '1. add {\\"a\\":1,\\"b\\":2}', 'It is 3.'])
      expect(shown(judge[0])).toContain(part);
    const agents = new AgentClient(worker.client, worker.taskQueue);
    const [theCase, theJudge] = await Promise.all([agents.result(outcome.id), agents.result(outcome.judge!.id)]);
    expect(outcome.judge!.tokens).toBeGreaterThan(0);
    expect(outcome.judge!.costUsd).toBe(theJudge.costUsd);
    expect(outcome.costUsd).toBe(theCase.costUsd);
    expect(theJudge.turns).toBe(1);
    expect(fx.calls).toEqual([]);
  });

  it("a failing verdict fails the case with the judge's score and reason", async () => {
    script('{"pass": false, "score": 0.2, "reason": "It never names the sum."}');
    const outcome = await run({}, { ...adds, judge: { rubric: RUBRIC } });
    expect(outcome.pass).toBe(false);
    expect(outcome.failed).toEqual({ name: 'judge', pass: false, message: 'score 0.2: It never names the sum.' });
    // Without toolCalls the judge is not shown the calls.
    expect(shown(fx.fake.requests.filter(judging)[0])).not.toContain('tool calls');
  });

  it('an answer that is not a verdict is a failed grader saying why, not a crash', async () => {
    script('I think it is fine, mostly.');
    const outcome = await run();
    expect(outcome.pass).toBe(false);
    expect(outcome.failed?.name).toBe('judge');
    expect(outcome.failed?.message).toMatch(/^the judge's answer is not a verdict: cannot extract a value: /);
    expect(outcome.judge).toMatchObject({ pass: false, tokens: expect.any(Number) });
    expect(outcome.judge!.score).toBeUndefined();
    script('{"pass": true, "score": 7, "reason": "Great."}');
    const outOfRange = await run();
    expect(outOfRange.failed?.message).toMatch(/^the judge's answer is not a verdict: .*score/);
  });

  it('two reports judging the same case at once share one judge run and read one verdict', async () => {
    script('{"pass": true, "score": 0.8, "reason": "It says 3."}');
    const outcome = await run({ judge: undefined }, { ...adds, judge: undefined });
    const agents = new AgentClient(worker.client, worker.taskQueue);
    const result = await agents.result(outcome.id);
    const asked = {
      id: outcome.id,
      task: 'Add one and two.',
      run: { result, events: [], toolCalls: [], approvalsRequested: [], latencyMs: 0 },
    };
    const judge = { model: FALLBACK, rubric: RUBRIC, toolCalls: false };
    // Both look before either starts the judge's run: the one whose start is refused reads the other's.
    const [a, b] = await Promise.all([judgeRun(agents, asked, judge), judgeRun(agents, asked, judge)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ pass: true, score: 0.8 });
    expect(fx.fake.requests.filter(judging)).toHaveLength(1);
  });

  describe('eval run --judge', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'judge-'));
      fs.mkdirSync(path.join(dir, 'evals'));
      const { judge: _judge, ...plain } = adds;
      fs.writeFileSync(path.join(dir, 'evals', 'adds.json'), JSON.stringify(plain));
      fs.writeFileSync(path.join(dir, 'rubric.md'), RUBRIC);
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const cli = async (...args: string[]) => {
      const { address, namespace } = await testConnection();
      return runCli(['--task-queue', worker.taskQueue, 'eval', ...args], {
        cwd: dir,
        env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
      });
    };
    const evalRun = (...args: string[]) => cli('run', '--model', PRIMARY, ...args);

    it("reads the rubric from a file, shows the judge's column and figures, and the gate reads its cost", async () => {
      script('{"pass": true, "score": 0.75, "reason": "It says 3."}');
      const out = await evalRun('--judge', FALLBACK, '--rubric', '@rubric.md');
      expect([out.code, out.stderr]).toEqual([0, '']);
      expect(out.stdout).toMatch(/\ncase\s+result\s+stop\s+turns\s+tokens\s+cost\s+latency\s+drift\s+judge\n/);
      expect(out.stdout).toMatch(/\nadds\s+pass\s+.*\s0\.75 \(\$\d+\.\d{4}\)\n/);
      expect(out.stdout).toMatch(/; the judge: mean score 0\.75, cost \$\d+\.\d{4}, [\d,]+ tokens\n/);
      expect(shown(fx.fake.requests.filter(judging)[0])).toContain(RUBRIC);
      const json = await evalRun(
        '--judge',
        FALLBACK,
        '--rubric',
        RUBRIC,
        '--json',
        '--gate',
        'judgeCost<=0,judgeScore>=0.7',
      );
      expect(json.code).toBe(1);
      const report = JSON.parse(json.stdout);
      expect(report.summary.judgeCostUsd).toBeGreaterThan(0);
      expect(report.summary).toMatchObject({ judgeScore: 0.75, judgeTokens: report.cases[0].judge.tokens });
      expect(json.stderr).toBe(
        `durable-agents: gate failed: judgeCost<=0: judgeCost is ${Math.round(report.summary.judgeCostUsd * 10_000) / 10_000}\n`,
      );
    });

    it('a detached eval carries its judge: eval report judges it, and a second report reads the same verdict', async () => {
      script('{"pass": false, "score": 0.4, "reason": "It hedges."}');
      const started = await evalRun('--judge', FALLBACK, '--rubric', RUBRIC, '--detach');
      expect([started.code, started.stderr]).toEqual([0, '']);
      const id = started.stdout.trim();
      const agents = new AgentClient(worker.client, worker.taskQueue);
      await agents.client.workflow.getHandle(id).result();
      expect(fx.fake.requests.filter(judging)).toHaveLength(0);
      const first = await cli('report', id, '--json');
      expect(first.code).toBe(1);
      const report = JSON.parse(first.stdout);
      expect(report.cases[0]).toMatchObject({
        pass: false,
        failed: { name: 'judge', message: 'score 0.4: It hedges.' },
      });
      expect(report.cases[0].judge.id).toMatch(/^eval-.*\/case-1\/judge-[0-9a-f]{14}$/);
      expect(fx.fake.requests.filter(judging)).toHaveLength(1);
      const again = await cli('report', id, '--json');
      expect(JSON.parse(again.stdout).cases[0].judge).toEqual(report.cases[0].judge);
      expect(fx.fake.requests.filter(judging)).toHaveLength(1);
    });

    it('a judge without a rubric, a rubric without a judge or an unknown judge model exits 2, starting nothing', async () => {
      const before = fx.fake.requests.length;
      const none = await evalRun('--judge', FALLBACK);
      expect([none.code, none.stderr]).toEqual([
        2,
        'durable-agents: case "adds" has no rubric for the judge: give --rubric, or judge.rubric in the case\n',
      ]);
      const orphan = await evalRun('--rubric', RUBRIC);
      expect([orphan.code, orphan.stderr]).toEqual([
        2,
        'durable-agents: --rubric and --judge-tool-calls need --judge provider/model\n',
      ]);
      const missing = await evalRun('--judge', FALLBACK, '--rubric', '@nowhere.md');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^durable-agents: --rubric nowhere.md cannot be read: ENOENT\n$/);
      const unknown = await evalRun('--judge', 'nobody/model-x', '--rubric', RUBRIC);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^durable-agents: .*nobody/);
      expect(fx.fake.requests.length).toBe(before);
    });
  });
});
