/**
 * `durable-agents eval replay` over recorded runs (docs/evals.md, Replaying recorded runs): runs
 * recorded with tools that have side effects are replayed with their tool results served from the
 * recording; nothing runs again, the baseline lane passes every case, and a candidate that skips a
 * call and invents another fails the gate at that step, its invented call counted as drift.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseV2 } from 'test-results-parser';
import { reply, type FakeStep, type RecordedRequest } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, holdReply, useAgentFixture } from '../agent/agent-kit';

const RUNS = 3;
/** How many recorded runs the first test replays: the scale an eval of yesterday's runs has. */
const AT_SCALE = 50;

const answers = (request: RecordedRequest): number =>
  (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

/** The recorded agent: writes a note and adds, deletes old.md, then answers. */
const recorded = (n: number): FakeStep =>
  [
    reply.toolCalls([
      { name: 'write_note', arguments: { text: 'note' } },
      { name: 'add', arguments: { a: 1, b: 2 } },
    ]),
    reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.md' } }]),
    reply.text('Done: old.md removed.'),
  ][n];

/** The candidate: writes the note twice (the second call invented) and never deletes old.md. */
const regressing = (n: number): FakeStep =>
  [
    reply.toolCalls([
      { name: 'write_note', arguments: { text: 'note' } },
      { name: 'add', arguments: { a: 1, b: 2 } },
    ]),
    reply.toolCalls([{ name: 'write_note', arguments: { text: 'again' } }]),
    reply.text('Done.'),
  ][n];

describe('eval replay', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));
  /** The workers of another build, on a task queue of their own. */
  const canary = useWorker(() => ({ activities: fx.activities }));
  let ids: string[] = [];

  const cli = async (...args: string[]) => {
    const { address, namespace } = await testConnection();
    return runCli(['--task-queue', worker.taskQueue, 'eval', 'replay', ...args], {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
    });
  };

  /** Records `n` runs of the recorded agent; their ids. Each runs its tools once. */
  async function recordRuns(n: number, from = 0): Promise<string[]> {
    fx.fake.respond((request) => recorded(answers(request)));
    const agents = fx.agents(worker.client, worker.taskQueue);
    const started = await Promise.all(
      Array.from({ length: n }, (_, i) => agents.start({ task: `Tidy up, run ${from + i}.`, model: PRIMARY })),
    );
    for (const id of started) expect(await agents.result(id)).toMatchObject({ stopReason: 'completed', turns: 3 });
    // The recordings ran their tools: each wrote, added and deleted once.
    expect(fx.calls).toHaveLength(3 * n);
    fx.calls.length = 0;
    return started;
  }

  beforeEach(async () => {
    ids = await recordRuns(RUNS);
  });

  it(`replays ${AT_SCALE} runs with their results served: no side effect runs, the baseline passes every case, the candidate fails the gate at the step it changed`, async () => {
    ids.push(...(await recordRuns(AT_SCALE - RUNS, RUNS)));
    fx.fake.respond((request) => (request.api === 'anthropic' ? recorded : regressing)(answers(request)));
    const junit = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replay-')), 'report.xml');
    const out = await cli(
      '--workflow-id',
      ...ids,
      '--candidate',
      `model=${FALLBACK}`,
      '--junit',
      junit,
      '--gate',
      'pass>=0.95,drift==0',
      '--parallel',
      '10',
    );
    expect(fx.calls).toEqual([]);
    expect(out.code).toBe(1);
    const [baseline, candidate] = out.stdout.split(`\ncandidate (${FALLBACK}):\n`);
    expect(baseline).toContain(`${AT_SCALE}/${AT_SCALE} cases passed (100.0 %)`);
    expect(baseline).toMatch(/drift 0\n/);
    expect(candidate).toContain(`0/${AT_SCALE} cases passed (0.0 %)`);
    // Each candidate run invented one call: drift is exactly one a case.
    expect(candidate).toContain(`drift ${AT_SCALE}\n`);
    for (const id of ids)
      expect(candidate).toContain(
        `  ${id}: baseline pass, candidate FAIL (same calls with side effects: call 2 with side effects: ` +
          'recorded delete_file {"path":"old.md"}, replayed write_note {"text":"again"})',
      );
    expect(out.stderr).toBe(
      `durable-agents: gate failed: pass>=0.95: pass is 0\ndurable-agents: gate failed: drift==0: drift is ${AT_SCALE}\n`,
    );
    const { result, errors } = parseV2({ type: 'junit', files: [junit] });
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ total: AT_SCALE, failed: AT_SCALE });
  }, 300_000);

  it('the baseline alone of an unchanged agent passes the default gate', async () => {
    fx.fake.respond((request) => recorded(answers(request)));
    const out = await cli('--workflow-id', ...ids, '--json');
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.baseline.summary).toMatchObject({ cases: RUNS, passed: RUNS, drift: 0 });
    // The observed lane: the recordings as they ran, graded the same way.
    expect(report.observed.summary).toMatchObject({ cases: RUNS, passed: RUNS, drift: 0, turns: 3 * RUNS });
    expect(report.observed.cases.map((c: { id: string }) => c.id)).toEqual(ids);
    expect(report.gate).toEqual({ holds: true, failures: [] });
    expect(fx.calls).toEqual([]);
  });

  it('from a recorded turn: each case goes on from the recorded conversation, only the later turns are asked', async () => {
    fx.fake.respond((request) => recorded(answers(request)));
    const before = fx.fake.requests.length;
    const out = await cli('--workflow-id', ...ids, '--from-turn', '2', '--json');
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout).baseline.summary).toMatchObject({ cases: RUNS, passed: RUNS, drift: 0 });
    // One model call a case, answering turn 2's tool results; nothing ran again.
    expect(fx.fake.requests.slice(before).map(answers)).toEqual(ids.map(() => 2));
    expect(fx.calls).toEqual([]);
    const past = await cli('--workflow-id', ids[0], '--from-turn', '3');
    expect([past.code, past.stderr]).toEqual([
      2,
      `durable-agents: run "${ids[0]}" took 3 turns: --from-turn must be below that\n`,
    ]);
  });

  it('a config candidate lays its run options over each case: its call settings reach the provider', async () => {
    fx.fake.respond((request) => recorded(answers(request)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'candidate-'));
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ call: { temperature: 0.25 } }));
    const before = fx.fake.requests.length;
    const out = await cli('--workflow-id', ids[0], '--candidate', `config=${config}`, '--json');
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout).candidate.summary).toMatchObject({ cases: 1, passed: 1 });
    // Three calls a lane: the candidate's carried the temperature, the baseline's did not.
    const temperatures = fx.fake.requests.slice(before).map((r) => r.body.temperature);
    expect(temperatures.filter((t) => t === 0.25)).toHaveLength(3);
    expect(temperatures.filter((t) => t === undefined)).toHaveLength(3);
    fs.writeFileSync(config, JSON.stringify({ eval: { served: [] } }));
    const owned = await cli('--workflow-id', ids[0], '--candidate', `config=${config}`);
    expect([owned.code, owned.stderr]).toEqual([
      2,
      `durable-agents: --candidate config=${config}: the eval sets eval itself\n`,
    ]);
  });

  it("a task-queue candidate runs its cases on the workers of that queue (another build's), the baseline on the eval's", async () => {
    fx.fake.respond((request) => recorded(answers(request)));
    const out = await cli('--workflow-id', ids[0], '--candidate', `task-queue=${canary.taskQueue}`, '--json');
    expect(out.stderr).toBe('');
    const { baseline, candidate } = JSON.parse(out.stdout);
    expect(candidate.summary).toMatchObject({ cases: 1, passed: 1 });
    expect(fx.calls).toEqual([]);
    const queueOf = async (id: string) => (await worker.client.workflow.getHandle(id).describe()).taskQueue;
    expect(await queueOf(candidate.cases[0].id)).toBe(canary.taskQueue);
    expect(await queueOf(baseline.cases[0].id)).toBe(worker.taskQueue);
    const text = await cli('--workflow-id', ids[0], '--candidate', `task-queue=${canary.taskQueue}`);
    expect(text.stdout).toContain(`candidate (the workers of ${canary.taskQueue}):`);
  });

  it('an unknown run, a bad candidate and a run still open exit 2 with one line, starting nothing', async () => {
    const before = fx.fake.requests.length;
    const unknown = await cli('--workflow-id', 'no-such-run');
    expect([unknown.code, unknown.stderr]).toEqual([2, 'durable-agents: no run "no-such-run"\n']);
    const bad = await cli('--workflow-id', ids[0], '--candidate', 'prompt=x');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'durable-agents: --candidate prompt=x: give model=provider/model, system-prompt=@FILE, config=FILE or task-queue=QUEUE\n',
    ]);
    const nobody = await cli('--workflow-id', ids[0], '--candidate', 'task-queue=no-workers-here');
    expect([nobody.code, nobody.stderr]).toEqual([
      2,
      'durable-agents: --candidate task-queue=no-workers-here: no worker polls that task queue\n',
    ]);
    expect(fx.fake.requests.length).toBe(before);
    const held = holdReply(fx, reply.text('Later.'));
    const open = await fx.agents(worker.client, worker.taskQueue).start({ task: 'Wait.', model: PRIMARY });
    try {
      const still = await cli('--workflow-id', open);
      expect([still.code, still.stderr]).toEqual([
        2,
        `durable-agents: run "${open}" is still open: replay closed runs\n`,
      ]);
    } finally {
      held.open();
    }
  });
});
