import type { AgentResult } from '../../../src/contracts/agent-run';
import { emptyUsage } from '../../../src/contracts/message-model';
import { formatSummary } from '../../../src/cli/render-run';

const result = (extra: Partial<AgentResult> = {}): AgentResult => ({
  id: 'job-1',
  kind: 'react',
  status: 'completed',
  stopReason: 'budget',
  finalText: '',
  turns: 1,
  usage: emptyUsage(),
  costUsd: 0,
  model: 'anthropic/claude-sonnet-4-6',
  messages: 1,
  ...extra,
});

describe('how the CLI says a run ended', () => {
  it("says on a line of its own why the tenant's budget stopped a run", () => {
    const note = "tenant budget: tenant acme's budget is spent: $0.0900 of $0.10 in all;\nthe run was not started";
    expect(formatSummary(result({ stopNote: note })).split('\n')).toEqual([
      expect.stringMatching(/^job-1: stopped \(budget\) after 1 turn on anthropic\/claude-sonnet-4-6 · /),
      "stopped by tenant budget: tenant acme's budget is spent: $0.0900 of $0.10 in all; the run was not started",
    ]);
    expect(formatSummary(result()).split('\n')).toHaveLength(1);
  });
});
