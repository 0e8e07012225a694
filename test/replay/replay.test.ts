import fs from 'node:fs';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../../src/server/workflow-bundle';
import { REPO_ROOT } from '../kit/env';
import { HISTORIES_DIR, installQuietRuntime, workflowBundle } from '../kit/temporal';

function committedHistories(): HistoryAndWorkflowId[] {
  const files = fs.existsSync(HISTORIES_DIR)
    ? fs
        .readdirSync(HISTORIES_DIR)
        .filter((file) => file.endsWith('.json'))
        .sort()
    : [];
  return files.map((file) => ({
    workflowId: path.basename(file, '.json'),
    history: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')),
  }));
}

async function replayAll(bundle: { codePath: string }, histories: HistoryAndWorkflowId[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) results.push(result);
  return results;
}

describe('replay gate', () => {
  const histories = committedHistories();
  beforeAll(installQuietRuntime);

  it('has committed histories to replay', () => {
    expect(histories.map((history) => history.workflowId)).toContain('hello-workflow');
  });

  it('replays every committed history against the current workflow code without error', async () => {
    const results = await replayAll(workflowBundle(), histories);
    expect(results).toHaveLength(histories.length);
    const failures = results
      .filter((result) => result.error !== undefined)
      .map((result) => `${result.workflowId}: ${result.error?.message}`);
    expect(failures).toEqual([]);
  });

  it('catches a changed command sequence (canary) as a determinism violation', async () => {
    const canaryBundle = await cachedWorkflowBundle({
      workflowsPath: path.join(__dirname, 'canary-workflows.ts'),
      sourceRoots: [path.join(__dirname, 'canary-workflows.ts'), path.join(REPO_ROOT, 'src', 'shared')],
      cacheDir: path.join(REPO_ROOT, 'node_modules', '.cache', 'durable-agents'),
    });
    const hello = histories.filter((history) => history.workflowId === 'hello-workflow');
    const [result] = await replayAll({ codePath: canaryBundle }, hello);
    expect(result.error?.name).toBe('DeterminismViolationError');
  });
});
