/**
 * `durable-agents eval run` as a user runs it (docs/evals.md): case files in, a table, a JUnit file a
 * JUnit reader parses, and a gate whose exit code CI reads; bad input exits 2 with one line and
 * starts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseV2 } from 'test-results-parser';
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';
import { who } from '../agent/subagents-kit';

const NOTE_CASE = {
  name: 'writes-the-note',
  task: 'Write the note hello.',
  stubs: [{ tool: 'write_note', args: { text: 'hello' }, results: [{ text: 'wrote 5 characters' }] }],
  graders: [
    { type: 'tool_called_with', tool: 'write_note', args: { text: 'hello' } },
    { type: 'text_contains', text: 'written' },
  ],
};
const SUM_CASE = {
  name: 'adds',
  task: 'Add one and two.',
  stubs: [{ tool: 'add', results: [{ text: '3' }], repeat: true }],
  graders: [
    { type: 'tool_called', tool: 'add' },
    { type: 'stop_reason', is: 'completed' },
  ],
};

describe('eval run', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evals-'));
    fs.mkdirSync(path.join(dir, 'evals'));
    fs.writeFileSync(path.join(dir, 'evals', 'note.json'), JSON.stringify(NOTE_CASE));
    fs.writeFileSync(path.join(dir, 'evals', 'sum.json'), JSON.stringify([SUM_CASE]));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The candidate: writes the note (or, `skipping`, answers without writing it) and adds. */
  const candidate = (skipping: boolean) =>
    fx.fake.respond((request): FakeStep => {
      const { task, answers } = who(request);
      if (task.startsWith('Write'))
        return answers === 0 && !skipping
          ? reply.toolCalls([{ name: 'write_note', arguments: { text: 'hello' } }])
          : reply.text('The note is written.');
      return answers === 0 ? reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]) : reply.text('3');
    });

  const evalRun = async (...args: string[]) => {
    const { address, namespace } = await testConnection();
    return runCli(['--task-queue', worker.taskQueue, 'eval', 'run', ...args], {
      cwd: dir,
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
    });
  };

  it('runs the cases of evals/, prints the table, writes JUnit a JUnit reader parses, and exits 0 when the gate holds', async () => {
    candidate(false);
    const junit = path.join(dir, 'report.xml');
    const out = await evalRun('--model', PRIMARY, '--junit', junit, '--gate', 'pass>=1,drift==0', '--parallel', '2');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^eval-\S+: writes-the-note and 1 more: completed, 2\/2 cases done \(2 passed\), 0 running, 0 pending\ncase\s+result\s+stop\s+turns\s+tokens\s+cost\s+latency\s+drift\n/,
    );
    expect(out.stdout).toMatch(/\nwrites-the-note\s+pass\s+completed\s+2\s/);
    expect(out.stdout).toMatch(/\nadds\s+pass\s+completed\s+2\s/);
    expect(out.stdout).toContain('2/2 cases passed (100.0 %)');
    expect(fx.calls).toEqual([]);
    const { result, errors } = parseV2({ type: 'junit', files: [junit] });
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ total: 2, passed: 2, failed: 0 });
    expect(result.suites[0].cases.map((t) => [t.name, t.status])).toEqual([
      ['writes-the-note', 'PASS'],
      ['adds', 'PASS'],
    ]);
  });

  it('a candidate that skips a required tool fails the gate: exit 1, the case and its first failing grader named', async () => {
    candidate(true);
    const junit = path.join(dir, 'report.xml');
    const out = await evalRun('--model', PRIMARY, '--junit', junit, '--gate', 'pass>=0.95');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/\nwrites-the-note\s+FAIL\s/);
    expect(out.stdout).toMatch(
      /failing cases:\n {2}writes-the-note \(.+\): write_note called with \{"text":"hello"\}: write_note was not called/,
    );
    expect(out.stderr).toBe('durable-agents: gate failed: pass>=0.95: pass is 0.5\n');
    const { result, errors } = parseV2({ type: 'junit', files: [junit] });
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ total: 2, passed: 1, failed: 1 });
    const failing = result.suites[0].cases[0];
    expect([failing.name, failing.status, failing.failure]).toEqual([
      'writes-the-note',
      'FAIL',
      expect.stringMatching(/^write_note called with/),
    ]);
  });

  it('--json prints the report with the gate; the runs work for --tenant at --priority', async () => {
    candidate(false);
    const sum = path.join('evals', 'sum.json');
    const out = await evalRun('--model', PRIMARY, '--json', '--tenant', 'qa', '--priority', '5', sum);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report).toMatchObject({
      summary: { cases: 1, passed: 1, pass: 1, drift: 0 },
      cases: [{ name: 'adds', pass: true, turns: 2 }],
      gate: { holds: true, failures: [] },
    });
    const described = await worker.client.workflow.getHandle(report.cases[0].id).describe();
    expect(described.searchAttributes.DurableAgentTenant).toEqual(['qa']);
    expect(described.priority?.priorityKey).toBe(5);
  });

  it('eval compare puts two saved reports side by side: the changed case named, the gate read on the later', async () => {
    candidate(false);
    const before = await evalRun('--model', PRIMARY, '--json');
    candidate(true);
    const after = await evalRun('--model', PRIMARY, '--json');
    expect([before.code, after.code]).toEqual([0, 1]);
    fs.writeFileSync(path.join(dir, 'before.json'), before.stdout);
    fs.writeFileSync(path.join(dir, 'after.json'), after.stdout);
    const { address, namespace } = await testConnection();
    const compare = (...args: string[]) =>
      runCli(['eval', 'compare', ...args], {
        cwd: dir,
        env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace },
      });
    const out = await compare('before.json', 'after.json', '--gate', 'pass>=1,tokens<=2x');
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^before: 2\/2 cases passed \(100\.0 %\).*\nafter: {2}1\/2 cases passed \(50\.0 %\)/);
    expect(out.stdout).toMatch(/\npass -50\.0 points, cost \S+, tokens \S+x, turns 0\.75x, /);
    expect(out.stdout).toContain('\n  writes-the-note: before pass, after FAIL (write_note called with');
    expect(out.stderr).toBe('durable-agents: gate failed: pass>=1: pass is 0.5\n');
    const json = JSON.parse((await compare('before.json', 'after.json', '--json')).stdout);
    expect(json).toMatchObject({ before: { passed: 2 }, after: { passed: 1 }, gate: { holds: true } });
    const bad = await compare('before.json', 'missing.json');
    expect([bad.code, bad.stderr]).toEqual([2, 'durable-agents: missing.json: no such file or directory\n']);
  });

  it('bad input exits 2 with one line and starts nothing', async () => {
    candidate(false);
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ ...SUM_CASE, graders: [{ type: 'tool_caled' }] }));
    const cases: [string[], RegExp][] = [
      [['bad.json', '--model', PRIMARY], /^durable-agents: bad\.json: graders\[0\]: unknown grader type "tool_caled"/],
      [['--model', 'nosuch/model'], /^durable-agents: .*nosuch/],
      [[], /^durable-agents: case "writes-the-note" names no model: give --model\n$/],
      [['--model', PRIMARY, '--gate', 'pass>=high'], /^durable-agents: --gate: gate clause "pass>=high" is not/],
      [['--model', PRIMARY, '--gate', 'cost<=1.1x'], /^durable-agents: --gate compares with a baseline/],
      [['missing.json', '--model', PRIMARY], /^durable-agents: missing\.json: no such file or directory\n$/],
    ];
    for (const [args, stderr] of cases) {
      const out = await evalRun(...args);
      expect({ args, code: out.code, stdout: out.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(out.stderr).toMatch(stderr);
      expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(fx.fake.requests).toHaveLength(0);
  });
});
