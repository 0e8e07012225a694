/**
 * Scores on production runs (docs/evals.md, Scores on production runs): `score` gives closed runs a
 * score, scoring again replaces it, and `eval replay --query` selects the cohort a score puts runs
 * in; a candidate that changes the system prompt replays that cohort with it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { runCli } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

const NEW_PROMPT = 'You are terse. Answer in one word.';
const systemOf = (request: RecordedRequest): string => JSON.stringify(request.body.system ?? '');

describe('scores on runs', () => {
  const fx = useAgentFixture();
  const worker = useWorker(() => ({ activities: fx.activities }));

  const cli = async (...args: string[]) => {
    const { address, namespace } = await testConnection();
    return runCli(['--task-queue', worker.taskQueue, ...args], {
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_AGENTS_STORE_DIR: fx.store.root },
    });
  };

  /** The run ids the query lists, once visibility shows exactly `expected`. */
  async function listedBy(query: string, expected: string[]): Promise<string[]> {
    const { client } = await testConnection();
    const deadline = Date.now() + 30_000;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = [];
      for await (const wf of client.workflow.list({ query }))
        seen.push(String(wf.searchAttributes.DurableAgentScoredRun));
      if (seen.sort().join() === [...expected].sort().join()) return seen;
      await new Promise((r) => setTimeout(r, 250));
    }
    return seen;
  }

  it('scores closed runs, replaces a score given again, and replays the cohort a query selects by score', async () => {
    fx.fake.respond((request) => reply.text(systemOf(request).includes(NEW_PROMPT) ? 'Done.' : 'All done here.'));
    const agents = fx.agents(worker.client, worker.taskQueue);
    const ids = await Promise.all([0, 1, 2].map((i) => agents.start({ task: `Say done, run ${i}.`, model: PRIMARY })));
    for (const id of ids) expect(await agents.result(id)).toMatchObject({ stopReason: 'completed' });
    const name = `quality-${crypto.randomUUID().slice(0, 8)}`;

    const first = await cli('score', ids[0], name, '0.2', '--comment', 'missed the point');
    expect([first.code, first.stdout]).toEqual([
      0,
      expect.stringMatching(new RegExp(`^scored ${ids[0]}: ${name} = 0.2 \\(missed the point\\)`)),
    ]);
    await agents.score(ids[1], name, 0.9);
    await agents.score(ids[2], name, 0.3);
    await agents.score(ids[2], name, 0.8, { comment: 'better on a second look' });
    expect(await agents.scores(ids[2])).toEqual([
      expect.objectContaining({ run: ids[2], name, value: 0.8, comment: 'better on a second look' }),
    ]);
    const listed = await cli('score', ids[0]);
    expect(listed.stdout).toMatch(new RegExp(`^${name} = 0.2 \\(missed the point\\), given `));

    const query = `DurableAgentScoreName = '${name}' AND DurableAgentScore < 0.5`;
    // The first score of ids[2] (0.3) was replaced: only ids[0] is in the cohort.
    expect(await listedBy(query, [ids[0]])).toEqual([ids[0]]);
    const prompt = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prompt-')), 'terse.md');
    fs.writeFileSync(prompt, NEW_PROMPT);
    const before = fx.fake.requests.length;
    const out = await cli('eval', 'replay', '--query', query, '--candidate', `system-prompt=@${prompt}`, '--json');
    expect(out.stderr).toBe('');
    const report = JSON.parse(out.stdout);
    expect(report.baseline.cases.map((c: { name: string }) => c.name)).toEqual([ids[0]]);
    expect(report.candidate.cases.map((c: { name: string }) => c.name)).toEqual([ids[0]]);
    // One request a lane; the candidate's carried the new system prompt, the baseline's the recorded one.
    const made = fx.fake.requests.slice(before);
    expect(made.map((r) => systemOf(r).includes(NEW_PROMPT)).sort()).toEqual([false, true]);
  });

  it('an unknown run, a value that is not a number, a query that selects nothing: exit 2 with one line', async () => {
    const unknown = await cli('score', 'no-such-run', 'quality', '1');
    expect([unknown.code, unknown.stderr]).toEqual([2, 'durable-agents: no agent run with id "no-such-run"\n']);
    const notNumber = await cli('score', 'no-such-run', 'quality', 'high');
    expect([notNumber.code, notNumber.stderr]).toEqual([
      2,
      'durable-agents: score value "high": give a number, e.g. 0.8\n',
    ]);
    const nothing = await cli('eval', 'replay', '--query', "DurableAgentScoreName = 'never-given'");
    expect([nothing.code, nothing.stderr]).toEqual([
      2,
      `durable-agents: --query "DurableAgentScoreName = 'never-given'" selects no closed agent run\n`,
    ]);
    const both = await cli('eval', 'replay', '--query', 'x', '--workflow-id', 'y');
    expect([both.code, both.stderr]).toEqual([
      2,
      'durable-agents: give the recorded runs: --workflow-id ID… or --query QUERY (one of them)\n',
    ]);
  });
});
