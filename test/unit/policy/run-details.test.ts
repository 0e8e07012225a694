import { runDetails, runSummary } from '../../../src/policy/run-details';
import { runSpec } from '../../kit/run-spec';

describe('the details a run shows from its start', () => {
  it('count turns and tool calls in the singular when there is one, and list the sub-agents', () => {
    const config = runSpec({
      task: 'Read the notes.',
      model: 'openai/gpt-5-mini',
      limits: { maxTurns: 1, maxToolCallsPerTurn: 1, maxCostUsd: 0.5 },
    });
    const details = runDetails(
      { ...config, agents: { researcher: { description: 'Reads.' } } } as typeof config,
      'Read the notes.',
    );
    expect(details).toContain('- **Limits** 1 turn · 1 tool call per turn · ');
    expect(details).toContain('- **Sub-agents** researcher');
    expect(runSummary('react', 'Read the notes.\nThen more.')).toBe('react · Read the notes.');
  });

  it('escape the dollar signs of the cost limit and the task, so the Web UI shows no math', () => {
    const config = runSpec({ task: 'x', model: 'openai/gpt-5-mini', limits: { maxCostUsd: 0.5 } });
    const details = runDetails(config, 'Spend $5 on A and $10 on B.', ['- **Parent** `p-1`, as its researcher']);
    expect(details).toContain('\\$0.5');
    expect(details).toContain('> Spend \\$5 on A and \\$10 on B.');
    expect(details).toContain('- **Fallbacks** none\n- **Parent** `p-1`, as its researcher\n- **Limits**');
  });
});
