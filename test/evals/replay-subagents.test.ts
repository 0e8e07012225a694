/**
 * `eval replay` one level down (docs/evals.md, Replaying recorded runs): a recorded run whose
 * sub-agent called a tool with side effects is replayed with the child served its own recorded
 * table, found from the parent's recording (the child's workflow id from the sub-agent call), so
 * the child's tool never runs again; a replayed child's invented call is drift, counted in its case.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, type FakeStep, type RecordedRequest } from '../../src/testing/fake-provider';
import { fileNameOf } from '../../src/store/file-names';
import { runCli } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { FALLBACK, resultTexts, useAgentFixture } from '../agent/agent-kit';
import { parentId, startParent } from '../agent/subagents-kit';

const answers = (request: RecordedRequest): number =>
  (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;

/** Whether the request is the researcher's: its system prompt says so. */
const researcher = (request: RecordedRequest): boolean =>
  JSON.stringify(request.body.system ?? (request.body.messages as unknown[])[0]).includes('You are the researcher');

describe('eval replay of a run with a sub-agent', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));
  let id: string;

  /** The parent delegates the clean-up; the researcher deletes old.md (or, `inventing`, new.md too). */
  const agent = (inventing: (request: RecordedRequest) => boolean) =>
    fx.fake.respond((request): FakeStep => {
      const n = answers(request);
      if (researcher(request)) {
        const extra = inventing(request) ? [{ name: 'delete_file', arguments: { path: 'new.md' } }] : [];
        return n === 0
          ? reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.md' } }, ...extra])
          : reply.text('Removed it.');
      }
      return n === 0
        ? reply.toolCalls([{ name: 'researcher', arguments: { task: 'Remove old.md.' }, id: 'toolu_r' }])
        : reply.text('The researcher removed it.');
    });

  const cli = async (...args: string[]) => {
    const { address, namespace } = await testConnection();
    return runCli(['--task-queue', worker.taskQueue, 'eval', 'replay', '--workflow-id', id, '--json', ...args], {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
    });
  };

  beforeEach(async () => {
    agent(() => false);
    const agents = fx.agents(worker.client, worker.taskQueue);
    id = await startParent(agents, { id: parentId('replay-subagents'), task: 'Clean up.' });
    expect(await agents.result(id)).toMatchObject({ stopReason: 'completed', turns: 2 });
    // The recording ran the child's tool once.
    expect(fx.calls).toEqual(['delete_file:old.md']);
    fx.calls.length = 0;
  });

  it("serves the child its own recorded results: its tool never runs again, and the replay's child has no drift", async () => {
    const before = fx.fake.requests.length;
    const out = await cli();
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(fx.calls).toEqual([]);
    const report = JSON.parse(out.stdout);
    expect(report.baseline.summary).toMatchObject({ cases: 1, passed: 1, drift: 0 });
    // The replayed researcher read the result its recording got.
    const childAnswer = fx.fake.requests.slice(before).find((r) => researcher(r) && answers(r) === 1);
    expect(resultTexts(childAnswer!)).toEqual(['deleted old.md']);
    const agents = fx.agents(worker.client, worker.taskQueue);
    const replayed = report.baseline.cases[0].id as string;
    const [parent, child] = await Promise.all([
      agents.result(replayed),
      agents.result(`${replayed}/researcher-toolu_r`),
    ]);
    expect(child.eval).toMatchObject({ served: 1, drift: 0 });
    expect(parent.eval).toMatchObject({
      drift: 0,
      childDrift: 0,
      children: [{ id: `${replayed}/researcher-toolu_r`, agent: 'researcher', served: 1, drift: 0 }],
    });
  });

  it("counts a replayed child's invented call as its case's drift, and never runs it", async () => {
    agent((request) => request.api === 'openai');
    const out = await cli('--candidate', `model=${FALLBACK}`, '--gate', 'drift==0');
    expect(fx.calls).toEqual([]);
    expect(out.code).toBe(1);
    const report = JSON.parse(out.stdout);
    expect(report.baseline.summary).toMatchObject({ passed: 1, drift: 0 });
    expect(report.candidate.summary).toMatchObject({ drift: 1 });
    expect(out.stderr).toBe('durable-agents: gate failed: drift==0: drift is 1\n');
    const candidate = report.candidate.cases[0].id as string;
    const child = await fx.agents(worker.client, worker.taskQueue).result(`${candidate}/researcher-toolu_r`);
    expect(child.eval).toMatchObject({ served: 1, drift: 1, driftCalls: [{ tool: 'delete_file' }] });
  });

  it('a recorded child whose conversation is not in the store gets an empty table: its calls drift, none runs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-sub-'));
    try {
      // The parent's conversation alone: the child's log is not in this copy of the store.
      const { address, namespace } = await testConnection();
      const moved = path.join(dir, 'store');
      fs.cpSync(fx.store.root, moved, { recursive: true });
      fs.rmSync(path.join(moved, 'logs', fileNameOf(`${id}/researcher-toolu_r`)));
      const out = await runCli(['--task-queue', worker.taskQueue, 'eval', 'replay', '--workflow-id', id, '--json'], {
        env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: moved },
      });
      expect(fx.calls).toEqual([]);
      expect(JSON.parse(out.stdout).baseline.summary).toMatchObject({ drift: 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
