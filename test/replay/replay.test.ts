import fs from 'node:fs';
import path from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { DurableAgentsPlugin } from '../../src/worker/plugin';
import { HISTORIES_DIR, canaryBundle, historyWorkflowId, installQuietRuntime, workflowBundle } from '../kit/temporal';

function committedHistories(): HistoryAndWorkflowId[] {
  return fs
    .readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      workflowId: historyWorkflowId(path.basename(file, '.json')),
      history: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')),
    }));
}

async function replayAll(bundle: { codePath: string }, histories: HistoryAndWorkflowId[]): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replaying = Worker.runReplayHistories(
    { workflowBundle: bundle, plugins: [new DurableAgentsPlugin()] },
    histories,
  );
  for await (const result of replaying) results.push(result);
  return results;
}

describe('replay gate', () => {
  const histories = committedHistories();
  beforeAll(installQuietRuntime);

  it('has a committed history of the test workflow, both agent kinds, the tenant ledger and an eval', () => {
    const names = histories.map((history) => history.workflowId);
    expect(names).toEqual(
      expect.arrayContaining(['hello-workflow', 'agent-multi-turn', 'pev-two-cycles', 'tenant-ledger', 'eval-cancel']),
    );
  });

  it('replays every committed history against the current workflow code without error', async () => {
    const results = await replayAll(workflowBundle(), histories);
    expect(results.map((r) => [r.workflowId, r.error?.message])).toEqual(
      histories.map((h) => [h.workflowId, undefined]),
    );
    // A hundred histories replay in about half a minute on a quiet machine; a busy one takes longer.
  }, 600_000);

  it('catches a changed command sequence (canary) as a determinism violation', async () => {
    const agent = histories.filter((history) => history.workflowId === 'agent-multi-turn');
    const [result] = await replayAll({ codePath: await canaryBundle() }, agent);
    expect(result.error?.name).toBe('DeterminismViolationError');
  });
});
