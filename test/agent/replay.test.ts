import fs from 'node:fs';
import path from 'node:path';
import { Worker, type ReplayResult } from '@temporalio/worker';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { cachedWorkflowBundle } from '../../src/server/workflow-bundle';
import { REPO_ROOT } from '../kit/env';
import { HISTORIES_DIR, workflowBundle } from '../kit/temporal';

const AGENT_PATHS = [
  'agent-multi-turn',
  'agent-steering',
  'agent-follow-up',
  'agent-stop',
  'agent-cancel',
  'agent-approvals',
  'agent-approval-edited',
  'agent-approval-timeout',
  'agent-client-tool',
  'agent-steer-client-tool',
  'agent-failover',
  'agent-budget-switch',
  'agent-limit-max-turns',
  'agent-limit-cost',
  'agent-hooks',
  'agent-continue-as-new',
  'agent-compaction',
  'agent-context-too-long',
  'agent-cli-run',
  'agent-watch',
  'agent-watch-continued',
];

function load(names: string[]): HistoryAndWorkflowId[] {
  return names.map((name) => ({
    workflowId: name,
    history: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, `${name}.json`), 'utf8')),
  }));
}

async function replay(bundle: { codePath: string }, histories: HistoryAndWorkflowId[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) results.push(result);
  return results;
}

describe('agent replay set', () => {
  it('has a committed history for every path of the agent loop, and each replays cleanly', async () => {
    const results = await replay(workflowBundle(), load(AGENT_PATHS));
    expect(results.map((r) => [r.workflowId, r.error?.message])).toEqual(AGENT_PATHS.map((name) => [name, undefined]));
  });

  it('catches a changed command sequence in the agent workflow (canary)', async () => {
    const canary = await cachedWorkflowBundle({
      workflowsPath: path.join(__dirname, 'canary-workflows.ts'),
      sourceRoots: [path.join(__dirname, 'canary-workflows.ts'), path.join(REPO_ROOT, 'src')],
      cacheDir: path.join(REPO_ROOT, 'node_modules', '.cache', 'durable-agents'),
    });
    const results = await replay({ codePath: canary }, load(['agent-multi-turn', 'agent-approvals']));
    expect(results.map((r) => r.error?.name)).toEqual(['DeterminismViolationError', 'DeterminismViolationError']);
  });
});
